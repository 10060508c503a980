import Foundation

/// A JSON value as the importer reads it. Numbers keep their literal text, so integers
/// beyond 2^53 and decimals stay exact until converted to an attribute's type.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

/// A JSON object: members by name (a repeated name keeps its last value, as most readers
/// do), and their order as written.
///
/// Kept as names and values side by side: a record of a few members is found faster by
/// comparing names than by hashing them, and takes a fraction of a dictionary's memory,
/// which bounds how many records an import batch holds. The names are shared by every
/// object a reader reads with the same names in the same order (the records of an array,
/// as a rule).
public struct JSONObject: Sendable, Hashable {
    private(set) var names: JSONMemberNames
    /// Member values, in `names`' order.
    private var values: [JSONValue]

    public init() {
        names = .none
        values = []
    }

    /// Members as a reader built them: `names` once each, `values` in their order.
    init(names: JSONMemberNames, values: [JSONValue]) {
        self.names = names
        self.values = values
    }

    /// An object of `pairs` in order; a repeated name keeps its last value, in its first place.
    public init(_ pairs: [(String, JSONValue)]) {
        var order: [String] = []
        var values: [JSONValue] = []
        var positions: [String: Int] = [:]
        for (name, value) in pairs {
            if let position = positions[name] {
                values[position] = value
            } else {
                positions[name] = order.count
                order.append(name)
                values.append(value)
            }
        }
        self.init(names: JSONMemberNames(order), values: values)
    }

    /// Member names in the order first written.
    public var order: [String] { names.names }

    /// Members by name.
    public var members: [String: JSONValue] {
        Dictionary(uniqueKeysWithValues: zip(names.names, values))
    }

    public var count: Int { values.count }

    /// The value of the member at `position` in ``names``.
    func value(atMember position: Int) -> JSONValue { values[position] }

    public var isEmpty: Bool { values.isEmpty }

    public subscript(name: String) -> JSONValue? {
        get { names.position(of: name).map { values[$0] } }
        set {
            switch (names.position(of: name), newValue) {
            case (let position?, let value?):
                values[position] = value
            case (let position?, nil):
                var order = names.names
                order.remove(at: position)
                names = JSONMemberNames(order)
                values.remove(at: position)
            case (nil, let value?):
                names = JSONMemberNames(names.names + [name])
                values.append(value)
            case (nil, nil):
                break
            }
        }
    }

    public static func == (left: JSONObject, right: JSONObject) -> Bool {
        (left.names === right.names || left.names.names == right.names.names) && left.values == right.values
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(names.names)
        hasher.combine(values)
    }
}

/// The member names of JSON objects, in order, each once, with their positions by name
/// for objects too large to search name by name. Immutable, so objects share it.
final class JSONMemberNames: Sendable {
    let names: [String]
    private let positions: [String: Int]?

    /// Above this many members, names are found through `positions`.
    private static let searchedMembers = 16

    static let none = JSONMemberNames([])

    init(_ names: [String]) {
        self.names = names
        positions = names.count > Self.searchedMembers ? Dictionary(uniqueKeysWithValues: zip(names, names.indices)) : nil
    }

    func position(of name: String) -> Int? {
        if let positions { return positions[name] }
        return names.firstIndex(of: name)
    }
}


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

/// A JSON number, as written (`-12`, `1.5e3`).
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The literal, valid JSON number syntax.
    public let text: String

    public init(text: String) {
        self.text = text
    }

    public var description: String { text }
}

/// A JSON object: members by name (a repeated name keeps its last value, as most readers
/// do), and their order as written.
///
/// Kept as names and values side by side: a record of a few members is found faster by
/// comparing names than by hashing them, and takes half the memory of a dictionary, which
/// bounds how many records an import batch holds.
public struct JSONObject: Sendable, Hashable {
    /// Member names in the order first written, each once.
    public private(set) var order: [String]
    /// Member values, in `order`'s order.
    private var values: [JSONValue]
    /// Positions by name, for objects too large to search name by name.
    private var positions: [String: Int]?

    /// Above this many members, names are found through `positions`.
    private static let searchedMembers = 16

    public init() {
        order = []
        values = []
    }

    /// Members as a reader built them: `order` names each member once, `values` in its order.
    init(uniqueNames order: [String], values: [JSONValue]) {
        self.order = order
        self.values = values
        if order.count > Self.searchedMembers { positions = Self.positions(of: order) }
    }

    public init(_ pairs: [(String, JSONValue)]) {
        self.init()
        for (name, value) in pairs { self[name] = value }
    }

    /// Members by name.
    public var members: [String: JSONValue] {
        Dictionary(uniqueKeysWithValues: zip(order, values))
    }

    public var count: Int { order.count }

    public subscript(name: String) -> JSONValue? {
        get { position(of: name).map { values[$0] } }
        set {
            switch (position(of: name), newValue) {
            case (let position?, let value?):
                values[position] = value
            case (let position?, nil):
                order.remove(at: position)
                values.remove(at: position)
                positions = order.count > Self.searchedMembers ? Self.positions(of: order) : nil
            case (nil, let value?):
                order.append(name)
                values.append(value)
                if positions != nil {
                    positions?[name] = order.count - 1
                } else if order.count > Self.searchedMembers {
                    positions = Self.positions(of: order)
                }
            case (nil, nil):
                break
            }
        }
    }

    public var isEmpty: Bool { order.isEmpty }

    private func position(of name: String) -> Int? {
        if let positions { return positions[name] }
        return order.firstIndex(of: name)
    }

    private static func positions(of names: [String]) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: zip(names, names.indices))
    }

    public static func == (left: JSONObject, right: JSONObject) -> Bool {
        left.order == right.order && left.values == right.values
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(order)
        hasher.combine(values)
    }
}

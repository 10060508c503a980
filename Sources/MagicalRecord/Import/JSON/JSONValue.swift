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
public struct JSONObject: Sendable, Hashable {
    public private(set) var members: [String: JSONValue]
    /// Member names in the order first written.
    public private(set) var order: [String]

    public init() {
        members = [:]
        order = []
    }

    /// Members and their order as a reader built them: `order` names each member once.
    init(members: [String: JSONValue], order: [String]) {
        self.members = members
        self.order = order
    }

    public init(_ pairs: [(String, JSONValue)]) {
        self.init()
        for (name, value) in pairs { self[name] = value }
    }

    public subscript(name: String) -> JSONValue? {
        get { members[name] }
        set {
            if members[name] == nil, newValue != nil { order.append(name) }
            if newValue == nil { order.removeAll { $0 == name } }
            members[name] = newValue
        }
    }

    public var isEmpty: Bool { members.isEmpty }
}

/// The members of a JSON object as an import reads them: a built ``JSONObject``, or a
/// record read in place (``JSONObjectView``).
protocol JSONMembers {
    var names: JSONMemberNames { get }
    /// The value of the member at `position` in ``names``.
    func value(atMember position: Int) -> JSONValue
}

extension JSONMembers {
    /// The value at `path`: its first name a member of this object, each further name one
    /// of the object before it; nil when any is missing.
    func value(atPath path: EntityImportMapping.KeyPath) -> JSONValue? {
        guard let position = names.position(of: path.components[0]) else { return nil }
        var current = value(atMember: position)
        for component in path.components.dropFirst() {
            guard case .object(let object) = current, let next = object[component] else { return nil }
            current = next
        }
        return current
    }
}

extension JSONObject: JSONMembers {}

/// An object read in place (``JSONParser/parseValue(depth:inPlace:)``): names shared with
/// objects read before it, and its values where the parser holds them. Valid only during
/// the call that gets it.
struct JSONObjectView: JSONMembers {
    let names: JSONMemberNames
    let values: UnsafeBufferPointer<JSONValue>

    func value(atMember position: Int) -> JSONValue { values[position] }
}

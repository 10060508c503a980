/// The members of a JSON object as an import reads them: a built ``JSONObject``, or a
/// record read in place (``JSONObjectView``).
protocol JSONMembers {
    var names: JSONMemberNames { get }
    /// The value of the member at `position` in ``names``.
    func value(atMember position: Int) -> JSONValue
    /// The bytes of the member at `position` when it is a plain ASCII string the reader
    /// left unbuilt (it is built if its value is asked for); nil otherwise.
    func unbuiltString(atMember position: Int) -> UnsafeBufferPointer<UInt8>?
}

extension JSONMembers {
    func unbuiltString(atMember position: Int) -> UnsafeBufferPointer<UInt8>? { nil }

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
    /// By member, the bytes of a string left unbuilt (its place in `values` holds a
    /// placeholder), a nil base where the value was built; nil when none was left.
    var unbuilt: UnsafeBufferPointer<UnsafeBufferPointer<UInt8>>? = nil

    func value(atMember position: Int) -> JSONValue {
        if let bytes = unbuiltString(atMember: position) { return .string(String(decoding: bytes, as: UTF8.self)) }
        return values[position]
    }

    func unbuiltString(atMember position: Int) -> UnsafeBufferPointer<UInt8>? {
        guard let unbuilt, unbuilt[position].baseAddress != nil else { return nil }
        return unbuilt[position]
    }
}

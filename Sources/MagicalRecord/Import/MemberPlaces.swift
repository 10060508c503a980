/// Where each of a mapping's lookups (a list of key paths, tried in order) lies in objects
/// of one list of member names.
///
/// The records of an array share their names (``JSONMemberNames``), so the place of each
/// key path is worked out once per list of names rather than found by comparing names in
/// every record: a tenth of converting a record went to finding its members.
struct MemberPlaces {
    private enum Place {
        /// A one-name key path, at this member.
        case member(Int)
        /// A one-name key path these names lack.
        case absent
        /// A dotted key path: looked up through the nested objects of each record.
        case nested
    }

    private let lookups: [[EntityImportMapping.KeyPath]]
    private var names = JSONMemberNames.none
    /// Per lookup, the place of each of its key paths in objects of `names`.
    private var places: [[Place]]

    init(_ lookups: [[EntityImportMapping.KeyPath]]) {
        self.lookups = lookups
        places = lookups.map { Array(repeating: .absent, count: $0.count) }
        resolve(for: .none)
    }

    /// The value of lookup `index` in `object`: that of its first key path present (`null`
    /// counts as present unless `nullAsAbsent`), as `JSONObject.value(at:nullAsAbsent:)`.
    mutating func value(of index: Int, in object: JSONObject, nullAsAbsent: Bool) -> LookedUp {
        if object.names !== names { resolve(for: object.names) }
        for (path, place) in zip(lookups[index], places[index]) {
            let value: JSONValue
            switch place {
            case .member(let position): value = object.value(atMember: position)
            case .absent: continue
            case .nested:
                guard case .found(let found, _) = object.value(at: [path], nullAsAbsent: false) else { continue }
                value = found
            }
            if nullAsAbsent, value == .null { continue }
            return .found(value, keyPath: path.description)
        }
        return .absent
    }

    private mutating func resolve(for names: JSONMemberNames) {
        self.names = names
        for (index, paths) in lookups.enumerated() {
            for (place, path) in paths.enumerated() {
                places[index][place] = if path.components.count > 1 {
                    .nested
                } else {
                    names.position(of: path.components[0]).map(Place.member) ?? .absent
                }
            }
        }
    }
}

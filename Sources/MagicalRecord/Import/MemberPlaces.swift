/// Where each of a mapping's lookups (a list of key paths, tried in order) lies in objects
/// of one list of member names.
///
/// The records of an array share their names (``JSONMemberNames``), so the place of each
/// key path is worked out once per list of names rather than found by comparing names in
/// every record: a tenth of converting a record went to finding its members. Paths and
/// places are kept in flat arrays of plain values, so a lookup copies no array (a table
/// of arrays retained and released two of them per lookup).
struct MemberPlaces {
    private enum Place {
        /// A one-name key path, at this member.
        case member(Int)
        /// A one-name key path these names lack.
        case absent
        /// A dotted key path: looked up through the nested objects of each record.
        case nested
    }

    /// Every lookup's key paths, one lookup after the other.
    private let paths: [EntityImportMapping.KeyPath]
    /// Where lookup `i`'s paths start in `paths`; one more entry ends the last.
    private let starts: [Int]
    private var names = JSONMemberNames.none
    /// The place of each of `paths` in objects of `names`.
    private var places: [Place]
    /// Per lookup of one one-name key path (most of them), its place in objects of `names`
    /// at once: the member's position, or `Self.absentMember`; `Self.walked` for the others.
    /// Walking a lookup's places took as long as converting the value found.
    private var singles: [Int]
    private static let absentMember = -1
    private static let walked = -2

    init(_ lookups: [[EntityImportMapping.KeyPath]]) {
        paths = lookups.flatMap { $0 }
        var starts = [0]
        for lookup in lookups { starts.append(starts[starts.count - 1] + lookup.count) }
        self.starts = starts
        places = Array(repeating: .absent, count: paths.count)
        singles = Array(repeating: Self.walked, count: lookups.count)
        resolve(for: .none)
    }

    /// What a lookup finds: the value, and the place of the key path it was found at
    /// (``keyPath(at:)`` names it, for errors only: naming it on every lookup retained
    /// and released its text, a tenth of a lookup).
    enum Found {
        case absent
        case found(JSONValue, place: Int)
    }

    /// The value of lookup `index` in `object`: that of its first key path present (`null`
    /// counts as present unless `nullAsAbsent`), as `JSONObject.value(at:nullAsAbsent:)`.
    mutating func member(_ index: Int, in object: some JSONMembers, nullAsAbsent: Bool) -> Found {
        if object.names !== names { resolve(for: object.names) }
        switch singles[index] {
        case Self.walked:
            break
        case Self.absentMember:
            return .absent
        case let position:
            let value = object.value(atMember: position)
            if nullAsAbsent, case .null = value { return .absent }
            return .found(value, place: starts[index])
        }
        for place in starts[index]..<starts[index + 1] {
            let value: JSONValue
            switch places[place] {
            case .member(let position): value = object.value(atMember: position)
            case .absent: continue
            case .nested:
                guard let found = object.value(atPath: paths[place]) else { continue }
                value = found
            }
            if nullAsAbsent, case .null = value { continue }
            return .found(value, place: place)
        }
        return .absent
    }

    /// The position of lookup `index`'s one member in `object`, when it is a lookup of one
    /// one-name key path that `object` has; nil otherwise.
    mutating func singleMember(_ index: Int, in object: some JSONMembers) -> Int? {
        if object.names !== names { resolve(for: object.names) }
        return singles[index] >= 0 ? singles[index] : nil
    }

    /// ``member(_:in:nullAsAbsent:)`` with the key path named.
    mutating func value(of index: Int, in object: some JSONMembers, nullAsAbsent: Bool) -> LookedUp {
        guard case .found(let value, let place) = member(index, in: object, nullAsAbsent: nullAsAbsent) else { return .absent }
        return .found(value, keyPath: keyPath(at: place))
    }

    /// The key path at `place` (from ``member(_:in:nullAsAbsent:)``), as written.
    func keyPath(at place: Int) -> String {
        paths[place].description
    }

    private mutating func resolve(for names: JSONMemberNames) {
        self.names = names
        for (place, path) in paths.enumerated() {
            places[place] = if path.components.count > 1 {
                .nested
            } else {
                names.position(of: path.components[0]).map(Place.member) ?? .absent
            }
        }
        for index in singles.indices {
            singles[index] = switch (starts[index + 1] - starts[index], places[starts[index]]) {
            case (1, .member(let position)): position
            case (1, .absent): Self.absentMember
            default: Self.walked
            }
        }
    }
}

/// A stable identifier of one object in one store: its entity and a number the store
/// never gives to another object. Sendable, so it is what crosses between contexts and
/// threads; `uriRepresentation` crosses between processes.
public struct ObjectID: Hashable, Sendable, CustomStringConvertible, Comparable {
    public let entityName: String
    /// Unique within the store (not only within the entity), never reused.
    public let number: Int64

    public init(entityName: String, number: Int64) {
        self.entityName = entityName
        self.number = number
    }

    /// `x-magicalrecord:///Person/p42`: what ``init(uriRepresentation:)`` reads back.
    public var uriRepresentation: String { "x-magicalrecord:///\(entityName)/p\(number)" }

    /// Reads a ``uriRepresentation``; nil when `string` is not one.
    public init?(uriRepresentation string: String) {
        let prefix = "x-magicalrecord:///"
        guard string.hasPrefix(prefix) else { return nil }
        let parts = string.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].first == "p",
              let number = Int64(parts[1].dropFirst()), number > 0 else { return nil }
        self.init(entityName: String(parts[0]), number: number)
    }

    public var description: String { uriRepresentation }

    public static func < (left: ObjectID, right: ObjectID) -> Bool { left.number < right.number }

    // Numbers are unique in the store, so they decide equality almost alone and are all a
    // hash needs: ids are hashed and compared in every change, lookup and relationship.
    public static func == (left: ObjectID, right: ObjectID) -> Bool {
        left.number == right.number && left.entityName == right.entityName
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(number)
    }

    /// What dictionaries and sets of ids hash with: the number, mixed by one
    /// multiplication and a shift, instead of SipHash over it (a twentieth of an upsert's
    /// reading thread went to hashing ids). Numbers are given out by the store, not
    /// chosen by input, so a keyed hash buys nothing against collisions here; the seed
    /// still varies the layout from table to table.
    public func _rawHashValue(seed: Int) -> Int {
        var mixed = (UInt64(bitPattern: number) ^ UInt64(bitPattern: Int64(seed))) &* 0x9E37_79B9_7F4A_7C15
        mixed ^= mixed >> 32
        return Int(truncatingIfNeeded: mixed)
    }
}

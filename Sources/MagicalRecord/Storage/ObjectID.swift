/// A stable identifier of one object in one store: its entity and a number the store
/// never gives to another object. Sendable, so it is what crosses between contexts and
/// threads; `uriRepresentation` crosses between processes.
public struct ObjectID: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The entity's name, interned: the table keeps every instance for good.
    let internedName: Unmanaged<InternedName>
    /// Unique within the store (not only within the entity), never reused.
    public let number: Int64

    /// The name of the object's entity.
    public var entityName: String { internedName._withUnsafeGuaranteedRef { $0.name } }

    public init(entityName: String, number: Int64) {
        self.init(entityName: InternedName.token(for: entityName), number: number)
    }

    /// An id whose entity name is interned already: no lock (see ``Entity/internedName``).
    init(entityName: Unmanaged<InternedName>, number: Int64) {
        internedName = entityName
        self.number = number
    }

    /// Whether the id is of the entity whose interned name is `name` (no string compared).
    func isOf(_ name: Unmanaged<InternedName>) -> Bool { internedName.toOpaque() == name.toOpaque() }

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
        left.number == right.number && left.internedName.toOpaque() == right.internedName.toOpaque()
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(number)
    }

    /// What dictionaries and sets of ids hash with: the number alone, mixed
    /// (``IntegerHash``), instead of SipHash over it.
    public func _rawHashValue(seed: Int) -> Int {
        IntegerHash.mixed(number, seed: seed)
    }
}

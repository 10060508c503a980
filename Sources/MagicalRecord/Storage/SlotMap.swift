/// Stable numbers for a store's entities and properties, assigned once and kept in the
/// store, so records name fields by number and stay readable when a model gains, loses
/// or renames properties (Spec/OBJECT-STORE.md, "Slots").
struct SlotMap: Sendable, Equatable {
    /// `Entity` → entity code; `Entity.property` → slot within that entity's records.
    private(set) var codes: [String: Int]
    /// Entity names by code, for reading references: derived from `codes` whenever they
    /// change, as every relationship read needs it.
    private(set) var entityNamesByCode: [Int: String]

    init(codes: [String: Int] = [:]) {
        self.codes = codes
        entityNamesByCode = Self.entityNames(in: codes)
    }

    func entityCode(_ entity: String) -> Int? { codes[entity] }

    func slot(_ entity: String, _ property: String) -> Int? { codes[entity + "." + property] }

    /// Gives every entity and property of `model` that has no number yet the next free one.
    /// Returns whether anything was added.
    @discardableResult
    mutating func assign(_ model: ObjectModel) -> Bool {
        let before = codes.count
        var nextEntity = (codes.filter { !$0.key.contains(".") }.values.max() ?? 0) + 1
        for entity in model.entities {
            if codes[entity.name] == nil {
                codes[entity.name] = nextEntity
                nextEntity += 1
            }
            let prefix = entity.name + "."
            var nextSlot = (codes.filter { $0.key.hasPrefix(prefix) }.values.max() ?? 0) + 1
            for name in entity.attributes.map(\.name) + entity.relationships.filter({ !$0.isToMany }).map(\.name)
            where codes[prefix + name] == nil {
                codes[prefix + name] = nextSlot
                nextSlot += 1
            }
        }
        entityNamesByCode = Self.entityNames(in: codes)
        return codes.count != before
    }

    /// Numbers a migration took out of use keep a key, so they are never handed out again:
    /// `#3` for entity code 3, `Person.#5` for slot 5 of Person (Spec/OBJECT-STORE.md, O7).
    static func retiredEntityKey(_ code: Int) -> String { "#\(code)" }
    static func retiredSlotKey(_ entity: String, _ slot: Int) -> String { "\(entity).#\(slot)" }
    static func isRetired(_ key: String) -> Bool { key.hasPrefix("#") || key.contains(".#") }

    private static func entityNames(in codes: [String: Int]) -> [Int: String] {
        Dictionary(uniqueKeysWithValues: codes.filter { !$0.key.contains(".") && !isRetired($0.key) }.map { ($0.value, $0.key) })
    }
}

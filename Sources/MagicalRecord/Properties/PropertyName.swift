import Synchronization

/// The model name of a typed property: the one given to the wrapper, or else the Swift
/// property's own name, read once from its storage key path (`\Person._firstName`).
@usableFromInline enum PropertyName {
    private static let derived = NameCache()
    private static let attributes = AttributeCache()

    @usableFromInline static func resolve(_ declared: String?, storage: AnyKeyPath) -> String {
        if let declared { return declared }
        return derived.name(for: storage)
    }

    /// The position in `entity` of the attribute a typed property reads, nil when the
    /// entity has none of its name. `declared` reads the wrapper's own name; it is called
    /// only the first time.
    @usableFromInline static func position(storage: AnyKeyPath, entity: Entity, declared: () -> String?) -> Int? {
        if case .cached(let position) = attributes.position(storage: storage, entity: entity) { return position }
        let position = entity.slot(ofAttribute: resolve(declared(), storage: storage))
        attributes.remember(storage: storage, entity: entity, position: position)
        return position
    }
}

/// Typed reads by property key path object: Swift makes one key path object per property
/// and passes it to every access, so its identity finds the attribute's position. A table
/// of identities with Fibonacci hashing, not a `Dictionary`: its SipHash of the identity
/// was half of finding the position, and a fifth of a typed read. Entries hold their key
/// path and entity, so neither identity can be reused by another while cached; a key path
/// made anew for each access (not seen in practice) fills the table to its limit and then
/// goes the long way.
private final class AttributeCache: Sendable {
    private static let limit = 4_096
    private let table = Mutex(IdentityTable())

    enum Lookup {
        /// The attribute's position, nil when the entity has none of the property's name.
        case cached(Int?)
        case unknown
    }

    func position(storage: AnyKeyPath, entity: Entity) -> Lookup {
        table.withLock { $0.position(keyPath: ObjectIdentifier(storage), entity: ObjectIdentifier(entity)) }
    }

    func remember(storage: AnyKeyPath, entity: Entity, position: Int?) {
        table.withLock { $0.insert(keyPath: storage, entity: entity, position: position, upTo: Self.limit) }
    }

    /// Open addressing on the key path's identity, with linear probing at most half full.
    /// The entity of an entry is the last one read through its property (a property of a
    /// class whose entity has subentities may be read in several): a read through another
    /// replaces it.
    /// Unchecked: key paths are immutable once made; the standard library just does not
    /// mark them.
    private struct IdentityTable: @unchecked Sendable {
        /// Key path identities; 0 is an empty slot.
        private var keys: [UInt] = Array(repeating: 0, count: 64)
        /// The owners' entities as identities: a look-up compares integers only, and
        /// retains nothing.
        private var entities: [ObjectIdentifier?] = Array(repeating: nil, count: 64)
        /// The position, or -1 for none.
        private var positions: [Int] = Array(repeating: -1, count: 64)
        /// What keeps each identity from being reused.
        private var owners: [(AnyKeyPath, Entity)?] = Array(repeating: nil, count: 64)
        private var count = 0

        func position(keyPath: ObjectIdentifier, entity: ObjectIdentifier) -> Lookup {
            let key = UInt(bitPattern: keyPath)
            var index = home(key)
            while keys[index] != 0 {
                if keys[index] == key {
                    guard entities[index] == entity else { return .unknown }
                    return .cached(positions[index] < 0 ? nil : positions[index])
                }
                index = (index + 1) & (keys.count - 1)
            }
            return .unknown
        }

        /// Adds or replaces the entry of `keyPath`; a new one only while fewer than `limit`.
        mutating func insert(keyPath: AnyKeyPath, entity: Entity, position: Int?, upTo limit: Int) {
            let key = UInt(bitPattern: ObjectIdentifier(keyPath))
            var index = home(key)
            while keys[index] != 0, keys[index] != key { index = (index + 1) & (keys.count - 1) }
            if keys[index] == 0 {
                guard count < limit else { return }
                count += 1
            }
            keys[index] = key
            entities[index] = ObjectIdentifier(entity)
            positions[index] = position ?? -1
            owners[index] = (keyPath, entity)
            if count * 2 > keys.count { grow() }
        }

        private mutating func grow() {
            let entries = keys.indices.compactMap { index in owners[index].map { (owner: $0, position: positions[index]) } }
            let capacity = keys.count * 2
            keys = Array(repeating: 0, count: capacity)
            entities = Array(repeating: nil, count: capacity)
            positions = Array(repeating: -1, count: capacity)
            owners = Array(repeating: nil, count: capacity)
            count = 0
            for entry in entries {
                insert(keyPath: entry.owner.0, entity: entry.owner.1, position: entry.position < 0 ? nil : entry.position, upTo: .max)
            }
        }

        private func home(_ key: UInt) -> Int {
            Int(truncatingIfNeeded: (UInt64(key) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(UInt64.bitWidth - keys.count.trailingZeroBitCount))
        }
    }
}

private final class NameCache: Sendable {
    /// Key paths are immutable once made; the standard library just does not mark them.
    private struct Key: Hashable, @unchecked Sendable {
        let keyPath: AnyKeyPath
    }

    private let names = Mutex<[Key: String]>([:])

    func name(for storage: AnyKeyPath) -> String {
        let key = Key(keyPath: storage)
        if let name = names.withLock({ $0[key] }) { return name }
        let name = Self.propertyName(String(describing: storage))
        names.withLock { $0[key] = name }
        return name
    }

    /// `\Person._firstName` → `firstName`.
    private static func propertyName(_ keyPathText: String) -> String {
        let last = keyPathText.split(separator: ".").last.map(String.init) ?? keyPathText
        return last.hasPrefix("_") ? String(last.dropFirst()) : last
    }
}

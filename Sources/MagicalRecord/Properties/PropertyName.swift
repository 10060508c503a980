import Synchronization

/// The model name of a typed property: the one given to the wrapper, or else the Swift
/// property's own name, read once from its storage key path (`\Person._firstName`).
@usableFromInline enum PropertyName {
    private static let derived = NameCache()
    private static let attributes = AttributeCache()

    static func resolve(_ declared: String?, storage: AnyKeyPath) -> String {
        if let declared { return declared }
        return derived.name(for: storage)
    }

    /// The attribute a typed property reads in `entity`: its name, and its position there
    /// (nil when the entity has none of that name). `declared` reads the wrapper's own name;
    /// it is called only the first time.
    @usableFromInline static func attribute(storage: AnyKeyPath, entity: Entity, declared: () -> String?) -> (name: String, position: Int?) {
        if let found = attributes.attribute(storage: storage, entity: entity) { return found }
        let name = resolve(declared(), storage: storage)
        let position = entity.slot(ofAttribute: name)
        attributes.remember(storage: storage, entity: entity, name: name, position: position)
        return (name, position)
    }
}

/// Typed reads by property key path object: Swift makes one key path object per property
/// and passes it to every access, so its identity finds the attribute with one hash of a
/// pointer (hashing a key path walks its components; then the name was hashed again to
/// find the position). Entries hold their key path and entity, so neither identity can be
/// reused by another while cached; a key path made anew for each access (not seen in
/// practice) fills the table to its limit and then goes the long way.
private final class AttributeCache: Sendable {
    private struct Entry: @unchecked Sendable {
        let keyPath: AnyKeyPath
        /// The entity the position is for: the last one read through this property (a
        /// property of a class whose entity has subentities may be read in several).
        let entity: Entity
        let name: String
        let position: Int?
    }

    private static let limit = 4_096
    private let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    func attribute(storage: AnyKeyPath, entity: Entity) -> (name: String, position: Int?)? {
        entries.withLock { entries in
            guard let entry = entries[ObjectIdentifier(storage)], entry.entity === entity else { return nil }
            return (entry.name, entry.position)
        }
    }

    func remember(storage: AnyKeyPath, entity: Entity, name: String, position: Int?) {
        entries.withLock { entries in
            let key = ObjectIdentifier(storage)
            guard entries[key] != nil || entries.count < Self.limit else { return }
            entries[key] = Entry(keyPath: storage, entity: entity, name: name, position: position)
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

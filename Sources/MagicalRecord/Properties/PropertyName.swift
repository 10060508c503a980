import Synchronization

/// The model name of a typed property: the one given to the wrapper, or else the Swift
/// property's own name, read once from its storage key path (`\Person._firstName`).
enum PropertyName {
    private static let derived = NameCache()

    static func resolve(_ declared: String?, storage: AnyKeyPath) -> String {
        if let declared { return declared }
        return derived.name(for: storage)
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

import Synchronization

/// How typed properties read and write: their accessors cannot throw, so a read that fails
/// is logged and a refused write is remembered on the object until the next save, which
/// then fails with ``ValidationFailure/Reason/refusedAssignment(property:reason:)``.
extension ManagedObject {
    /// Runs `write`; when it throws, the refusal is kept for the next save. A later write
    /// of the same property that succeeds clears it.
    func assign(_ property: String, _ write: () throws(MagicalRecordError) -> Void) {
        do {
            try write()
            clearRefusedAssignment(property)
        } catch {
            do {
                try changeState { $0.refusedAssignments[property] = error.description }
            } catch {
                // No context left to remember it in: the object can never be saved anyway.
                Log.log(.error, "\(objectID): setting \(property) failed: \(error)")
            }
        }
    }

    func clearRefusedAssignment(_ property: String) {
        guard withContextLock({ state.refusedAssignments[property] != nil }) else { return }
        try? changeState { $0.refusedAssignments[property] = nil }
    }

    /// Reports a typed property read that could not give its value.
    func readFailed(_ property: String, _ reason: String) {
        Log.log(.error, "\(objectID): reading \(property) failed: \(reason)")
    }
}

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

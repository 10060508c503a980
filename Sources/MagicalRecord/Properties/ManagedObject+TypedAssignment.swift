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
    @usableFromInline func readFailed(_ property: String, _ reason: String) {
        Log.log(.error, "\(objectID): reading \(property) failed: \(reason)")
    }
}

/// Saving with a block (MagicalRecord+Actions): the block changes objects in a new
/// private context, which is then saved through the default context to the store.
extension MagicalRecord {
    /// Runs `block` on a new private child of the default context, then saves to the
    /// store, and returns once that is done.
    public static func saveWithBlockAndWait(_ block: (ManagedObjectContext) throws -> Void) throws(MagicalRecordError) {
        let context = try ManagedObjectContext.context()
        try context.performAndWait { () throws(MagicalRecordError) in try saveWithBlockAndWait(in: context, block) }
    }

    /// ``saveWithBlockAndWait(_:)`` in the background; `completion` gets the outcome on
    /// ``completionQueue``.
    public static func saveWithBlock(
        _ block: @escaping @Sendable (ManagedObjectContext) throws -> Void,
        completion: (@Sendable (Result<Void, MagicalRecordError>) -> Void)? = nil
    ) {
        let context: ManagedObjectContext
        do {
            context = try ManagedObjectContext.context()
        } catch {
            Log.log(.error, "saveWithBlock: \(error)")
            ManagedObjectContext.complete(.failure(error), completion)
            return
        }
        context.perform {
            let result = Result { () throws(MagicalRecordError) in try saveWithBlockAndWait(in: context, block) }
            ManagedObjectContext.complete(result, completion)
        }
    }

    /// ``saveWithBlockAndWait(_:)`` without blocking a thread.
    public static func save(_ block: @escaping @Sendable (ManagedObjectContext) throws -> Void) async throws(MagicalRecordError) {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, MagicalRecordError>, Never>) in
            saveWithBlock(block) { continuation.resume(returning: $0) }
        }
        try result.get()
    }

    private static func saveWithBlockAndWait(
        in context: ManagedObjectContext, _ block: (ManagedObjectContext) throws -> Void
    ) throws(MagicalRecordError) {
        do {
            try block(context)
        } catch {
            let failure = error as? MagicalRecordError ?? .blockFailed("\(error)")
            Log.log(.error, "save block failed, nothing saved: \(failure)")
            throw failure
        }
        try context.saveToPersistentStore()
    }
}

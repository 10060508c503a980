extension ActiveRecord where Self: ManagedObject {
    /// This object as seen by `context` (MR_inContext:): the same object id, that
    /// context's instance, with that context's view of its values. Objects inserted and
    /// not yet saved exist only in their own context and its children, so they throw
    /// ``MagicalRecordError/objectNotFound(_:)`` elsewhere; save first.
    public func inContext(_ context: ManagedObjectContext) throws(MagicalRecordError) -> Self {
        if context === managedObjectContext { return self }
        return try Self.typed(try context.existingObject(with: objectID))
    }
}

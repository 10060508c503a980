/// The default stack's contexts (MagicalRecord's `MR_defaultContext`, `MR_context`...).
extension ManagedObjectContext {
    /// The main-queue context for the application's own work; a child of the root saving
    /// context. Fetches and finds without an explicit context use it.
    public static var `default`: ManagedObjectContext {
        get throws(MagicalRecordError) { try MagicalRecord.defaultContext }
    }

    /// The private-queue context that writes to the store.
    public static var rootSaving: ManagedObjectContext {
        get throws(MagicalRecordError) { try MagicalRecord.rootSavingContext }
    }

    /// A new private-queue child of the default context.
    public static func context() throws(MagicalRecordError) -> ManagedObjectContext {
        context(withParent: try MagicalRecord.defaultContext)
    }

    /// A new private-queue child of `parent`.
    public static func context(withParent parent: ManagedObjectContext) -> ManagedObjectContext {
        ManagedObjectContext(concurrencyType: .privateQueue, parent: parent, stack: parent.stack, name: nil)
    }

    /// A new main-queue child of the root saving context.
    public static func newMainQueueContext() throws(MagicalRecordError) -> ManagedObjectContext {
        let root = try MagicalRecord.rootSavingContext
        return ManagedObjectContext(concurrencyType: .mainQueue, parent: root, stack: root.stack, name: nil)
    }

    /// A new private-queue child of the root saving context.
    public static func newPrivateQueueContext() throws(MagicalRecordError) -> ManagedObjectContext {
        let root = try MagicalRecord.rootSavingContext
        return ManagedObjectContext(concurrencyType: .privateQueue, parent: root, stack: root.stack, name: nil)
    }

    /// Makes `context` the default for finds and fetches without an explicit context.
    public static func setDefaultContext(_ context: ManagedObjectContext) {
        MagicalRecord.setDefaultContext(context)
    }
}

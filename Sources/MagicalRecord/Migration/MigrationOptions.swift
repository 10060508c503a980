/// What a migration may do beyond what it infers.
public struct MigrationOptions: Sendable {
    /// Per target entity name: code that sets the migrated objects' attributes, for
    /// changes that cannot be inferred (String to Date, a new required attribute without a
    /// default, ...). An entity with a transform has all its records rewritten through it.
    public var transforms: [String: EntityTransform]

    public init(transforms: [String: EntityTransform] = [:]) {
        self.transforms = transforms
    }
}

/// Sets the attributes of one migrating object; throwing stops the migration, and nothing
/// of it is written.
public typealias EntityTransform = @Sendable (inout MigratingObject) throws -> Void

/// One object on its way to the new model, as an ``EntityTransform`` sees it.
public struct MigratingObject: Sendable {
    /// The entity in the target model.
    public let entityName: String
    /// Its attributes as stored, by their names in the store's model.
    public let sourceValues: [String: AttributeValue]
    /// The target model's attributes, by name: the inferred value where there is one, the
    /// attribute's default otherwise. What the transform leaves here is stored.
    public var values: [String: AttributeValue]
}

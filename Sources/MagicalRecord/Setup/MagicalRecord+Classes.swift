extension MagicalRecord {
    /// Makes contexts create objects of these classes for their entities
    /// (``ManagedObject/entityName``), so fetches, relationships and `existingObject(with:)`
    /// hand out `Person`s rather than plain ``ManagedObject``s. Call it once at startup,
    /// before objects are loaded: an object already loaded in a context keeps its class.
    /// Class-level calls on the default context (`Person.findAll()`) register their class,
    /// and typed relationships (`@ToOne var boss: Person?`) their target when read.
    public static func register(_ types: ManagedObject.Type...) {
        for type in types { ObjectClassRegistry.register(type) }
    }
}

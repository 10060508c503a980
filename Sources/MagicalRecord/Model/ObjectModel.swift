/// A model: the entities a store holds, checked and resolved once.
///
/// Build one in Swift, read one from Xcode's `.xcdatamodeld`/`.xcdatamodel` files, or from
/// the JSON model description. Immutable and `Sendable`: share it freely.
///
/// ```swift
/// let model = try ObjectModel(entities: [
///     EntityDescription("Department", relatedBy: "departmentID") {
///         AttributeDescription("departmentID", .integer32, optional: false)
///         AttributeDescription("name", .string)
///         RelationshipDescription("people", to: "Person", inverse: "department", toMany: true)
///     },
///     EntityDescription("Person", relatedBy: "personID") {
///         AttributeDescription("personID", .integer64, optional: false)
///         AttributeDescription("lastName", .string, indexed: true)
///         RelationshipDescription("department", to: "Department", inverse: "people")
///     },
/// ])
/// ```
public final class ObjectModel: Sendable {
    /// The entities as declared, in model order.
    public let declarations: [EntityDescription]
    /// The version's name (the `.xcdatamodel`'s name in a versioned model), if any.
    public let versionName: String?
    /// Resolved entities in model order.
    public let entities: [Entity]
    /// Warnings found while resolving (a `relatedByAttribute` naming no attribute, ...):
    /// the model is usable, and these say what will not work as its author may expect.
    public let warnings: [String]

    private let entitiesByName: [String: Entity]

    public init(entities declarations: [EntityDescription], versionName: String? = nil) throws(ModelError) {
        self.declarations = declarations
        self.versionName = versionName
        var resolver = ModelResolver(declarations)
        let resolved = try resolver.resolve()
        self.entities = resolved
        self.warnings = resolver.warnings
        entitiesByName = Dictionary(uniqueKeysWithValues: resolved.map { ($0.name, $0) })
    }

    public func entity(named name: String) -> Entity? {
        // A small model is searched: comparing a few short names costs less than hashing
        // one, and a finder or an import looks its entity up by name on every call.
        guard entities.count <= Self.searchedEntities else { return entitiesByName[name] }
        return entities.first { $0.name == name }
    }

    private static let searchedEntities = 8

    /// ``entity(named:)``, or ``ModelError/unknownEntity(_:)``.
    public func requireEntity(_ name: String) throws(ModelError) -> Entity {
        guard let entity = entity(named: name) else { throw .unknownEntity(name) }
        return entity
    }
}

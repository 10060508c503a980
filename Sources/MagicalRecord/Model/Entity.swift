import Synchronization

/// An entity as the rest of the library uses it: its declaration resolved against the
/// model, with inherited attributes and relationships, its subentities and its key.
public final class Entity: Sendable, CustomStringConvertible {
    public let name: String
    /// `name` as ids hold it, interned once here.
    let internedName: Unmanaged<InternedName>
    public let declaration: EntityDescription
    /// Parent entity first, this entity's own last.
    public let attributes: [AttributeDescription]
    public let relationships: [RelationshipDescription]
    /// The chain of ancestors, nearest first.
    public let ancestors: [String]
    /// Every non-abstract entity a fetch of this one returns: itself (when concrete) and
    /// its descendants, in model order.
    public let concreteEntities: [String]
    /// The attribute that identifies an object for import and relationships
    /// (`relatedByAttribute`, else `<entityName>ID` when it exists), nil when there is none.
    public let keyAttribute: String?
    /// Attributes kept in an index: those marked indexed, and the key.
    public let indexedAttributes: [String]
    /// Positions of `indexedAttributes`, in their order.
    private let indexedPositions: [Int]
    /// Place in its model's entities: a store finds what it keeps per entity (a record
    /// coder) by it, without hashing the name.
    let ordinal: Int

    /// A new object's values: each attribute's default, each relationship empty. Made once:
    /// an import makes thousands of objects, and reading every description for each one
    /// retained all of its fields.
    let defaultAttributes: [AttributeValue]
    let emptyRelationships: RelationshipStates

    private let attributeSlots: [String: Int]
    private let relationshipSlots: [String: Int]
    /// Problems of the ``ManagedObject`` subclasses checked against this entity, by class.
    let checkedClasses = Mutex<[ObjectIdentifier: [String]]>([:])
    /// The last class found without problems, as its `ObjectIdentifier`'s bits (0: none):
    /// every typed find checks its class, and the table's lock and hash were a twentieth
    /// of a point get.
    let lastSoundClass = Atomic<UInt>(0)

    init(
        declaration: EntityDescription,
        attributes: [AttributeDescription],
        relationships: [RelationshipDescription],
        ancestors: [String],
        concreteEntities: [String],
        keyAttribute: String?,
        ordinal: Int
    ) {
        self.name = declaration.name
        internedName = InternedName.token(for: declaration.name)
        self.ordinal = ordinal
        self.declaration = declaration
        self.attributes = attributes
        self.relationships = relationships
        self.ancestors = ancestors
        self.concreteEntities = concreteEntities
        self.keyAttribute = keyAttribute
        let indexed = attributes.indices.filter { attributes[$0].isIndexed || attributes[$0].name == keyAttribute }
        self.indexedAttributes = indexed.map { attributes[$0].name }
        indexedPositions = indexed
        defaultAttributes = attributes.map(\.defaultValue)
        emptyRelationships = RelationshipStates(relationships.map { $0.isToMany ? .toMany([]) : .toOne(nil) })
        attributeSlots = Dictionary(uniqueKeysWithValues: attributes.enumerated().map { ($1.name, $0) })
        relationshipSlots = Dictionary(uniqueKeysWithValues: relationships.enumerated().map { ($1.name, $0) })
    }

    public var isAbstract: Bool { declaration.isAbstract }
    /// Whether a fetch of this entity reads its own objects only: it is concrete and no
    /// descendant is.
    var fetchesOnlyItself: Bool { concreteEntities.count == 1 && concreteEntities[0] == name }
    public var parent: String? { declaration.parent }
    public var root: String { ancestors.last ?? name }
    public var userInfo: [String: String] { declaration.userInfo }

    public func attribute(named name: String) -> AttributeDescription? {
        attributeSlots[name].map { attributes[$0] }
    }

    public func relationship(named name: String) -> RelationshipDescription? {
        relationshipSlots[name].map { relationships[$0] }
    }

    /// The position of an attribute in ``attributes``: an object's value slot.
    public func slot(ofAttribute name: String) -> Int? { attributeSlots[name] }

    /// The position of `name` when it is an indexed attribute, found by comparing it with
    /// the few indexed names rather than hashing it (a point get asks on every call).
    func indexedSlot(ofAttribute name: String) -> Int? {
        guard let place = indexedAttributes.firstIndex(of: name) else { return nil }
        return indexedPositions[place]
    }

    public func slot(ofRelationship name: String) -> Int? { relationshipSlots[name] }

    /// Whether this entity is `other` or descends from it.
    public func isKind(of other: String) -> Bool { name == other || ancestors.contains(other) }

    public var description: String { "entity \(name)" }
}

/// What a new object of one entity starts from, as values an import batch holds itself:
/// read from the entity for every object made, the entity's fields cost a cache miss each
/// time (7% of the reading thread in `perf`: its release, or with it unretained, the next
/// read of its fields). With the batch's own copies the import ran 5% faster (five
/// alternating pairs of 1M-record runs).
struct NewObjectTemplate {
    let internedName: Unmanaged<InternedName>
    let defaultAttributes: [AttributeValue]
    let emptyRelationships: RelationshipStates

    init(_ entity: Entity) {
        internedName = entity.internedName
        // Copied element by element into storage of the batch's own (an array made from
        // the whole of another shares its storage).
        defaultAttributes = entity.defaultAttributes.map { $0 }
        emptyRelationships = RelationshipStates(entity.emptyRelationships.map { $0 })
    }

    /// A new object `id`: every attribute at its default, no relationships.
    func state(_ id: ObjectID) -> ObjectState {
        ObjectState(id: id, attributes: defaultAttributes, relationships: emptyRelationships)
    }
}

/// How one concrete entity of the target model gets its records and trees.
struct EntityMigration: Sendable {
    /// The attribute of the source entity a target attribute continues.
    struct AttributeSource: Sendable {
        /// Position in the source entity's attributes.
        let position: Int
        /// One per step of the version chain.
        let conversions: [AttributeConversion]
        /// What a stored null becomes: the new default of an attribute made required whose
        /// records may hold explicit nulls (O8); nil keeps nulls.
        var nullBecomes: AttributeValue? = nil
        var rewrites: Bool { nullBecomes != nil || conversions.contains { $0.rewritesRecords } }

        func apply(_ value: AttributeValue) -> AttributeValue {
            let converted = conversions.reduce(value) { $1.apply($0) }
            return converted.isNull ? nullBecomes ?? converted : converted
        }
    }

    /// Where the entries of a target to-many relationship tree come from.
    enum ToManySource: Sendable {
        /// No stored data: an empty tree.
        case empty
        /// The source tree as it is (renamed when its name changes).
        case carried(tree: String)
        /// The source tree's targets, keyed anew (ordered ↔ unordered).
        case reordered(tree: String)
        /// The source entity's to-one at this relationship position, which becomes this to-many.
        case toOne(position: Int)
        /// The existing inverse: for each concrete source entity, its to-one at a position,
        /// or its to-many tree.
        case inverse([InverseSource])
    }

    struct InverseSource: Sendable {
        let entity: String
        let toOnePosition: Int?
        let tree: String?
        /// Whether `tree` is an ordered to-many's.
        var isOrdered = false
    }

    let target: Entity
    /// The concrete source entity whose objects this one continues; nil for a new entity
    /// (or one that was abstract).
    let source: Entity?
    let objectCount: Int
    /// By target attribute position; nil for an attribute that starts at its default.
    let attributeSources: [AttributeSource?]
    /// Source relationship positions of to-ones that move into to-many trees, by the
    /// target relationship position they become.
    let movedToOnes: [Int: Int]
    /// Target to-one position → source to-one position (the slot is kept).
    let toOneSources: [Int: Int]
    /// By target relationship name, for each to-many.
    let toManySources: [String: ToManySource]
    /// Target indexed attribute → the source index tree carried as it is; the others are built.
    let carriedIndexes: [String: String]
    let transform: EntityTransform?

    /// Whether records are rewritten; otherwise the object tree is kept as it is.
    var rewritesRecords: Bool {
        guard source != nil, objectCount > 0 else { return false }
        return transform != nil || !movedToOnes.isEmpty || attributeSources.contains { $0?.rewrites ?? false }
    }
}

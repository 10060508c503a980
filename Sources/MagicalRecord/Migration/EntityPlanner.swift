/// Plans one concrete entity of the target model (Spec/MIGRATION.md, "Changes"): where
/// each attribute, relationship and index comes from, the steps that carry them over,
/// and what cannot be carried over without user code.
struct EntityPlanner {
    let mapping: ModelMapping
    let target: Entity
    let source: Entity?
    let objectCount: Int
    let transform: EntityTransform?
    var steps: [MigrationStep] = []
    var incompatibilities: [MigrationIncompatibility] = []

    init(mapping: ModelMapping, target: Entity, source: Entity?, objectCount: Int, transform: EntityTransform?) {
        self.mapping = mapping
        self.target = target
        self.source = source
        self.objectCount = source == nil ? 0 : objectCount
        self.transform = transform
    }

    private var hasObjects: Bool { objectCount > 0 }
    private var objects: String { "\(objectCount) object\(objectCount == 1 ? "" : "s")" }

    mutating func plan() -> EntityMigration {
        var attributeSources: [EntityMigration.AttributeSource?] = []
        for attribute in target.attributes { attributeSources.append(planAttribute(attribute)) }
        if let source {
            let continued = Set(mapping.attributes[target.name]?.values.map(\.name) ?? [])
            for attribute in source.attributes where !continued.contains(attribute.name) {
                step(attribute.name, "attribute removed (was \(attribute.type.rawValue))", "slot retired, nothing rewritten")
            }
        }
        let carriedIndexes = planIndexes(attributeSources)
        var movedToOnes: [Int: Int] = [:]
        var toOneSources: [Int: Int] = [:]
        var toManySources: [String: EntityMigration.ToManySource] = [:]
        for (position, relationship) in target.relationships.enumerated() {
            switch planRelationship(relationship) {
            case .toOne(let sourcePosition?): toOneSources[position] = sourcePosition
            case .toOne(nil): break
            case .toMany(let origin):
                toManySources[relationship.name] = origin
                if case .toOne(let sourcePosition) = origin { movedToOnes[sourcePosition] = position }
            }
        }
        if let source {
            let continued = Set(mapping.relationships[target.name]?.values.map { $0 } ?? [])
            for relationship in source.relationships where !continued.contains(relationship.name) {
                step(relationship.name, "relationship removed",
                     relationship.isToMany ? "relationship tree dropped" : "slot retired, nothing rewritten")
            }
        }
        let migration = EntityMigration(
            target: target, source: source, objectCount: objectCount, attributeSources: attributeSources,
            movedToOnes: movedToOnes, toOneSources: toOneSources, toManySources: toManySources,
            carriedIndexes: carriedIndexes, transform: transform
        )
        if transform != nil && hasObjects {
            steps.append(.init(subject: target.name, change: "transform supplied", method: "records rewritten through it (\(objects))", rewritesData: true))
        }
        return migration
    }

    // MARK: Attributes

    private mutating func planAttribute(_ attribute: AttributeDescription) -> EntityMigration.AttributeSource? {
        guard let source, let origin = mapping.attributes[target.name]?[attribute.name],
              let position = source.attributes.firstIndex(where: { $0.name == origin.name }) else {
            step(attribute.name, "attribute added (\(attribute.type.rawValue))", "nothing rewritten: stored objects read its default")
            if !attribute.isOptional, attribute.defaultValue.isNull { requireDefault(attribute, "added as required with no default value") }
            return nil
        }
        let sourceAttribute = source.attributes[position]
        if origin.name != attribute.name {
            step(attribute.name, "renamed from \(origin.name)", "slot kept, nothing rewritten")
        }
        var conversions: [AttributeConversion] = []
        var convertible = true
        for (from, to) in zip(origin.types, origin.types.dropFirst()) {
            guard let conversion = AttributeConversion(from: from, to: to) else {
                convertible = false
                break
            }
            conversions.append(conversion)
        }
        let (from, to) = (sourceAttribute.type, attribute.type)
        if !convertible {
            let change = "type changed from \(from.rawValue) to \(to.rawValue)"
            if transform != nil {
                step(attribute.name, change, "set by the transform")
            } else if hasObjects {
                incompatible(attribute.name, "\(change): not inferred (integers widen, integers and Float become Double, anything becomes String); supply a transform")
            } else {
                step(attribute.name, change, "no stored objects to convert")
            }
            return nil
        }
        if from != to {
            let rewrites = conversions.contains { $0.rewritesRecords }
            step(attribute.name, "type changed from \(from.rawValue) to \(to.rawValue)",
                 rewrites ? (hasObjects ? "records rewritten (\(objects))" : "no stored objects to convert") : "nothing rewritten: stored integers read as the wider type",
                 rewrites: rewrites && hasObjects)
        }
        var carried = EntityMigration.AttributeSource(position: position, conversions: conversions)
        if sourceAttribute.isOptional && !attribute.isOptional {
            if attribute.defaultValue.isNull {
                requireDefault(attribute, "now required with no default value")
            } else if RecordCoder.writesNull(sourceAttribute) && hasObjects {
                // Records may hold nulls set explicitly over the old default.
                carried.nullBecomes = attribute.defaultValue
                step(attribute.name, "now required", "records rewritten, a null taking the default (\(objects))", rewrites: true)
            } else {
                step(attribute.name, "now required", "nothing rewritten: objects without a value read the default")
            }
        } else if !sourceAttribute.isOptional && attribute.isOptional {
            step(attribute.name, "now optional", "nothing rewritten")
        }
        return carried
    }

    private mutating func requireDefault(_ attribute: AttributeDescription, _ change: String) {
        if transform != nil {
            step(attribute.name, change, "set by the transform")
        } else if hasObjects {
            incompatible(attribute.name, "\(change): the store's \(objects) would have none; give it a default or supply a transform")
        }
    }

    /// Which target indexes keep their source tree; steps for those built or dropped.
    private mutating func planIndexes(_ sources: [EntityMigration.AttributeSource?]) -> [String: String] {
        var carried: [String: String] = [:]
        let sourceIndexes = Set(source?.indexedAttributes ?? [])
        for name in target.indexedAttributes {
            guard let position = target.attributes.firstIndex(where: { $0.name == name }) else { continue }
            if let source, let origin = sources[position], transform == nil, !origin.rewrites,
               case let sourceName = source.attributes[origin.position].name, sourceIndexes.contains(sourceName) {
                carried[name] = StoreLayout.indexTree(source.name, sourceName)
                continue
            }
            guard let source else { continue }
            let wasIndexed = sources[position].map { sourceIndexes.contains(source.attributes[$0.position].name) } ?? false
            step(name, wasIndexed ? "stored values converted" : "now indexed",
                 hasObjects ? "index built from \(objects)" : "empty index created", rewrites: hasObjects)
        }
        if let source {
            let kept = Set(target.indexedAttributes.compactMap { name in
                target.attributes.firstIndex { $0.name == name }.flatMap { sources[$0] }.map { source.attributes[$0.position].name }
            })
            let continued = Set(mapping.attributes[target.name]?.values.map(\.name) ?? [])
            for name in source.indexedAttributes where !kept.contains(name) && continued.contains(name) {
                step(name, "no longer indexed", "index dropped")
            }
        }
        return carried
    }

    // MARK: Relationships

    private enum RelationshipOrigin {
        /// The source to-one position whose slot the target to-one keeps.
        case toOne(Int?)
        case toMany(EntityMigration.ToManySource)
    }

    private mutating func planRelationship(_ relationship: RelationshipDescription) -> RelationshipOrigin {
        let name = relationship.name
        guard let source, let originName = mapping.relationships[target.name]?[name],
              let position = source.relationships.firstIndex(where: { $0.name == originName }) else {
            return planNewRelationship(relationship)
        }
        let old = source.relationships[position]
        if originName != name {
            let method = switch (old.isToMany, relationship.isToMany) {
            case (true, _): "relationship tree renamed"
            case (false, false): "slot kept, nothing rewritten"
            case (false, true): "its targets move into the new relationship tree"
            }
            step(name, "renamed from \(originName)", method)
        }
        let destination = mapping.sourceEntity(of: relationship.destination)
        if destination != old.destination {
            let change = "destination changed from \(old.destination) to \(relationship.destination)"
            guard hasObjects else {
                step(name, change, "no stored objects")
                return relationship.isToMany ? .toMany(.empty) : .toOne(nil)
            }
            incompatible(name, "\(change): stored targets are \(old.destination) objects")
            return relationship.isToMany ? .toMany(.empty) : .toOne(nil)
        }
        let expectedInverse = relationship.inverse.flatMap { mapping.relationships[relationship.destination]?[$0] }
        if let oldInverse = old.inverse, let expectedInverse, oldInverse != expectedInverse, hasObjects {
            incompatible(name, "inverse changed from \(oldInverse) to \(relationship.inverse ?? "none"): both hold data of their own")
        } else if old.inverse == nil, expectedInverse != nil, hasObjects {
            incompatible(name, "inverse changed from none to \(relationship.inverse ?? "none"): both hold data of their own")
        }
        if old.isOptional && !relationship.isOptional && !relationship.isToMany {
            if hasObjects {
                incompatible(name, "now required: the store's \(objects) may have no target")
            } else {
                step(name, "now required", "no stored objects")
            }
        }
        switch (old.isToMany, relationship.isToMany) {
        case (false, false):
            return .toOne(position)
        case (false, true):
            step(name, "changed from to-one to \(cardinality(relationship))",
                 hasObjects ? "records rewritten and relationship tree built (\(objects))" : "empty relationship tree created", rewrites: hasObjects)
            return .toMany(.toOne(position: position))
        case (true, false):
            if hasObjects {
                incompatible(name, "changed from \(cardinality(old)) to to-one: an object may have several targets")
            } else {
                step(name, "changed from \(cardinality(old)) to to-one", "no stored objects")
            }
            return .toOne(nil)
        case (true, true):
            let tree = StoreLayout.relationshipTree(source.name, originName)
            guard old.isOrdered != relationship.isOrdered else { return .toMany(.carried(tree: tree)) }
            step(name, "changed from \(cardinality(old)) to \(cardinality(relationship))",
                 hasObjects ? "relationship tree rebuilt" : "nothing stored", rewrites: hasObjects)
            return .toMany(.reordered(tree: tree))
        }
    }

    private mutating func planNewRelationship(_ relationship: RelationshipDescription) -> RelationshipOrigin {
        let name = relationship.name
        let added = "relationship added (\(cardinality(relationship)) to \(relationship.destination))"
        let inverse = existingInverse(of: relationship)
        guard hasObjects else {
            step(name, added, relationship.isToMany ? "empty relationship tree created" : "nothing rewritten")
            return relationship.isToMany ? .toMany(.empty) : .toOne(nil)
        }
        if relationship.isToMany {
            guard let inverse else {
                step(name, added, "empty relationship tree created")
                return .toMany(.empty)
            }
            step(name, added, "relationship tree filled from its inverse \(inverse.description)", rewrites: true)
            return .toMany(.inverse(inverse.sources))
        }
        if let inverse {
            incompatible(name, "\(added) as the inverse of \(inverse.description), whose stored targets a to-one cannot be filled from")
        } else if !relationship.isOptional {
            incompatible(name, "\(added) as required: the store's \(objects) would have no target")
        } else {
            step(name, added, "nothing rewritten")
        }
        return .toOne(nil)
    }

    /// The stored relationship a new relationship is the inverse of, if any.
    private func existingInverse(of relationship: RelationshipDescription) -> (description: String, sources: [EntityMigration.InverseSource])? {
        guard let inverseName = relationship.inverse,
              let sourceDestination = mapping.sourceEntity(of: relationship.destination),
              let sourceInverseName = mapping.relationships[relationship.destination]?[inverseName],
              let sourceEntity = mapping.source.entity(named: sourceDestination) else { return nil }
        var sources: [EntityMigration.InverseSource] = []
        for concrete in sourceEntity.concreteEntities {
            guard let entity = mapping.source.entity(named: concrete),
                  let position = entity.relationships.firstIndex(where: { $0.name == sourceInverseName }) else { continue }
            let stored = entity.relationships[position]
            sources.append(.init(
                entity: concrete,
                toOnePosition: stored.isToMany ? nil : position,
                tree: stored.isToMany ? StoreLayout.relationshipTree(concrete, sourceInverseName) : nil,
                isOrdered: stored.isOrdered
            ))
        }
        return ("\(sourceDestination).\(sourceInverseName)", sources)
    }

    private func cardinality(_ relationship: RelationshipDescription) -> String {
        relationship.isToMany ? (relationship.isOrdered ? "ordered to-many" : "to-many") : "to-one"
    }

    // MARK: Notes

    private mutating func step(_ property: String, _ change: String, _ method: String, rewrites: Bool = false) {
        steps.append(.init(subject: "\(target.name).\(property)", change: change, method: method, rewritesData: rewrites))
    }

    private mutating func incompatible(_ property: String, _ reason: String) {
        incompatibilities.append(.init(subject: "\(target.name).\(property)", reason: reason))
    }
}

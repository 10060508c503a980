/// Works out a ``MigrationPlan``: matches the target model to the store's model, decides
/// for each concrete entity how its records and trees carry over, and lists every change
/// that needs user code. Reads nothing but the object counts it is given.
struct MigrationPlanner {
    let mapping: ModelMapping
    let sourceSlots: SlotMap
    /// Objects per concrete source entity.
    let objectCounts: [String: Int]
    let options: MigrationOptions

    private var source: ObjectModel { mapping.source }
    private var target: ObjectModel { mapping.target }

    func plan() -> MigrationPlan {
        var steps: [MigrationStep] = []
        var incompatibilities: [MigrationIncompatibility] = []
        var entities: [EntityMigration] = []
        var continued: Set<String> = []

        for entity in target.entities {
            let sourceName = mapping.sourceEntity(of: entity.name)
            let sourceEntity = sourceName.flatMap { source.entity(named: $0) }
            if let sourceName { continued.insert(sourceName) }
            guard !entity.isAbstract else {
                if let sourceEntity, !sourceEntity.isAbstract {
                    let count = objectCounts[sourceEntity.name] ?? 0
                    if count > 0 {
                        incompatibilities.append(.init(subject: entity.name, reason: "now abstract, but the store holds \(count) of its objects"))
                    } else {
                        steps.append(.init(subject: entity.name, change: "now abstract", method: "its empty trees dropped", rewritesData: false))
                    }
                }
                continue
            }
            var planner = EntityPlanner(
                mapping: mapping, target: entity,
                source: sourceEntity.flatMap { $0.isAbstract ? nil : $0 },
                objectCount: sourceEntity.map { objectCounts[$0.name] ?? 0 } ?? 0,
                transform: options.transforms[entity.name]
            )
            if sourceEntity == nil {
                planner.steps.append(.init(subject: entity.name, change: "entity added", method: "its trees created", rewritesData: false))
            } else if let sourceEntity, sourceEntity.name != entity.name {
                planner.steps.append(.init(subject: entity.name, change: "renamed from \(sourceEntity.name)", method: "trees renamed, entity code kept", rewritesData: false))
            }
            if let sourceEntity, sourceEntity.isAbstract {
                planner.steps.append(.init(subject: entity.name, change: "no longer abstract", method: "its trees created", rewritesData: false))
            }
            let migration = planner.plan()
            steps += planner.steps
            incompatibilities += planner.incompatibilities
            entities.append(migration)
        }
        for entity in source.entities where !continued.contains(entity.name) {
            let count = entity.isAbstract ? 0 : objectCounts[entity.name] ?? 0
            steps.append(.init(subject: entity.name, change: "entity removed", method: count > 0 ? "its \(count) objects and trees dropped" : "its trees dropped", rewritesData: false))
        }
        // Entities in name order; within one, the steps in the order they were found.
        let rank = Dictionary(uniqueKeysWithValues: ModelFingerprint.sortedByName(
            Array(Set(steps.map { entityName($0.subject) })), { $0 }
        ).enumerated().map { ($1, $0) })
        steps = steps.enumerated().sorted { left, right in
            let (l, r) = (rank[entityName(left.element.subject)] ?? 0, rank[entityName(right.element.subject)] ?? 0)
            return l != r ? l < r : left.offset < right.offset
        }.map(\.element)
        return MigrationPlan(
            source: source, target: target, steps: steps, incompatibilities: incompatibilities,
            entities: entities, slots: targetSlots()
        )
    }

    private func entityName(_ subject: String) -> String {
        String(subject.prefix { $0 != "." })
    }

    /// The target's slot map: continued entities and properties keep their numbers, the
    /// numbers of removed ones are retired, new ones get fresh numbers (O7).
    func targetSlots() -> SlotMap {
        var codes: [String: Int] = [:]
        var carriedEntities: Set<String> = []
        for (key, value) in sourceSlots.codes where key.hasPrefix("#") { codes[key] = value }
        for entity in target.entities {
            guard let sourceName = mapping.sourceEntity(of: entity.name), let code = sourceSlots.entityCode(sourceName) else { continue }
            carriedEntities.insert(sourceName)
            codes[entity.name] = code
            // Source property name → target property name, for what keeps a slot.
            var kept: [String: String] = [:]
            for attribute in entity.attributes {
                if let origin = mapping.attributes[entity.name]?[attribute.name] { kept[origin.name] = attribute.name }
            }
            for relationship in entity.relationships where !relationship.isToMany {
                if let origin = mapping.relationships[entity.name]?[relationship.name],
                   source.entity(named: sourceName)?.relationship(named: origin)?.isToMany == false {
                    kept[origin] = relationship.name
                }
            }
            let prefix = sourceName + "."
            for (key, slot) in sourceSlots.codes where key.hasPrefix(prefix) {
                let property = String(key.dropFirst(prefix.count))
                if let name = kept[property] {
                    codes[entity.name + "." + name] = slot
                } else {
                    codes[SlotMap.retiredSlotKey(entity.name, slot)] = slot
                }
            }
        }
        for (key, code) in sourceSlots.codes where !key.contains(".") && !SlotMap.isRetired(key) && !carriedEntities.contains(key) {
            codes[SlotMap.retiredEntityKey(code)] = code
        }
        var slots = SlotMap(codes: codes)
        slots.assign(target)
        return slots
    }
}

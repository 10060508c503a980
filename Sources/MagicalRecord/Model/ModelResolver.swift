/// Checks a model's declarations and resolves inheritance, inverses and keys.
struct ModelResolver {
    private let declarations: [EntityDescription]
    private var byName: [String: EntityDescription] = [:]
    private(set) var warnings: [String] = []

    init(_ declarations: [EntityDescription]) {
        self.declarations = declarations
    }

    mutating func resolve() throws(ModelError) -> [Entity] {
        for declaration in declarations {
            guard byName[declaration.name] == nil else { throw .duplicateEntity(declaration.name) }
            guard Self.isValidName(declaration.name) else { throw .invalidName(entity: declaration.name, name: declaration.name) }
            byName[declaration.name] = declaration
        }
        var ancestorsByName: [String: [String]] = [:]
        for declaration in declarations {
            ancestorsByName[declaration.name] = try ancestors(of: declaration)
        }
        var entities: [Entity] = []
        for declaration in declarations {
            let ancestors = ancestorsByName[declaration.name]!
            let chain = ancestors.reversed().map { byName[$0]! } + [declaration]
            let attributes = chain.flatMap(\.attributes)
            let relationships = chain.flatMap(\.relationships)
            try checkProperties(declaration.name, attributes, relationships)
            let concrete = declarations
                .filter { !$0.isAbstract && ($0.name == declaration.name || ancestorsByName[$0.name]!.contains(declaration.name)) }
                .map(\.name)
            entities.append(Entity(
                declaration: declaration,
                attributes: attributes,
                relationships: relationships,
                ancestors: ancestors,
                concreteEntities: concrete,
                keyAttribute: keyAttribute(of: declaration, chain: chain, attributes: attributes),
                ordinal: entities.count
            ))
        }
        return entities
    }

    private func ancestors(of declaration: EntityDescription) throws(ModelError) -> [String] {
        var result: [String] = []
        var current = declaration
        while let parent = current.parent {
            guard let next = byName[parent] else { throw .unknownParent(entity: current.name, parent: parent) }
            guard next.name != declaration.name, !result.contains(parent) else { throw .inheritanceCycle(entity: declaration.name) }
            result.append(parent)
            current = next
        }
        return result
    }

    private func checkProperties(
        _ entity: String, _ attributes: [AttributeDescription], _ relationships: [RelationshipDescription]
    ) throws(ModelError) {
        var names: Set<String> = []
        for name in attributes.map(\.name) + relationships.map(\.name) {
            guard Self.isValidName(name) else { throw .invalidName(entity: entity, name: name) }
            guard names.insert(name).inserted else { throw .duplicateProperty(entity: entity, property: name) }
        }
        for attribute in attributes where !attribute.type.accepts(attribute.defaultValue) {
            throw .defaultValueMismatch(entity: entity, attribute: attribute.name, type: attribute.type)
        }
        for relationship in relationships {
            guard let destination = byName[relationship.destination] else {
                throw .unknownDestination(entity: entity, relationship: relationship.name, destination: relationship.destination)
            }
            guard let inverseName = relationship.inverse else { continue }
            guard let inverse = allRelationships(of: destination).first(where: { $0.name == inverseName }) else {
                throw .unknownInverse(entity: entity, relationship: relationship.name, inverse: inverseName)
            }
            // The inverse points back at this entity or one of its ancestors, and names this
            // relationship as its own inverse when it names one.
            let pointsBack = inverse.destination == entity || (try? ancestors(of: byName[entity]!))?.contains(inverse.destination) == true
            guard pointsBack, inverse.inverse == nil || inverse.inverse == relationship.name else {
                throw .inverseMismatch(entity: entity, relationship: relationship.name, inverse: inverseName)
            }
        }
    }

    private func allRelationships(of declaration: EntityDescription) -> [RelationshipDescription] {
        var result = declaration.relationships
        var current = declaration
        while let parent = current.parent.flatMap({ byName[$0] }) {
            result += parent.relationships
            current = parent
        }
        return result
    }

    /// MagicalRecord's rule: the entity's `relatedByAttribute` (its own, else the nearest
    /// ancestor's), else `<entityName with a lower-case first letter>ID` when that attribute
    /// exists.
    private mutating func keyAttribute(
        of declaration: EntityDescription, chain: [EntityDescription], attributes: [AttributeDescription]
    ) -> String? {
        if let named = chain.reversed().lazy.compactMap({ $0.userInfo[UserInfoKey.relatedByAttribute] }).first {
            if attributes.contains(where: { $0.name == named }) { return named }
            warnings.append("entity \(declaration.name): relatedByAttribute names \"\(named)\", which is not one of its attributes; its objects have no key, so imports always insert them")
            return nil
        }
        let conventional = declaration.name.prefix(1).lowercased() + declaration.name.dropFirst() + "ID"
        return attributes.contains(where: { $0.name == conventional }) ? conventional : nil
    }

    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) }
    }
}

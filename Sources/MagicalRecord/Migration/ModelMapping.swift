/// Which entity and property of a store's model each entity and property of a newer model
/// continues (Spec/MIGRATION.md, "Matching"), through a chain of versions when there are
/// intermediate ones: v1 → v2 → v3 matches each step with its own renaming identifiers.
///
/// A property that disappears in some version of the chain and reappears later is a new
/// property: its old values are not carried over.
struct ModelMapping {
    /// The attribute a target attribute continues, with its type in every version of the chain.
    struct AttributeOrigin: Equatable {
        let name: String
        /// Source type first, target type last.
        let types: [AttributeType]
    }

    let source: ObjectModel
    let target: ObjectModel
    /// Target entity name → source entity name.
    private(set) var entities: [String: String] = [:]
    /// Target entity → target attribute → where it comes from in the source entity.
    private(set) var attributes: [String: [String: AttributeOrigin]] = [:]
    /// Target entity → target relationship → source relationship name.
    private(set) var relationships: [String: [String: String]] = [:]

    /// `chain` is the versions from `source` to `target`, both included; a chain of two
    /// matches the pair directly.
    init(chain: [ObjectModel]) {
        precondition(chain.count >= 2, "a mapping needs a source and a target")
        source = chain[0]
        target = chain[chain.count - 1]
        // Start with the identity on the source, then step forward one version at a time.
        for entity in source.entities {
            entities[entity.name] = entity.name
            attributes[entity.name] = Dictionary(uniqueKeysWithValues: entity.attributes.map {
                ($0.name, AttributeOrigin(name: $0.name, types: [$0.type]))
            })
            relationships[entity.name] = Dictionary(uniqueKeysWithValues: entity.relationships.map { ($0.name, $0.name) })
        }
        for (old, new) in zip(chain, chain.dropFirst()) { step(from: old, to: new) }
    }

    /// The source entity `target` continues, nil for a new one.
    func sourceEntity(of target: String) -> String? { entities[target] }

    private mutating func step(from old: ObjectModel, to new: ObjectModel) {
        let entityMatches = Self.match(
            old: old.declarations.map { ($0.name, $0.renamingIdentifier) },
            new: new.declarations.map { ($0.name, $0.renamingIdentifier) }
        )
        var nextEntities: [String: String] = [:]
        var nextAttributes: [String: [String: AttributeOrigin]] = [:]
        var nextRelationships: [String: [String: String]] = [:]
        for newEntity in new.entities {
            guard let oldName = entityMatches[newEntity.name], let oldEntity = old.entity(named: oldName),
                  let sourceName = entities[oldName] else { continue }
            nextEntities[newEntity.name] = sourceName
            let attributeMatches = Self.match(
                old: oldEntity.attributes.map { ($0.name, $0.renamingIdentifier) },
                new: newEntity.attributes.map { ($0.name, $0.renamingIdentifier) }
            )
            var carried: [String: AttributeOrigin] = [:]
            for attribute in newEntity.attributes {
                guard let oldAttribute = attributeMatches[attribute.name],
                      let origin = attributes[oldName]?[oldAttribute] else { continue }
                carried[attribute.name] = AttributeOrigin(name: origin.name, types: origin.types + [attribute.type])
            }
            nextAttributes[newEntity.name] = carried
            let relationshipMatches = Self.match(
                old: oldEntity.relationships.map { ($0.name, $0.renamingIdentifier) },
                new: newEntity.relationships.map { ($0.name, $0.renamingIdentifier) }
            )
            nextRelationships[newEntity.name] = relationshipMatches.compactMapValues { relationships[oldName]?[$0] }
        }
        entities = nextEntities
        attributes = nextAttributes
        relationships = nextRelationships
    }

    /// New name → old name. A renaming identifier names the old item, or is the renaming
    /// identifier the old item also carries (so one identifier can follow a property
    /// through several renames); the remaining items match by name. Each old item is
    /// matched once.
    static func match(old: [(name: String, renamingIdentifier: String?)], new: [(name: String, renamingIdentifier: String?)]) -> [String: String] {
        var matches: [String: String] = [:]
        var claimed: Set<String> = []
        for item in new {
            guard let identifier = item.renamingIdentifier else { continue }
            let candidate = old.first { $0.renamingIdentifier == identifier && !claimed.contains($0.name) }
                ?? old.first { $0.name == identifier && !claimed.contains($0.name) }
            if let candidate {
                matches[item.name] = candidate.name
                claimed.insert(candidate.name)
            }
        }
        for item in new where matches[item.name] == nil {
            if old.contains(where: { $0.name == item.name }), !claimed.contains(item.name) {
                matches[item.name] = item.name
                claimed.insert(item.name)
            }
        }
        return matches
    }
}

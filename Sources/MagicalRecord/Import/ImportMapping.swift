import Synchronization

/// Where an entity's attributes and relationships come from in a JSON record, read once
/// from the model's user info (seed 000's import chapter; Spec/IMPORT.md):
/// `mappedKeyName` (a key or a key path such as `location.latitude`) and its alternates
/// `mappedKeyName.1` ... `.9`, `relatedByAttribute`, `relationshipImportPolicy`,
/// `useDefaultValueWhenNotPresent`.
struct EntityImportMapping: Sendable {
    /// Classes, not structs: the importer reads them for every record of a batch, and a
    /// reference is one retain where a copy of the description would be dozens.
    final class AttributeMapping: Sendable {
        let position: Int
        let attribute: AttributeDescription
        /// Key paths tried in order while the earlier ones are absent.
        let keyPaths: [KeyPath]
        let useDefaultWhenAbsent: Bool
        /// Made once: it holds the compiled date format or the value transformer.
        let conversion: ImportConversion

        init(position: Int, attribute: AttributeDescription, keyPaths: [KeyPath], useDefaultWhenAbsent: Bool, conversion: ImportConversion) {
            self.position = position
            self.attribute = attribute
            self.keyPaths = keyPaths
            self.useDefaultWhenAbsent = useDefaultWhenAbsent
            self.conversion = conversion
        }
    }

    final class RelationshipMapping: Sendable {
        let position: Int
        let relationship: RelationshipDescription
        let keyPaths: [KeyPath]
        /// The attribute of the destination that finds targets: the relationship's own
        /// `relatedByAttribute`, else the destination's key; nil when there is none.
        let targetKey: AttributeDescription?
        let policy: ImportOptions.RelationshipPolicy

        init(position: Int, relationship: RelationshipDescription, keyPaths: [KeyPath], targetKey: AttributeDescription?, policy: ImportOptions.RelationshipPolicy) {
            self.position = position
            self.relationship = relationship
            self.keyPaths = keyPaths
            self.targetKey = targetKey
            self.policy = policy
        }
    }

    /// A dotted JSON key path, split once.
    struct KeyPath: Sendable, CustomStringConvertible {
        let components: [String]
        /// As written: what an error names, kept so a lookup does not join the components.
        let description: String
        init(_ dotted: String) {
            components = dotted.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            description = dotted
        }
    }

    let entity: Entity
    let attributes: [AttributeMapping]
    let relationships: [RelationshipMapping]
    /// The entity's key, with where it is read from.
    let key: AttributeMapping?

    init(entity: Entity, model: ObjectModel) {
        self.entity = entity
        let attributes = entity.attributes.enumerated().map { position, attribute in
            AttributeMapping(
                position: position, attribute: attribute, keyPaths: Self.keyPaths(attribute.name, attribute.userInfo),
                useDefaultWhenAbsent: Self.isYes(attribute.userInfo[UserInfoKey.useDefaultValueWhenNotPresent]),
                conversion: ImportConversion(attribute)
            )
        }
        self.attributes = attributes
        relationships = entity.relationships.enumerated().map { position, relationship in
            let destination = model.entity(named: relationship.destination)
            // MagicalRecord's rule for relationships: their own relatedByAttribute, else the
            // destination's key, else the destination's `<name>ID` attribute, which finds
            // targets even where a broken relatedByAttribute left the entity keyless.
            let keyName = relationship.userInfo[UserInfoKey.relatedByAttribute] ?? destination?.keyAttribute
                ?? destination.map { $0.name.prefix(1).lowercased() + $0.name.dropFirst() + "ID" }
            let policy = relationship.userInfo[UserInfoKey.relationshipImportPolicy].flatMap {
                ImportOptions.RelationshipPolicy(rawValue: $0.lowercased())
            } ?? .add
            return RelationshipMapping(
                position: position, relationship: relationship, keyPaths: Self.keyPaths(relationship.name, relationship.userInfo),
                targetKey: keyName.flatMap { destination?.attribute(named: $0) }, policy: policy
            )
        }
        key = entity.keyAttribute.flatMap { name in attributes.first { $0.attribute.name == name } }
    }

    /// `mappedKeyName` (else the property's own name), then `mappedKeyName.1` ... `.9`.
    private static func keyPaths(_ name: String, _ userInfo: [String: String]) -> [KeyPath] {
        var paths = [KeyPath(userInfo[UserInfoKey.mappedKeyName] ?? name)]
        for alternate in 1...9 {
            if let path = userInfo[UserInfoKey.mappedKeyName + ".\(alternate)"] { paths.append(KeyPath(path)) }
        }
        return paths
    }

    private static func isYes(_ text: String?) -> Bool {
        guard let text = text?.lowercased() else { return false }
        return ["yes", "true", "1"].contains(text)
    }
}

/// What a key path found in a record.
enum LookedUp {
    case absent
    case found(JSONValue, keyPath: String)
}

extension JSONObject {
    /// The value at the first of `paths` present (`null` counts as present unless
    /// `nullAsAbsent`).
    func value(at paths: [EntityImportMapping.KeyPath], nullAsAbsent: Bool) -> LookedUp {
        for path in paths {
            guard let value = value(atPath: path) else { continue }
            if nullAsAbsent, value == .null { continue }
            return .found(value, keyPath: path.description)
        }
        return .absent
    }
}

/// Mappings per entity of one model, made on first use.
final class ImportMappings: Sendable {
    let model: ObjectModel
    private let cache = Mutex<[String: EntityImportMapping]>([:])

    init(model: ObjectModel) {
        self.model = model
    }

    func mapping(for entity: Entity) -> EntityImportMapping {
        if let cached = cache.withLock({ $0[entity.name] }) { return cached }
        let made = EntityImportMapping(entity: entity, model: model)
        cache.withLock { $0[entity.name] = made }
        return made
    }
}

extension ObjectModel {
    /// The entity an import makes objects of for `entity`: itself, or for an abstract
    /// entity its only concrete subentity; nil for an abstract entity with several (the
    /// import cannot tell which to make) or none.
    func importTarget(for entity: Entity) -> Entity? {
        guard entity.isAbstract else { return entity }
        guard entity.concreteEntities.count == 1 else { return nil }
        return self.entity(named: entity.concreteEntities[0])
    }
}


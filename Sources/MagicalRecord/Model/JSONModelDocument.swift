/// The JSON model description's objects as `Codable` types (Spec/MODEL.md, section 2).
/// Nil members, empty maps and empty lists are left out; flags and counts are always
/// written, and read as their documented defaults when absent.
struct ModelDocument: Codable {
    var format: String
    var formatVersion: Int
    var current: String?
    var versions: [VersionDocument]
}

struct VersionDocument: Codable {
    var name: String?
    var entities: [EntityDocument]
    var slots: [String: Int]?
}

struct EntityDocument: Codable {
    var name: String
    var parent: String?
    var abstract: Bool?
    var className: String?
    var renamingIdentifier: String?
    var userInfo: [String: String]?
    var attributes: [AttributeDocument]?
    var relationships: [RelationshipDocument]?

    init(_ entity: EntityDescription) {
        name = entity.name
        parent = entity.parent
        abstract = entity.isAbstract
        className = entity.className
        renamingIdentifier = entity.renamingIdentifier
        userInfo = entity.userInfo.isEmpty ? nil : entity.userInfo
        attributes = entity.attributes.isEmpty ? nil : entity.attributes.map(AttributeDocument.init)
        relationships = entity.relationships.isEmpty ? nil : entity.relationships.map(RelationshipDocument.init)
    }

    var declaration: EntityDescription {
        EntityDescription(
            name,
            parent: parent,
            abstract: abstract ?? false,
            attributes: (attributes ?? []).map(\.declaration),
            relationships: (relationships ?? []).map(\.declaration),
            userInfo: userInfo ?? [:],
            renamingIdentifier: renamingIdentifier,
            className: className
        )
    }
}

struct RelationshipDocument: Codable {
    var name: String
    var destination: String
    var inverse: String?
    var toMany: Bool?
    var ordered: Bool?
    var optional: Bool?
    var deleteRule: DeleteRule?
    var minCount: Int?
    var maxCount: Int?
    var userInfo: [String: String]?
    var renamingIdentifier: String?

    init(_ relationship: RelationshipDescription) {
        name = relationship.name
        destination = relationship.destination
        inverse = relationship.inverse
        toMany = relationship.isToMany
        ordered = relationship.isOrdered
        optional = relationship.isOptional
        deleteRule = relationship.deleteRule
        minCount = relationship.minCount
        maxCount = relationship.maxCount
        userInfo = relationship.userInfo.isEmpty ? nil : relationship.userInfo
        renamingIdentifier = relationship.renamingIdentifier
    }

    var declaration: RelationshipDescription {
        RelationshipDescription(
            name,
            to: destination,
            inverse: inverse,
            toMany: toMany ?? false,
            ordered: ordered ?? false,
            optional: optional ?? true,
            deleteRule: deleteRule ?? .nullify,
            minCount: minCount ?? 0,
            maxCount: maxCount ?? 0,
            userInfo: userInfo ?? [:],
            renamingIdentifier: renamingIdentifier
        )
    }
}

/// An attribute; its `default` is typed by its `type` (Spec/MODEL.md, M12), so it is coded
/// by hand.
struct AttributeDocument: Codable {
    var declaration: AttributeDescription

    private enum Key: String, CodingKey {
        case name, type, optional, indexed, userInfo, renamingIdentifier
        case defaultValue = "default"
    }

    init(_ attribute: AttributeDescription) {
        declaration = attribute
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let typeName = try container.decode(String.self, forKey: .type)
        guard let type = AttributeType(rawValue: typeName) else {
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container,
                debugDescription: "\"\(typeName)\" is not one of \(AttributeType.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        declaration = AttributeDescription(
            try container.decode(String.self, forKey: .name),
            type,
            optional: try container.decodeIfPresent(Bool.self, forKey: .optional) ?? true,
            default: try JSONDefaultValue.decode(type, from: container, forKey: .defaultValue),
            indexed: try container.decodeIfPresent(Bool.self, forKey: .indexed) ?? false,
            userInfo: try container.decodeIfPresent([String: String].self, forKey: .userInfo) ?? [:],
            renamingIdentifier: try container.decodeIfPresent(String.self, forKey: .renamingIdentifier)
        )
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(declaration.name, forKey: .name)
        try container.encode(declaration.type.rawValue, forKey: .type)
        try container.encode(declaration.isOptional, forKey: .optional)
        try container.encode(declaration.isIndexed, forKey: .indexed)
        try JSONDefaultValue.encode(declaration.defaultValue, to: &container, forKey: .defaultValue)
        if !declaration.userInfo.isEmpty { try container.encode(declaration.userInfo, forKey: .userInfo) }
        try container.encodeIfPresent(declaration.renamingIdentifier, forKey: .renamingIdentifier)
    }
}

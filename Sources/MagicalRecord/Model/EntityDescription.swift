/// An entity as declared: its own attributes and relationships (a subentity inherits its
/// parent's), whether it is abstract, and its user info (`relatedByAttribute`, ...).
public struct EntityDescription: Sendable, Hashable {
    public var name: String
    public var parent: String?
    public var isAbstract: Bool
    public var attributes: [AttributeDescription]
    public var relationships: [RelationshipDescription]
    public var userInfo: [String: String]
    public var renamingIdentifier: String?
    /// The class Xcode generates for it (`representedClassName`); informational.
    public var className: String?

    public init(
        _ name: String,
        parent: String? = nil,
        abstract: Bool = false,
        attributes: [AttributeDescription] = [],
        relationships: [RelationshipDescription] = [],
        userInfo: [String: String] = [:],
        renamingIdentifier: String? = nil,
        className: String? = nil
    ) {
        self.name = name
        self.parent = parent
        self.isAbstract = abstract
        self.attributes = attributes
        self.relationships = relationships
        self.userInfo = userInfo
        self.renamingIdentifier = renamingIdentifier
        self.className = className
    }

    /// The Swift way to declare an entity:
    ///
    /// ```swift
    /// EntityDescription("Person", relatedBy: "personID") {
    ///     AttributeDescription("personID", .integer64, optional: false)
    ///     AttributeDescription("lastName", .string, indexed: true)
    ///     RelationshipDescription("department", to: "Department", inverse: "people")
    /// }
    /// ```
    public init(
        _ name: String,
        parent: String? = nil,
        abstract: Bool = false,
        relatedBy key: String? = nil,
        userInfo: [String: String] = [:],
        @EntityMembersBuilder members: () -> [EntityMember]
    ) {
        var userInfo = userInfo
        if let key { userInfo[UserInfoKey.relatedByAttribute] = key }
        self.init(name, parent: parent, abstract: abstract, userInfo: userInfo)
        for member in members() {
            switch member {
            case .attribute(let attribute): attributes.append(attribute)
            case .relationship(let relationship): relationships.append(relationship)
            }
        }
    }
}

/// The user-info keys the library itself reads.
public enum UserInfoKey {
    public static let relatedByAttribute = "relatedByAttribute"
    public static let mappedKeyName = "mappedKeyName"
    public static let dateFormat = "dateFormat"
    public static let attributeValueClassName = "attributeValueClassName"
    public static let useDefaultValueWhenNotPresent = "useDefaultValueWhenNotPresent"
    /// On a relationship: `add` (the default) or `replace`, what imported to-many
    /// targets do to the current ones.
    public static let relationshipImportPolicy = "relationshipImportPolicy"
}

public enum EntityMember: Sendable {
    case attribute(AttributeDescription)
    case relationship(RelationshipDescription)
}

@resultBuilder
public enum EntityMembersBuilder {
    public static func buildExpression(_ attribute: AttributeDescription) -> [EntityMember] { [.attribute(attribute)] }
    public static func buildExpression(_ relationship: RelationshipDescription) -> [EntityMember] { [.relationship(relationship)] }
    public static func buildBlock(_ parts: [EntityMember]...) -> [EntityMember] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [EntityMember]?) -> [EntityMember] { part ?? [] }
    public static func buildEither(first part: [EntityMember]) -> [EntityMember] { part }
    public static func buildEither(second part: [EntityMember]) -> [EntityMember] { part }
    public static func buildArray(_ parts: [[EntityMember]]) -> [EntityMember] { parts.flatMap { $0 } }
}

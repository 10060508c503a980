/// What deleting an object does to the objects its relationship points at.
public enum DeleteRule: String, Sendable, Hashable, Codable, CaseIterable {
    /// The targets stay; their inverse stops pointing at the deleted object.
    case nullify = "Nullify"
    /// The targets are deleted too.
    case cascade = "Cascade"
    /// The delete fails while the relationship has targets.
    case deny = "Deny"
    /// Nothing is done (the inverse is still cleaned up: we never keep dangling links).
    case noAction = "No Action"
}

/// A relationship from one entity to another: to-one, to-many or ordered to-many, with
/// an inverse that the context keeps consistent.
public struct RelationshipDescription: Sendable, Hashable {
    public var name: String
    public var destination: String
    public var inverse: String?
    public var isToMany: Bool
    /// A to-many whose targets keep the order they were given in.
    public var isOrdered: Bool
    public var isOptional: Bool
    public var deleteRule: DeleteRule
    /// Bounds on a to-many's count, checked on save (0 = none).
    public var minCount: Int
    public var maxCount: Int
    public var userInfo: [String: String]
    public var renamingIdentifier: String?

    public init(
        _ name: String,
        to destination: String,
        inverse: String? = nil,
        toMany: Bool = false,
        ordered: Bool = false,
        optional: Bool = true,
        deleteRule: DeleteRule = .nullify,
        minCount: Int = 0,
        maxCount: Int = 0,
        userInfo: [String: String] = [:],
        renamingIdentifier: String? = nil
    ) {
        self.name = name
        self.destination = destination
        self.inverse = inverse
        self.isToMany = toMany
        self.isOrdered = ordered
        self.isOptional = optional
        self.deleteRule = deleteRule
        self.minCount = minCount
        self.maxCount = maxCount
        self.userInfo = userInfo
        self.renamingIdentifier = renamingIdentifier
    }
}

/// An attribute of an entity: a name, a type, whether it may be nil, its default, and
/// the user info that import mapping reads (`mappedKeyName`, `dateFormat`, ...).
public struct AttributeDescription: Sendable, Hashable {
    public var name: String
    public var type: AttributeType
    public var isOptional: Bool
    /// What a new object starts with, and what a record written before this attribute
    /// existed reads as.
    public var defaultValue: AttributeValue
    /// Kept in an index of its own, so equality, range predicates and sorts on it do not
    /// scan.
    public var isIndexed: Bool
    public var userInfo: [String: String]
    /// The attribute's name in an earlier model version (lightweight migration).
    public var renamingIdentifier: String?

    public init(
        _ name: String,
        _ type: AttributeType,
        optional: Bool = true,
        default defaultValue: AttributeValue = .null,
        indexed: Bool = false,
        userInfo: [String: String] = [:],
        renamingIdentifier: String? = nil
    ) {
        self.name = name
        self.type = type
        self.isOptional = optional
        self.defaultValue = defaultValue
        self.isIndexed = indexed
        self.userInfo = userInfo
        self.renamingIdentifier = renamingIdentifier
    }
}

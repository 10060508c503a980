/// A model that cannot be used, and why.
public enum ModelError: Error, Sendable, Equatable, CustomStringConvertible {
    case duplicateEntity(String)
    case unknownParent(entity: String, parent: String)
    case inheritanceCycle(entity: String)
    case duplicateProperty(entity: String, property: String)
    case invalidName(entity: String, name: String)
    case unknownDestination(entity: String, relationship: String, destination: String)
    case unknownInverse(entity: String, relationship: String, inverse: String)
    case inverseMismatch(entity: String, relationship: String, inverse: String)
    case defaultValueMismatch(entity: String, attribute: String, type: AttributeType)
    case unknownEntity(String)
    /// A model file or description that cannot be read.
    case unreadable(source: String, reason: String)

    public var description: String {
        switch self {
        case .duplicateEntity(let name):
            return "the model declares entity \(name) twice"
        case .unknownParent(let entity, let parent):
            return "entity \(entity) inherits from \(parent), which the model does not declare"
        case .inheritanceCycle(let entity):
            return "entity \(entity) inherits from itself"
        case .duplicateProperty(let entity, let property):
            return "entity \(entity) has two properties named \(property) (counting inherited ones)"
        case .invalidName(let entity, let name):
            return "entity \(entity): \"\(name)\" is not a valid name (letters, digits and _, not starting with a digit)"
        case .unknownDestination(let entity, let relationship, let destination):
            return "relationship \(entity).\(relationship) points to \(destination), which the model does not declare"
        case .unknownInverse(let entity, let relationship, let inverse):
            return "relationship \(entity).\(relationship) names inverse \(inverse), which its destination does not have"
        case .inverseMismatch(let entity, let relationship, let inverse):
            return "relationship \(entity).\(relationship) and its inverse \(inverse) do not name each other"
        case .defaultValueMismatch(let entity, let attribute, let type):
            return "attribute \(entity).\(attribute): the default value is not a \(type.rawValue)"
        case .unknownEntity(let name):
            return "the model has no entity named \(name)"
        case .unreadable(let source, let reason):
            return "cannot read model \(source): \(reason)"
        }
    }
}

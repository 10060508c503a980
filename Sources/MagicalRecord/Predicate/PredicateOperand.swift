/// An operand as the validator sees it: its shape and type according to the model, and how
/// to name it in an error (Spec/PREDICATES.md, P29 and P30).
struct PredicateOperand {
    enum Shape {
        /// One value (or nil) of a kind.
        case single(Kind)
        /// A to-many key path's values, all of a kind.
        case collection(Kind)
        /// A list literal or argument: each element typed on its own.
        case list([PredicateOperand])
    }

    enum Kind: Equatable {
        case null
        case value(ValueKind)
        /// An object of this entity (or a subentity).
        case object(String)
    }

    /// Kinds of values, coarser than ``AttributeType``: what compares with what.
    enum ValueKind: Equatable {
        case number, boolean, string, date, data, uuid, uri

        init(_ type: AttributeType) {
            switch type {
            case .integer16, .integer32, .integer64, .double, .float, .decimal: self = .number
            case .boolean: self = .boolean
            case .string: self = .string
            case .date: self = .date
            case .binary, .transformable: self = .data
            case .uuid: self = .uuid
            case .uri: self = .uri
            }
        }

        init?(_ value: AttributeValue) {
            switch value {
            case .null: return nil
            case .integer, .double, .float, .decimal: self = .number
            case .bool: self = .boolean
            case .string: self = .string
            case .date: self = .date
            case .data: self = .data
            case .uuid: self = .uuid
            case .uri: self = .uri
            }
        }

        /// Numbers and booleans compare with each other, as NSNumbers do.
        func compares(with other: ValueKind) -> Bool {
            self == other || (self == .number && other == .boolean) || (self == .boolean && other == .number)
        }

        /// What a string constant compared with this kind stands for (P27), if anything.
        var coercionTarget: PredicateCoercion.Target? {
            switch self {
            case .date: return .date
            case .uuid: return .uuid
            case .uri: return .uri
            default: return nil
            }
        }

        /// How messages name a value of this kind.
        var article: String {
            switch self {
            case .number: return "a number"
            case .boolean: return "a boolean"
            case .string: return "a string"
            case .date: return "a date"
            case .data: return "binary data"
            case .uuid: return "a UUID"
            case .uri: return "a URI"
            }
        }
    }

    var shape: Shape
    var expression: ObjectExpression
    /// How errors name it: "`age` (Integer 16)", "a string", "SELF (Person)".
    var description: String
    /// Where it was written in the format string, if it was.
    var offset: Int?

    /// One element of a collection operand, as ANY, ALL, IN and CONTAINS compare it.
    func element(of kind: Kind) -> PredicateOperand {
        PredicateOperand(shape: .single(kind), expression: expression, description: description, offset: offset)
    }

    var isConstant: Bool {
        switch expression {
        case .constant, .object, .list: return true
        default: return false
        }
    }
}

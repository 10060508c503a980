import Foundation

/// A format argument or a builder operand, as the predicate sees it (Spec/PREDICATES.md, P12).
public enum PredicateArgument: Sendable, Hashable {
    /// A value: a number, a string, a date, ... or `.null` for nil.
    case value(AttributeValue)
    /// A stored object, compared with to-one relationships and `SELF`.
    case object(ObjectID)
    /// An array or a set: the right side of `IN` or `BETWEEN`.
    case list([PredicateArgument])

    /// What an error message calls this argument: "an integer", "a string", "nil"...
    var kindDescription: String {
        switch self {
        case .value(let value): return value.kindDescription
        case .object: return "an object ID"
        case .list: return "a list"
        }
    }

    var expression: ObjectExpression {
        switch self {
        case .value(let value): return .constant(value)
        case .object(let id): return .object(id)
        case .list(let items): return .list(items.map(\.expression))
        }
    }
}

/// A Swift value that can be a format argument (`%@`, `%d`, ...) or a builder operand.
///
/// The integers, `Double`, `Float`, `Decimal`, `Bool`, `String`, `Date`, `Data`, `UUID`,
/// `URL`, ``AttributeValue``, ``ObjectID``, and arrays, sets and optionals of those conform.
/// Conform a type of yours by saying what it stands for: a managed object, say, returns
/// `.object(objectID)`.
public protocol PredicateArgumentConvertible {
    var predicateArgument: PredicateArgument { get }
}

extension PredicateArgument: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { self }
}

extension AttributeValue: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(self) }

    var kindDescription: String {
        switch self {
        case .null: return "nil"
        case .integer: return "an integer"
        case .double, .float, .decimal: return "a number"
        case .bool: return "a boolean"
        case .string: return "a string"
        case .date: return "a date"
        case .data: return "binary data"
        case .uuid: return "a UUID"
        case .uri: return "a URI"
        }
    }
}

extension ObjectID: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .object(self) }
}

extension Optional: PredicateArgumentConvertible where Wrapped: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { self?.predicateArgument ?? .value(.null) }
}

extension Array: PredicateArgumentConvertible where Element: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .list(map(\.predicateArgument)) }
}

extension Set: PredicateArgumentConvertible where Element: PredicateArgumentConvertible {
    /// Sorted, so that the same set always gives the same (equal, hashable) predicate.
    public var predicateArgument: PredicateArgument {
        .list(map(\.predicateArgument).sorted(by: PredicateArgument.precedes))
    }
}

extension PredicateArgument {
    /// Any fixed order will do for sets; values first in ``AttributeValue/compare(_:_:)``
    /// order, then objects, then lists, falling back on the text form.
    static func precedes(_ a: PredicateArgument, _ b: PredicateArgument) -> Bool {
        switch (a, b) {
        case let (.value(x), .value(y)):
            if let order = AttributeValue.compare(x, y), order != .orderedSame { return order == .orderedAscending }
        case let (.object(x), .object(y)):
            if x.entityName != y.entityName { return x.entityName < y.entityName }
            return x.number < y.number
        default:
            if a.rank != b.rank { return a.rank < b.rank }
        }
        return String(describing: a) < String(describing: b)
    }

    private var rank: Int {
        switch self {
        case .value: return 0
        case .object: return 1
        case .list: return 2
        }
    }
}

extension Int: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.integer(Int64(self))) }
}

extension Int8: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.integer(Int64(self))) }
}

extension Int16: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.integer(Int64(self))) }
}

extension Int32: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.integer(Int64(self))) }
}

extension Int64: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.integer(self)) }
}

extension UInt: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { UInt64(self).predicateArgument }
}

extension UInt8: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.integer(Int64(self))) }
}

extension UInt16: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.integer(Int64(self))) }
}

extension UInt32: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.integer(Int64(self))) }
}

extension UInt64: PredicateArgumentConvertible {
    /// Beyond `Int64.max` the value is kept exactly, as a decimal.
    public var predicateArgument: PredicateArgument {
        if let exact = Int64(exactly: self) { return .value(.integer(exact)) }
        return .value(.decimal(Decimal(self)))
    }
}

extension Double: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.double(self)) }
}

extension Float: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.float(self)) }
}

extension Decimal: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.decimal(self)) }
}

extension Bool: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.bool(self)) }
}

extension String: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.string(self)) }
}

extension Substring: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.string(String(self))) }
}

extension Date: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.date(self)) }
}

extension Data: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.data(self)) }
}

extension UUID: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.uuid(self)) }
}

extension URL: PredicateArgumentConvertible {
    public var predicateArgument: PredicateArgument { .value(.uri(self)) }
}

/// What is wrong with a predicate, and where (Spec/PREDICATES.md, P31).
///
/// Offsets count Swift `Character`s from 0 in the format string; the ``description`` reads
/// `expected ')' at offset 17`. Errors found in a predicate built in Swift, or during
/// evaluation, have no offset.
public enum ObjectPredicateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The format string is not a predicate: `expected ')'`, `unterminated string`, ...
    case syntax(String, offset: Int)
    /// A format argument is missing, left over, or of a type its specifier does not take.
    case argument(String, offset: Int)
    /// A key path names a key that the entity reached at that point does not have.
    case unknownKey(String, entity: String, offset: Int?)
    /// Operands whose types do not compare, such as a number attribute and a string.
    case typeMismatch(String, offset: Int?)
    /// An operand an operator or modifier cannot take: `ANY` on a to-one key path, a to-many
    /// key path without `ANY`/`ALL`/`NONE`, `@count` of an attribute, `BETWEEN` without two
    /// bounds, a key path that continues past an attribute.
    case invalidOperand(String, offset: Int?)
    /// A `MATCHES` pattern that is not a valid regular expression.
    case invalidPattern(String, offset: Int?)
    /// Evaluation met a value it cannot use, such as a subject answering a to-many key path
    /// with a single value.
    case evaluation(String)

    /// What went wrong, without the position.
    public var message: String {
        switch self {
        case .syntax(let message, _), .argument(let message, _), .typeMismatch(let message, _),
             .invalidOperand(let message, _), .evaluation(let message):
            return message
        case .unknownKey(let key, let entity, _):
            return "unknown key `\(key)` in entity \(entity)"
        case .invalidPattern(let pattern, _):
            return "invalid regular expression \(quoted(pattern))"
        }
    }

    /// The character offset in the format string, when the predicate came from one.
    public var offset: Int? {
        switch self {
        case .syntax(_, let offset), .argument(_, let offset): return offset
        case .unknownKey(_, _, let offset), .typeMismatch(_, let offset), .invalidOperand(_, let offset),
             .invalidPattern(_, let offset):
            return offset
        case .evaluation: return nil
        }
    }

    public var description: String {
        guard let offset else { return message }
        return "\(message) at offset \(offset)"
    }

    /// The same error placed at `offset`, when it has no place yet.
    func located(at offset: Int?) -> ObjectPredicateError {
        guard self.offset == nil, let offset else { return self }
        switch self {
        case .unknownKey(let key, let entity, _): return .unknownKey(key, entity: entity, offset: offset)
        case .typeMismatch(let message, _): return .typeMismatch(message, offset: offset)
        case .invalidOperand(let message, _): return .invalidOperand(message, offset: offset)
        case .invalidPattern(let pattern, _): return .invalidPattern(pattern, offset: offset)
        case .syntax, .argument, .evaluation: return self
        }
    }
}

/// `text` in double quotes, as it would be written in a format string.
func quoted(_ text: String) -> String {
    PredicateFormatter.stringLiteral(text)
}

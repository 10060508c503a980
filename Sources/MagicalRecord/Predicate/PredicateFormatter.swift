/// Writes predicates back as format strings that parse to equal predicates
/// (Spec/PREDICATES.md, P32).
enum PredicateFormatter {
    static func format(_ predicate: ObjectPredicate) -> String {
        switch predicate {
        case .truePredicate: return "TRUEPREDICATE"
        case .falsePredicate: return "FALSEPREDICATE"
        case .comparison(let comparison): return format(comparison)
        case .not(let operand):
            switch operand {
            case .and, .or: return "NOT (\(format(operand)))"
            default: return "NOT \(format(operand))"
            }
        case .and(let operands): return compound(operands, keyword: "AND")
        case .or(let operands): return compound(operands, keyword: "OR")
        }
    }

    /// Operands that are themselves compounds keep their parentheses, so they parse back as
    /// the same tree rather than one flattened list. An empty or one-operand compound (only
    /// built in Swift) is written as the predicate it equals.
    private static func compound(_ operands: [ObjectPredicate], keyword: String) -> String {
        guard !operands.isEmpty else { return keyword == "AND" ? "TRUEPREDICATE" : "FALSEPREDICATE" }
        guard operands.count > 1 else { return format(operands[0]) }
        return operands.map { operand in
            switch operand {
            case .and, .or: return "(\(format(operand)))"
            default: return format(operand)
            }
        }.joined(separator: " \(keyword) ")
    }

    static func format(_ comparison: PredicateComparison) -> String {
        var text = ""
        switch comparison.modifier {
        case .direct: break
        case .any: text = "ANY "
        case .all: text = "ALL "
        }
        text += format(comparison.left) + " " + comparison.operator.rawValue
        text += options(comparison.options)
        return text + " " + format(comparison.right)
    }

    private static func options(_ options: PredicateOptions) -> String {
        guard !options.isEmpty else { return "" }
        var letters = ""
        if options.contains(.caseInsensitive) { letters += "c" }
        if options.contains(.diacriticInsensitive) { letters += "d" }
        if options.contains(.normalized) { letters += "n" }
        return "[\(letters)]"
    }

    static func format(_ expression: ObjectExpression) -> String {
        switch expression {
        case .keyPath(let path): return format(path)
        case .evaluatedObject: return "SELF"
        case .constant(let value): return PredicateCast.literal(value)
        case .object(let id): return PredicateCast.literal(id)
        case .list(let items): return "{" + items.map(format).joined(separator: ", ") + "}"
        case .aggregate(let aggregate, let collection, let property):
            let text = format(collection) + ".@" + aggregate.rawValue
            return property.map { text + "." + format($0) } ?? text
        }
    }

    /// Keys joined by dots, reserved words escaped with `#`. A key that is not an
    /// identifier (given through `%K` or built in Swift) is written as it is: such a key
    /// path does not parse back, and has to be passed through `%K` again.
    static func format(_ path: PredicateKeyPath) -> String {
        path.components.map { key in
            PredicateLexer.isPlainKey(key) || !PredicateLexer.isKey(key) ? key : "#" + key
        }.joined(separator: ".")
    }

    /// `text` as a double-quoted string literal.
    static func stringLiteral(_ text: String) -> String {
        var literal = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": literal += "\\\""
            case "\\": literal += "\\\\"
            case "\n": literal += "\\n"
            case "\t": literal += "\\t"
            case "\r": literal += "\\r"
            case "\0": literal += "\\0"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    literal += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    literal.unicodeScalars.append(scalar)
                }
            }
        }
        return literal + "\""
    }
}

extension ObjectPredicate: CustomStringConvertible {
    /// The predicate as a format string, like `NSPredicate.predicateFormat`: parsing it
    /// gives back an equal predicate (when its keys are identifiers; see Spec/PREDICATES.md, P32).
    public var predicateFormat: String { PredicateFormatter.format(self) }

    public var description: String { predicateFormat }
}

extension ObjectExpression: CustomStringConvertible {
    /// The expression as it is written in a format string.
    public var description: String { PredicateFormatter.format(self) }
}

/// One token of a format string, and where it starts (a `Character` offset).
struct PredicateToken: Equatable {
    enum Kind: Equatable {
        /// An identifier or a keyword; keywords are told apart by the parser, case-insensitively.
        case word(String)
        /// `#word`: always a key, even when `word` is reserved.
        case escapedWord(String)
        /// An integer's magnitude; a leading `-` is the parser's business.
        case integer(UInt64)
        case real(Double)
        case string(String)
        case specifier(PredicateFormatSpecifier)
        /// `@count`, `@sum`, ...: the name after the `@`.
        case collectionOperator(String)
        case symbol(PredicateSymbol)
        case end
    }

    var kind: Kind
    var offset: Int

    /// Whether this is the keyword `keyword` (given in upper case), in any case.
    func isKeyword(_ keyword: String) -> Bool {
        guard case .word(let word) = kind else { return false }
        return word.uppercased() == keyword
    }

    /// The token as an error message names it.
    var quotedText: String {
        switch kind {
        case .word(let word): return "'\(word)'"
        case .escapedWord(let word): return "'#\(word)'"
        case .integer(let value): return "'\(value)'"
        case .real(let value): return "'\(value)'"
        case .string(let value): return quoted(value)
        case .specifier(let specifier): return "'\(specifier.text)'"
        case .collectionOperator(let name): return "'@\(name)'"
        case .symbol(let symbol): return "'\(symbol.rawValue)'"
        case .end: return "end of input"
        }
    }
}

/// Punctuation and symbolic operators.
enum PredicateSymbol: String, CaseIterable {
    case leftParenthesis = "("
    case rightParenthesis = ")"
    case leftBrace = "{"
    case rightBrace = "}"
    case leftBracket = "["
    case rightBracket = "]"
    case comma = ","
    case dot = "."
    case minus = "-"
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case and = "&&"
    case or = "||"
    case not = "!"
}

/// A `%` conversion of the format string (Spec/PREDICATES.md, P12).
struct PredicateFormatSpecifier: Equatable {
    enum Conversion: Equatable {
        /// `%@`: any argument, as a constant (a string stays a string, never a key).
        case object
        /// `%K`: a key path, given as a string.
        case keyPath
        /// `%d`, `%i`, `%u`, `%ld`, `%lld`, `%lu`, `%x`...: an integer.
        case integer
        /// `%f`, `%lf`, `%g`, `%e`...: a floating-point number.
        case floatingPoint
    }

    var conversion: Conversion
    /// As written, `%lld` say, for messages.
    var text: String
}

/// Words NSPredicate reserves (Spec/PREDICATES.md, P1): a key with one of these names is
/// written with a `#` in front, `#size`.
let predicateReservedWords: Set<String> = [
    "AND", "OR", "IN", "NOT", "ALL", "ANY", "SOME", "NONE", "LIKE", "CASEINSENSITIVE", "CI",
    "MATCHES", "CONTAINS", "BEGINSWITH", "ENDSWITH", "BETWEEN", "NULL", "NIL", "SELF", "TRUE",
    "YES", "FALSE", "NO", "FIRST", "LAST", "SIZE", "ANYKEY", "SUBQUERY", "MEMBER", "FETCH",
    "CAST", "TRUEPREDICATE", "FALSEPREDICATE", "FUNCTION",
]

/// The expression level of the grammar (Spec/PREDICATES.md, P2, P6-P12): constants, lists,
/// key paths with their collection operators, `SELF`, `CAST` and format arguments.
extension PredicateParser {
    /// Keywords NSPredicate reserves for features this parser does not have.
    private static let unsupportedKeywords: Set<String> = [
        "SUBQUERY", "FUNCTION", "FETCH", "FIRST", "LAST", "SIZE", "ANYKEY", "MEMBER", "CASEINSENSITIVE", "CI",
    ]

    mutating func parseExpression() throws(ObjectPredicateError) -> ObjectExpression {
        let start = token.offset
        switch token.kind {
        case .symbol(.leftBrace):
            return try nested { (parser) throws(ObjectPredicateError) in try parser.parseList() }
        case .symbol(.minus), .integer, .real:
            return .constant(try parseNumber())
        case .string(let text):
            try advance()
            return .constant(.string(text))
        case .specifier(let specifier):
            try advance()
            let argument = try takeArgument(for: specifier, at: start)
            guard specifier.conversion == .keyPath else { return argument.expression }
            return try parseKeyPath(startingWith: try keys(fromKeyPathArgument: argument, at: start))
        case .escapedWord(let key):
            try advance()
            return try parseKeyPath(startingWith: [key])
        case .word(let word):
            return try parseWord(word, at: start)
        case .collectionOperator(let name):
            throw .syntax("@\(name) must follow a key path, as in employees.@\(name)", offset: start)
        default:
            throw .syntax("expected an expression", offset: start)
        }
    }

    private mutating func parseWord(_ word: String, at start: Int) throws(ObjectPredicateError) -> ObjectExpression {
        let keyword = word.uppercased()
        guard predicateReservedWords.contains(keyword) else {
            try advance()
            return try parseKeyPath(startingWith: [word])
        }
        switch keyword {
        case "NIL", "NULL":
            try advance()
            return .constant(.null)
        case "YES", "TRUE":
            try advance()
            return .constant(.bool(true))
        case "NO", "FALSE":
            try advance()
            return .constant(.bool(false))
        case "SELF":
            try advance()
            guard token.kind == .symbol(.dot) else { return .evaluatedObject }
            return try parseKeyPath(startingWith: [])
        case "CAST":
            try advance()
            return try parseCast()
        default:
            if Self.unsupportedKeywords.contains(keyword) {
                throw .syntax("\(keyword) is not supported (write #\(word) for a key of that name)", offset: start)
            }
            throw .syntax("expected an expression, found the keyword \(keyword)", offset: start)
        }
    }

    /// `{a, b, ...}`.
    private mutating func parseList() throws(ObjectPredicateError) -> ObjectExpression {
        try advance()
        var items: [ObjectExpression] = []
        if token.kind == .symbol(.rightBrace) {
            try advance()
            return .list(items)
        }
        while true {
            items.append(try parseExpression())
            if token.kind == .symbol(.rightBrace) { break }
            guard token.kind == .symbol(.comma) else { throw .syntax("expected ',' or '}'", offset: token.offset) }
            try advance()
        }
        try advance()
        return .list(items)
    }

    /// An integer or a real, with an optional leading minus.
    mutating func parseNumber() throws(ObjectPredicateError) -> AttributeValue {
        let start = token.offset
        let negative = token.kind == .symbol(.minus)
        if negative { try advance() }
        let value: AttributeValue
        switch token.kind {
        case .integer(let magnitude):
            let limit = UInt64(Int64.max) + (negative ? 1 : 0)
            guard magnitude <= limit else {
                throw .syntax("integer \(negative ? "-" : "")\(magnitude) does not fit in 64 bits", offset: start)
            }
            value = .integer(negative ? Int64(truncatingIfNeeded: 0 &- magnitude) : Int64(magnitude))
        case .real(let number):
            value = .double(negative ? -number : number)
        default:
            throw .syntax("expected a number after '-'", offset: token.offset)
        }
        try advance()
        return value
    }

    /// The rest of a key path after its first keys: `.key`, `.#key`, `.%K`, and one
    /// collection operator, which may be followed by more keys (`employees.@sum.salary`).
    private mutating func parseKeyPath(startingWith first: [String]) throws(ObjectPredicateError) -> ObjectExpression {
        var keys = first
        while token.kind == .symbol(.dot) {
            try advance()
            if case .collectionOperator(let name) = token.kind {
                return try parseAggregate(named: name, of: keys)
            }
            keys += try parseKey()
        }
        return .keyPath(PredicateKeyPath(keys))
    }

    private mutating func parseAggregate(named name: String, of collection: [String]) throws(ObjectPredicateError) -> ObjectExpression {
        let offset = token.offset
        guard let aggregate = PredicateAggregate(rawValue: name.lowercased()) else {
            throw .syntax("unknown collection operator '@\(name)'; expected @count, @sum, @avg, @min or @max", offset: offset)
        }
        guard !collection.isEmpty else { throw .syntax("expected a key path before '@\(name)'", offset: offset) }
        try advance()
        var property: [String] = []
        while token.kind == .symbol(.dot) {
            try advance()
            if case .collectionOperator = token.kind {
                throw .syntax("only one collection operator is allowed in a key path", offset: token.offset)
            }
            property += try parseKey()
        }
        return .aggregate(aggregate, PredicateKeyPath(collection), property: property.isEmpty ? nil : PredicateKeyPath(property))
    }

    /// One key after a dot: any word (reserved ones too: after a dot there is no doubt), an
    /// escaped word, or `%K`.
    private mutating func parseKey() throws(ObjectPredicateError) -> [String] {
        let start = token.offset
        switch token.kind {
        case .word(let key), .escapedWord(let key):
            try advance()
            return [key]
        case .specifier(let specifier) where specifier.conversion == .keyPath:
            try advance()
            return try keys(fromKeyPathArgument: try takeArgument(for: specifier, at: start), at: start)
        default:
            throw .syntax("expected a key after '.'", offset: start)
        }
    }

    // MARK: - Arguments (P12)

    /// The next argument, checked against what its specifier takes.
    mutating func takeArgument(for specifier: PredicateFormatSpecifier, at offset: Int) throws(ObjectPredicateError) -> PredicateArgument {
        guard argumentsUsed < arguments.count else {
            throw .argument(
                "missing argument for \(specifier.text) (\(arguments.count) given)", offset: offset
            )
        }
        let argument = arguments[argumentsUsed]
        argumentsUsed += 1
        let accepted: Bool
        switch (specifier.conversion, argument) {
        case (.object, _): accepted = true
        case (.keyPath, .value(.string)): accepted = true
        case (.integer, .value(.integer)): accepted = true
        case (.floatingPoint, .value(let value)): accepted = value.isNumber
        default: accepted = false
        }
        guard accepted else {
            let expected: String
            switch specifier.conversion {
            case .object: expected = "a value"
            case .keyPath: expected = "a key path string"
            case .integer: expected = "an integer"
            case .floatingPoint: expected = "a number"
            }
            throw .argument(
                "\(specifier.text) (argument \(argumentsUsed)) expects \(expected), got \(argument.kindDescription)",
                offset: offset
            )
        }
        return argument
    }

    /// A `%K` argument's keys: it may hold a dotted path, but no empty key.
    private func keys(fromKeyPathArgument argument: PredicateArgument, at offset: Int) throws(ObjectPredicateError) -> [String] {
        guard case .value(.string(let text)) = argument else {
            throw .argument("%K expects a key path string, got \(argument.kindDescription)", offset: offset)
        }
        let keys = PredicateKeyPath(text).components
        guard keys.allSatisfy({ !$0.isEmpty }) else {
            throw .argument("%K argument \(quoted(text)) has an empty key", offset: offset)
        }
        return keys
    }
}

extension AttributeValue {
    var isNumber: Bool {
        switch self {
        case .integer, .double, .float, .decimal: return true
        default: return false
        }
    }
}

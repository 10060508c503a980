/// Reads a format string into an ``ObjectPredicate``: recursive descent over the grammar of
/// Spec/PREDICATES.md (P2), substituting arguments as it meets their specifiers.
///
/// This file holds the predicate levels (OR, AND, NOT, comparisons); expressions, key paths
/// and arguments are in `PredicateParser+Expressions.swift`.
struct PredicateParser {
    /// Deeper nesting (parentheses, NOT, lists) is refused: recursion must not exhaust a
    /// thread's stack whatever the input.
    static let maximumDepth = 100

    var lexer: PredicateLexer
    var token: PredicateToken
    let arguments: [PredicateArgument]
    var argumentsUsed = 0
    private var depth = 0

    init(format: String, arguments: [PredicateArgument]) throws(ObjectPredicateError) {
        lexer = PredicateLexer(format)
        token = try lexer.next()
        self.arguments = arguments
    }

    /// The whole format string: one predicate, every argument used.
    mutating func parse() throws(ObjectPredicateError) -> ObjectPredicate {
        let predicate = try parseOr()
        guard token.kind == .end else { throw .syntax("unexpected \(token.quotedText)", offset: token.offset) }
        guard argumentsUsed == arguments.count else {
            let used = argumentsUsed == 1 ? "1 argument" : "\(argumentsUsed) arguments"
            let given = arguments.count == 1 ? "1 was given" : "\(arguments.count) were given"
            throw .argument("the format uses \(used) but \(given)", offset: lexer.endOffset)
        }
        return predicate
    }

    mutating func advance() throws(ObjectPredicateError) {
        token = try lexer.next()
    }

    /// Consumes `symbol`, or fails with "expected 'symbol'".
    mutating func expect(_ symbol: PredicateSymbol) throws(ObjectPredicateError) {
        guard token.kind == .symbol(symbol) else { throw .syntax("expected '\(symbol.rawValue)'", offset: token.offset) }
        try advance()
    }

    /// Runs `body` one nesting level deeper; the current token is what opens the level.
    mutating func nested<T>(_ body: (inout PredicateParser) throws(ObjectPredicateError) -> T) throws(ObjectPredicateError) -> T {
        guard depth < Self.maximumDepth else {
            throw .syntax("nested more than \(Self.maximumDepth) levels deep", offset: token.offset)
        }
        depth += 1
        defer { depth -= 1 }
        return try body(&self)
    }

    // MARK: - Predicates (P3: comparison binds tightest, then NOT, then AND, then OR)

    private mutating func parseOr() throws(ObjectPredicateError) -> ObjectPredicate {
        var operands = [try parseAnd()]
        while token.isKeyword("OR") || token.kind == .symbol(.or) {
            try advance()
            operands.append(try parseAnd())
        }
        return operands.count == 1 ? operands[0] : .or(operands)
    }

    private mutating func parseAnd() throws(ObjectPredicateError) -> ObjectPredicate {
        var operands = [try parseNot()]
        while token.isKeyword("AND") || token.kind == .symbol(.and) {
            try advance()
            operands.append(try parseNot())
        }
        return operands.count == 1 ? operands[0] : .and(operands)
    }

    private mutating func parseNot() throws(ObjectPredicateError) -> ObjectPredicate {
        guard token.isKeyword("NOT") || token.kind == .symbol(.not) else { return try parsePrimary() }
        return try nested { (parser) throws(ObjectPredicateError) in
            try parser.advance()
            return .not(try parser.parseNot())
        }
    }

    private mutating func parsePrimary() throws(ObjectPredicateError) -> ObjectPredicate {
        if token.kind == .symbol(.leftParenthesis) {
            return try nested { (parser) throws(ObjectPredicateError) in
                try parser.advance()
                let predicate = try parser.parseOr()
                try parser.expect(.rightParenthesis)
                return predicate
            }
        }
        if token.isKeyword("TRUEPREDICATE") {
            try advance()
            return .truePredicate
        }
        if token.isKeyword("FALSEPREDICATE") {
            try advance()
            return .falsePredicate
        }
        return try parseComparison()
    }

    // MARK: - Comparisons (P4, P5, P13)

    private mutating func parseComparison() throws(ObjectPredicateError) -> ObjectPredicate {
        let start = token.offset
        var modifier = PredicateModifier.direct
        var negated = false
        if token.isKeyword("ANY") || token.isKeyword("SOME") {
            modifier = .any
        } else if token.isKeyword("ALL") {
            modifier = .all
        } else if token.isKeyword("NONE") {
            modifier = .any
            negated = true
        }
        if modifier != .direct { try advance() }
        let leftOffset = token.offset
        let left = try parseExpression()
        let operatorOffset = token.offset
        guard let comparisonOperator = Self.comparisonOperator(token) else {
            throw .syntax("expected a comparison operator", offset: token.offset)
        }
        try advance()
        let options = try parseOptions()
        let rightOffset = token.offset
        let right = try parseExpression()
        try checkRight(right, of: comparisonOperator, options: options, at: rightOffset)
        let comparison = PredicateComparison(
            left, comparisonOperator, right, modifier: modifier, options: options,
            location: PredicateSourceLocation(start: start, left: leftOffset, operator: operatorOffset, right: rightOffset)
        )
        return negated ? .not(.comparison(comparison)) : .comparison(comparison)
    }

    private static func comparisonOperator(_ token: PredicateToken) -> PredicateOperator? {
        switch token.kind {
        case .symbol(.equal): return .equalTo
        case .symbol(.notEqual): return .notEqualTo
        case .symbol(.less): return .lessThan
        case .symbol(.lessOrEqual): return .lessThanOrEqualTo
        case .symbol(.greater): return .greaterThan
        case .symbol(.greaterOrEqual): return .greaterThanOrEqualTo
        case .word(let word):
            let keyword = word.uppercased()
            return PredicateOperator.allCases.first { $0.rawValue == keyword }
        default:
            return nil
        }
    }

    /// `[c]`, `[d]`, `[cd]`, `[n]`, in any order and case.
    private mutating func parseOptions() throws(ObjectPredicateError) -> PredicateOptions {
        guard token.kind == .symbol(.leftBracket) else { return [] }
        try advance()
        guard case .word(let letters) = token.kind else {
            throw .syntax("expected comparison options (c, d or n)", offset: token.offset)
        }
        var options: PredicateOptions = []
        for (index, letter) in letters.enumerated() {
            switch letter {
            case "c", "C": options.insert(.caseInsensitive)
            case "d", "D": options.insert(.diacriticInsensitive)
            case "n", "N": options.insert(.normalized)
            default:
                throw .syntax("unknown comparison option '\(letter)'; expected c, d or n", offset: token.offset + index)
            }
        }
        try advance()
        try expect(.rightBracket)
        return options
    }

    /// What can be told about the right side without a model: BETWEEN's two bounds, and a
    /// MATCHES pattern that must compile.
    private func checkRight(
        _ right: ObjectExpression, of comparisonOperator: PredicateOperator, options: PredicateOptions, at offset: Int
    ) throws(ObjectPredicateError) {
        switch (comparisonOperator, right) {
        case (.between, .list(let bounds)) where bounds.count != 2:
            throw .invalidOperand("BETWEEN needs two bounds, {lower, upper}; got \(bounds.count)", offset: offset)
        case (.matches, .constant(.string(let pattern))):
            do {
                _ = try PatternCache.shared.expression(for: pattern, options: options)
            } catch {
                throw error.located(at: offset)
            }
        default:
            break
        }
    }
}

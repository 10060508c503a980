/// Splits a format string into tokens, one at a time, so that the first error in the
/// string is the one reported (Spec/PREDICATES.md, P1, P6, P7, P12).
///
/// It reads Unicode scalars, not `Character`s: a string literal that starts with a
/// combining accent would otherwise fuse with its opening quote into one `Character`.
/// Offsets are converted to `Character` offsets, which is what users count.
struct PredicateLexer {
    private let scalars: [Unicode.Scalar]
    /// The `Character` offset of each scalar, and one past the end.
    private let characterOffsets: [Int]
    private var position = 0

    init(_ format: String) {
        var scalars: [Unicode.Scalar] = []
        var characterOffsets: [Int] = []
        var count = 0
        for character in format {
            for scalar in character.unicodeScalars {
                scalars.append(scalar)
                characterOffsets.append(count)
            }
            count += 1
        }
        characterOffsets.append(count)
        self.scalars = scalars
        self.characterOffsets = characterOffsets
    }

    /// The offset just past the last character: where "end of input" is.
    var endOffset: Int { characterOffsets[scalars.count] }

    mutating func next() throws(ObjectPredicateError) -> PredicateToken {
        while position < scalars.count, scalars[position].properties.isWhitespace { position += 1 }
        let start = offset(position)
        guard let scalar = peek() else { return PredicateToken(kind: .end, offset: start) }
        if Self.startsKey(scalar) { return PredicateToken(kind: .word(readKey()), offset: start) }
        if Self.isDigit(scalar) { return PredicateToken(kind: try readNumber(), offset: start) }
        position += 1
        switch scalar {
        case "\"", "'":
            return PredicateToken(kind: .string(try readString(quote: scalar, start: start)), offset: start)
        case "#":
            guard let next = peek(), Self.startsKey(next) else {
                throw .syntax("expected a key after '#'", offset: offset(position))
            }
            return PredicateToken(kind: .escapedWord(readKey()), offset: start)
        case "@":
            guard let next = peek(), Self.startsKey(next) else {
                throw .syntax("expected a collection operator after '@'", offset: offset(position))
            }
            return PredicateToken(kind: .collectionOperator(readKey()), offset: start)
        case "%":
            return PredicateToken(kind: .specifier(try readSpecifier(start: start)), offset: start)
        case "$":
            throw .syntax("substitution variables ($name) are not supported", offset: start)
        default:
            guard let symbol = readSymbol(scalar) else {
                throw .syntax("unexpected character '\(scalar)'", offset: start)
            }
            return PredicateToken(kind: .symbol(symbol), offset: start)
        }
    }

    private func offset(_ scalarIndex: Int) -> Int { characterOffsets[scalarIndex] }

    /// Whether `text` can be written as a key without escaping: one key's characters, and
    /// not a reserved word.
    static func isPlainKey(_ text: String) -> Bool {
        isKey(text) && !predicateReservedWords.contains(text.uppercased())
    }

    /// Whether `text` can be written as a key at all (with a `#` when it is reserved).
    static func isKey(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first else { return false }
        return startsKey(first) && text.unicodeScalars.allSatisfy(continuesKey)
    }

    private static func startsKey(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.isAlphabetic || scalar == "_" }

    /// Letters, digits, `_`, and combining marks (a decomposed `é` in `café`).
    private static func continuesKey(_ scalar: Unicode.Scalar) -> Bool {
        if startsKey(scalar) || isDigit(scalar) { return true }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }

    private static func isHexDigit(_ scalar: Unicode.Scalar) -> Bool {
        isDigit(scalar) || ("a"..."f").contains(scalar) || ("A"..."F").contains(scalar)
    }

    private func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
        position + ahead < scalars.count ? scalars[position + ahead] : nil
    }

    private func text(_ range: Range<Int>) -> String {
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars[range])
        return text
    }

    private mutating func readKey() -> String {
        let start = position
        while let scalar = peek(), Self.continuesKey(scalar) { position += 1 }
        return text(start..<position)
    }

    private mutating func readSymbol(_ first: Unicode.Scalar) -> PredicateSymbol? {
        let second = peek()
        func pair(_ symbol: PredicateSymbol) -> PredicateSymbol {
            position += 1
            return symbol
        }
        switch (first, second) {
        case ("=", "="): return pair(.equal)
        case ("=", "<"): return pair(.lessOrEqual)
        case ("=", ">"): return pair(.greaterOrEqual)
        case ("=", _): return .equal
        case ("!", "="): return pair(.notEqual)
        case ("<", ">"): return pair(.notEqual)
        case ("<", "="): return pair(.lessOrEqual)
        case (">", "="): return pair(.greaterOrEqual)
        case ("&", "&"): return pair(.and)
        case ("|", "|"): return pair(.or)
        default: return PredicateSymbol(rawValue: String(first))
        }
    }

    private mutating func readNumber() throws(ObjectPredicateError) -> PredicateToken.Kind {
        let start = position
        if peek() == "0", let marker = peek(1), let radix = Self.radix(marker) {
            position += 2
            let digitsStart = position
            while let scalar = peek(), Self.isHexDigit(scalar) { position += 1 }
            let digits = text(digitsStart..<position)
            guard !digits.isEmpty else { throw .syntax("expected digits after '0\(marker)'", offset: offset(position)) }
            guard let value = UInt64(digits, radix: radix) else {
                throw .syntax("'0\(marker)\(digits)' is not a base-\(radix) integer of 64 bits", offset: offset(start))
            }
            try expectNumberEnd()
            return .integer(value)
        }
        var isReal = false
        skipDigits()
        if peek() == ".", let next = peek(1), Self.isDigit(next) {
            isReal = true
            position += 1
            skipDigits()
        }
        if let marker = peek(), marker == "e" || marker == "E" {
            isReal = true
            position += 1
            if let sign = peek(), sign == "+" || sign == "-" { position += 1 }
            guard let digit = peek(), Self.isDigit(digit) else {
                throw .syntax("expected digits in the exponent", offset: offset(position))
            }
            skipDigits()
        }
        let number = text(start..<position)
        try expectNumberEnd()
        if isReal {
            guard let value = Double(number), value.isFinite else {
                throw .syntax("number \(number) is out of range", offset: offset(start))
            }
            return .real(value)
        }
        guard let value = UInt64(number) else {
            throw .syntax("integer \(number) does not fit in 64 bits", offset: offset(start))
        }
        return .integer(value)
    }

    private static func radix(_ marker: Unicode.Scalar) -> Int? {
        switch marker {
        case "x", "X": return 16
        case "o", "O": return 8
        case "b", "B": return 2
        default: return nil
        }
    }

    private mutating func skipDigits() {
        while let scalar = peek(), Self.isDigit(scalar) { position += 1 }
    }

    /// `12abc` is a mistake, not the number 12 followed by the key `abc`.
    private func expectNumberEnd() throws(ObjectPredicateError) {
        if let scalar = peek(), Self.continuesKey(scalar) {
            throw .syntax("unexpected character '\(scalar)' after a number", offset: offset(position))
        }
    }

    private mutating func readString(quote: Unicode.Scalar, start: Int) throws(ObjectPredicateError) -> String {
        var text = String.UnicodeScalarView()
        while let scalar = peek() {
            position += 1
            if scalar == quote { return String(text) }
            guard scalar == "\\" else {
                text.append(scalar)
                continue
            }
            guard let escaped = peek() else { break }
            position += 1
            switch escaped {
            case "n": text.append("\n")
            case "t": text.append("\t")
            case "r": text.append("\r")
            case "0": text.append("\0")
            case "\\", "\"", "'": text.append(escaped)
            case "u": text.append(try readUnicodeEscape(backslash: position - 2))
            // Anything else stays as written, so that regular expressions (`\d`, `\b`) and
            // LIKE's `\*` pass through (P7).
            default:
                text.append("\\")
                text.append(escaped)
            }
        }
        throw .syntax("unterminated string", offset: start)
    }

    /// `\u00E9` or `\u{1F600}`.
    private mutating func readUnicodeEscape(backslash: Int) throws(ObjectPredicateError) -> Unicode.Scalar {
        var digits = ""
        if peek() == "{" {
            position += 1
            while let scalar = peek(), scalar != "}", digits.unicodeScalars.count <= 8 {
                digits.unicodeScalars.append(scalar)
                position += 1
            }
            guard peek() == "}" else { throw .syntax("invalid \\u{...} escape", offset: offset(backslash)) }
            position += 1
        } else {
            for _ in 0..<4 {
                guard let scalar = peek() else { break }
                digits.unicodeScalars.append(scalar)
                position += 1
            }
        }
        guard (1...8).contains(digits.unicodeScalars.count), digits.unicodeScalars.allSatisfy(Self.isHexDigit),
              let value = UInt32(digits, radix: 16), let scalar = Unicode.Scalar(value)
        else { throw .syntax("invalid \\u escape", offset: offset(backslash)) }
        return scalar
    }

    /// After the `%`: `@`, `K`, or a C conversion with an optional length (`%lld`, `%hu`, `%lf`).
    private mutating func readSpecifier(start: Int) throws(ObjectPredicateError) -> PredicateFormatSpecifier {
        var text = "%"
        func conversion(_ kind: PredicateFormatSpecifier.Conversion) -> PredicateFormatSpecifier {
            PredicateFormatSpecifier(conversion: kind, text: text)
        }
        while let scalar = peek(), "hlqLzjt".unicodeScalars.contains(scalar), text.count < 3 {
            text.unicodeScalars.append(scalar)
            position += 1
        }
        guard let scalar = peek() else { throw .syntax("incomplete format specifier '\(text)'", offset: start) }
        text.unicodeScalars.append(scalar)
        position += 1
        switch scalar {
        case "@" where text == "%@": return conversion(.object)
        case "K" where text == "%K": return conversion(.keyPath)
        case "d", "i", "u", "o", "x", "X": return conversion(.integer)
        case "f", "F", "e", "E", "g", "G", "a", "A": return conversion(.floatingPoint)
        default: throw .syntax("unknown format specifier '\(text)'", offset: start)
        }
    }
}

/// Strings, numbers and literals (RFC 8259 sections 6 and 7).
extension JSONParser {
    /// The string, number, `true`, `false` or `null` at `position`; nil, with nothing read,
    /// when no scalar starts there (a container, or a byte no value starts with).
    @inline(__always)
    mutating func parseScalar() throws(JSONError) -> JSONValue? {
        switch input[position] {
        case UInt8(ascii: "\""):
            return .string(try parseString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try parseNumber())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        default:
            return nil
        }
    }

    // MARK: Strings

    /// Reads the string whose opening quote is at `position`.
    ///
    /// The fast path scans eight bytes at a time for a quote, a backslash or a control
    /// character, noting on the way whether any byte is non-ASCII; a string without
    /// escapes then becomes a `String` straight from the input, checked for UTF-8 only when
    /// it is not all ASCII.
    mutating func parseString() throws(JSONError) -> String {
        let quote = position
        var index = position + 1
        let count = input.count
        var highBits: UInt64 = 0
        while true {
            while index + 8 <= count {
                let word = input.loadWord(at: index)
                if Self.mayEndString(word) { break }
                highBits |= word
                index += 8
            }
            let stop = min(index + 8, count)
            while index < stop {
                let byte = input[index]
                if byte == UInt8(ascii: "\"") {
                    let contents = UnsafeBufferPointer(rebasing: input[(quote + 1)..<index])
                    if highBits & 0x8080_8080_8080_8080 != 0, let bad = Self.firstIllFormedUTF8(in: contents) {
                        throw JSONError(.invalidUTF8, offset: base + quote + 1 + bad)
                    }
                    position = index + 1
                    return String(decoding: contents, as: UTF8.self)
                }
                if byte == UInt8(ascii: "\\") { return try parseEscapedString(quote: quote, firstEscape: index) }
                if byte < 0x20 { throw JSONError(.controlCharacterInString(byte), offset: base + index) }
                highBits |= UInt64(byte)
                index += 1
            }
            if index >= count { throw JSONError(.unterminatedString, offset: base + quote) }
        }
    }

    /// The contents of the string whose opening quote is at `position`, when it is all
    /// ASCII with no escape or control character: `position` is then past its closing
    /// quote, and the string is not built. Nil otherwise, with `position` unchanged: such
    /// a string is read by ``parseString()``, which builds it or says what is wrong.
    mutating func scanPlainASCIIString() -> UnsafeBufferPointer<UInt8>? {
        var index = position + 1
        let count = input.count
        var highBits: UInt64 = 0
        while index + 8 <= count {
            let word = input.loadWord(at: index)
            if Self.mayEndString(word) { break }
            highBits |= word
            index += 8
        }
        while index < count {
            let byte = input[index]
            if byte == UInt8(ascii: "\"") {
                guard highBits & 0x8080_8080_8080_8080 == 0 else { return nil }
                let contents = UnsafeBufferPointer(rebasing: input[(position + 1)..<index])
                position = index + 1
                return contents
            }
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
            index += 1
        }
        return nil
    }

    /// The slow path, from the first backslash: copies runs of plain bytes (validated)
    /// and decoded escapes into `unescaped`.
    private mutating func parseEscapedString(quote: Int, firstEscape: Int) throws(JSONError) -> String {
        unescaped.removeAll(keepingCapacity: true)
        var runStart = quote + 1
        var index = firstEscape
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                let run = UnsafeBufferPointer(rebasing: input[runStart..<index])
                if let bad = Self.firstIllFormedUTF8(in: run) {
                    throw JSONError(.invalidUTF8, offset: base + runStart + bad)
                }
                unescaped.append(contentsOf: run)
                if byte == UInt8(ascii: "\"") {
                    position = index + 1
                    return String(decoding: unescaped, as: UTF8.self)
                }
                index = try decodeEscape(at: index, quote: quote)
                runStart = index
            } else if byte < 0x20 {
                throw JSONError(.controlCharacterInString(byte), offset: base + index)
            } else {
                index += 1
            }
        }
        throw JSONError(.unterminatedString, offset: base + quote)
    }

    /// Decodes the escape whose backslash is at `backslash` into `unescaped`; returns the
    /// index after it.
    private mutating func decodeEscape(at backslash: Int, quote: Int) throws(JSONError) -> Int {
        guard backslash + 1 < input.count else { throw JSONError(.unterminatedString, offset: base + quote) }
        let simple: UInt8
        switch input[backslash + 1] {
        case UInt8(ascii: "\""): simple = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): simple = UInt8(ascii: "\\")
        case UInt8(ascii: "/"): simple = UInt8(ascii: "/")
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"):
            return try decodeUnicodeEscape(at: backslash, quote: quote)
        case let other:
            throw JSONError(.invalidEscape(other), offset: base + backslash)
        }
        unescaped.append(simple)
        return backslash + 2
    }

    /// `\uXXXX`, or a `\uD8xx\uDCxx` surrogate pair, at `backslash`.
    private mutating func decodeUnicodeEscape(at backslash: Int, quote: Int) throws(JSONError) -> Int {
        let unit = try hexQuad(at: backslash, quote: quote)
        var scalar = UInt32(unit)
        var end = backslash + 6
        switch unit {
        case 0xD800...0xDBFF:
            for index in end...(end + 1) {
                guard index < input.count else { throw JSONError(.unterminatedString, offset: base + quote) }
                guard input[index] == (index == end ? UInt8(ascii: "\\") : UInt8(ascii: "u")) else {
                    throw JSONError(.loneSurrogate(unit), offset: base + backslash)
                }
            }
            let low = try hexQuad(at: end, quote: quote)
            guard (0xDC00...0xDFFF).contains(low) else { throw JSONError(.loneSurrogate(unit), offset: base + backslash) }
            scalar = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            end += 6
        case 0xDC00...0xDFFF:
            throw JSONError(.loneSurrogate(unit), offset: base + backslash)
        default:
            break
        }
        appendUTF8(scalar)
        return end
    }

    /// Appends `scalar` (never a surrogate) as UTF-8.
    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            unescaped.append(UInt8(scalar))
        case 0x80..<0x800:
            unescaped.append(0xC0 | UInt8(scalar >> 6))
            unescaped.append(0x80 | UInt8(scalar & 0x3F))
        case 0x800..<0x10000:
            unescaped.append(0xE0 | UInt8(scalar >> 12))
            unescaped.append(0x80 | UInt8(scalar >> 6 & 0x3F))
            unescaped.append(0x80 | UInt8(scalar & 0x3F))
        default:
            unescaped.append(0xF0 | UInt8(scalar >> 18))
            unescaped.append(0x80 | UInt8(scalar >> 12 & 0x3F))
            unescaped.append(0x80 | UInt8(scalar >> 6 & 0x3F))
            unescaped.append(0x80 | UInt8(scalar & 0x3F))
        }
    }

    /// The four hexadecimal digits after the `\u` at `backslash`.
    private func hexQuad(at backslash: Int, quote: Int) throws(JSONError) -> UInt16 {
        var unit: UInt16 = 0
        for index in (backslash + 2)..<(backslash + 6) {
            guard index < input.count else { throw JSONError(.unterminatedString, offset: base + quote) }
            let byte = input[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw JSONError(.invalidUnicodeEscape, offset: base + backslash)
            }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }

    /// Whether any of the eight bytes of `word` is a quote, a backslash or below 0x20
    /// (the classic "has a zero byte" bit trick, exact for this question).
    @inline(__always)
    static func mayEndString(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ value: UInt64) -> Bool { (value &- ones) & ~value & highs != 0 }
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let control = (word &- ones &* 0x20) & ~word & highs
        return hasZeroByte(quote) || hasZeroByte(backslash) || control != 0
    }

    /// The index of the first byte of the first ill-formed sequence (Unicode 15, table
    /// 3-7), or nil when all of `bytes` is well-formed UTF-8.
    static func firstIllFormedUTF8(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var second: ClosedRange<UInt8> = 0x80...0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; second = 0xA0...0xBF
            case 0xED: length = 3; second = 0x80...0x9F
            case 0xE1...0xEF: length = 3
            case 0xF0: length = 4; second = 0x90...0xBF
            case 0xF4: length = 4; second = 0x80...0x8F
            case 0xF1...0xF3: length = 4
            default: return index
            }
            guard index + length <= bytes.count, second.contains(bytes[index + 1]) else { return index }
            for continuation in (index + 2)..<(index + length) where !(0x80...0xBF).contains(bytes[continuation]) {
                return index
            }
            index += length
        }
        return nil
    }

    // MARK: Numbers

    /// Reads `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` and keeps its text,
    /// or the value of a plain integer of up to 18 digits (not `-0`), or the digits, scale
    /// and sign of a number with a point and at most 15 digits (see ``JSONNumber``).
    mutating func parseNumber() throws(JSONError) -> JSONNumber {
        let start = position
        let isNegative = input[position] == UInt8(ascii: "-")
        if isNegative { position += 1 }
        guard position < input.count, input[position].isDigit else { throw unexpected(.digitAfterMinus) }
        let digitsStart = position
        // Digits are read with their value in one pass (wrapping past 18 of them, where
        // the value is not used): a pass to find them and another to add them up was a
        // fifth of reading a record's numbers.
        let whole: Int64
        if input[position] == UInt8(ascii: "0") {
            position += 1
            if position < input.count, input[position].isDigit { throw JSONError(.leadingZero, offset: base + position - 1) }
            whole = 0
        } else {
            whole = readDigits()
        }
        let isPlain = position == input.count || (input[position] != UInt8(ascii: ".") && input[position] | 0x20 != UInt8(ascii: "e"))
        if isPlain, position - digitsStart <= 18, !(isNegative && input[digitsStart] == UInt8(ascii: "0")) {
            return JSONNumber(integer: isNegative ? -whole : whole)
        }
        if position < input.count, input[position] == UInt8(ascii: ".") {
            let integerEnd = position
            position += 1
            guard position < input.count, input[position].isDigit else { throw unexpected(.digitAfterDecimalPoint) }
            let fractionStart = position
            let fraction = readDigits()
            let digits = integerEnd - digitsStart + position - fractionStart
            if digits <= 15, position == input.count || input[position] | 0x20 != UInt8(ascii: "e") {
                let scale = position - fractionStart
                return JSONNumber(decimal: whole &* JSONNumber.scalePowers[scale] &+ fraction, scale: scale, isNegative: isNegative)
            }
        }
        if position < input.count, input[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < input.count, input[position] == UInt8(ascii: "+") || input[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < input.count, input[position].isDigit else { throw unexpected(.exponentDigit) }
            _ = readDigits()
        }
        return JSONNumber(text: String(decoding: UnsafeBufferPointer(rebasing: input[start..<position]), as: UTF8.self))
    }

    /// Reads the ASCII digits at `position`; their value (wrapping past 18 of them).
    @inline(__always)
    private mutating func readDigits() -> Int64 {
        var value: Int64 = 0
        while position < input.count {
            let digit = input[position] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            value = value &* 10 &+ Int64(digit)
            position += 1
        }
        return value
    }

    // MARK: Literals

    /// `true`, `false` or `null` at `position`.
    mutating func expectLiteral(_ word: StaticString) throws(JSONError) {
        for index in 0..<word.utf8CodeUnitCount {
            guard position < input.count, input[position] == word.utf8Start[index] else {
                throw unexpected(.literal(String(describing: word)))
            }
            position += 1
        }
    }
}

extension UInt8 {
    fileprivate var isDigit: Bool { self &- UInt8(ascii: "0") < 10 }
}

extension UnsafeBufferPointer<UInt8> {
    /// Eight bytes from `index`, the first in the lowest bits.
    @inline(__always)
    func loadWord(at index: Int) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(baseAddress!).loadUnaligned(fromByteOffset: index, as: UInt64.self))
    }
}

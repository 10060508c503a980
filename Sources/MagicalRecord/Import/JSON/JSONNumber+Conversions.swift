import Foundation

/// Conversions from a number's literal text, all exact or nil: the importer chooses the
/// attribute's type, and a value that does not fit it is reported rather than rounded.
extension JSONNumber {
    /// The integer the text spells, or nil when it is not a whole number or lies outside
    /// `Int64`.
    ///
    /// Whole numbers written with a fraction or an exponent convert too, because JSON
    /// writers disagree on how to spell them: `"1.0"` → 1, `"1e2"` → 100, `"2.50e1"` → 25,
    /// `"-0"` → 0. `"1.5"`, `"1e-2"` and `"9223372036854775808"` → nil.
    public var int64Value: Int64? {
        if let stored = storedInteger { return stored }
        if let plain = plainInteger { return plain }
        guard let digits = significantDigits(), let magnitude = digits.magnitude else { return nil }
        guard magnitude != 0 else { return 0 }
        // The significand ends in a nonzero digit: a negative scale leaves a fraction.
        guard (0...19).contains(digits.scale) else { return nil }
        let (scaled, overflow) = magnitude.multipliedReportingOverflow(by: Self.powersOfTen[digits.scale])
        guard !overflow else { return nil }
        if digits.isNegative {
            guard scaled <= UInt64(Int64.max) + 1 else { return nil }
            return scaled == UInt64(Int64.max) + 1 ? Int64.min : -Int64(scaled)
        }
        guard scaled <= UInt64(Int64.max) else { return nil }
        return Int64(scaled)
    }

    /// The decimal the text spells, read in the POSIX locale; nil when `Decimal` cannot
    /// hold it exactly: more than 38 significant digits, or a magnitude beyond about
    /// 1e-128...1e165 (`Decimal`'s exponent range). `Decimal(string:)` alone would round
    /// the 39th digit away silently.
    public var decimalValue: Decimal? {
        guard let digits = significantDigits(), digits.count <= 38 else { return nil }
        return DecimalText.parse(text)
    }

    /// The nearest `Double` (correctly rounded, so integers up to 2^53 are exact); nil
    /// when the magnitude is beyond `Double.greatestFiniteMagnitude`. Tiny numbers round
    /// to zero as the floating-point rules say.
    public var doubleValue: Double? {
        // Int64 to Double rounds to the nearest, as reading the digits does.
        if let stored = storedInteger { return Double(stored) }
        if let stored = storedDecimal { return stored }
        if let short = shortDecimal { return short }
        guard let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// The value of text that is a minus sign, digits and a point, with at most 15 digits:
    /// their integer and the power of ten it is divided by are both exact doubles, so one
    /// division, correctly rounded, gives the nearest double to the text, as the general
    /// parser does (Clinger's fast path), without its copy of the text. Nil for any other
    /// text.
    private var shortDecimal: Double? {
        let parsed = text.utf8.withContiguousStorageIfAvailable { bytes -> Double? in
            let isNegative = bytes.first == UInt8(ascii: "-")
            var mantissa: Int64 = 0
            var digits = 0
            var pointAt: Int?
            for byte in isNegative ? bytes.dropFirst() : bytes[...] {
                if byte == UInt8(ascii: "."), pointAt == nil {
                    pointAt = digits
                    continue
                }
                let digit = byte &- UInt8(ascii: "0")
                guard digit < 10, digits < Self.exactPowersOfTen.count - 1 else { return nil }
                mantissa = mantissa * 10 + Int64(digit)
                digits += 1
            }
            guard digits > 0 else { return nil }
            let value = Double(mantissa) / Self.exactPowersOfTen[digits - (pointAt ?? digits)]
            return isNegative ? -value : value
        }
        return parsed ?? nil
    }

    /// 10^0 through 10^15: each exact in a double, as is every integer of up to 15 digits.
    private static let exactPowersOfTen: [Double] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15]

    /// The value of text that is only a minus sign and up to 18 digits, which cannot
    /// overflow: most integers in JSON, read in one pass without the general path's
    /// significand and scale. Nil for any other text.
    private var plainInteger: Int64? {
        let parsed = text.utf8.withContiguousStorageIfAvailable { bytes -> Int64? in
            let isNegative = bytes.first == UInt8(ascii: "-")
            let digits = isNegative ? bytes.dropFirst() : bytes[...]
            guard !digits.isEmpty, digits.count <= 18 else { return nil }
            var value: Int64 = 0
            for byte in digits {
                let digit = byte &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value &* 10 &+ Int64(digit)
            }
            return isNegative ? -value : value
        }
        return parsed ?? nil
    }

    private static let powersOfTen: [UInt64] = (0...19).map { exponent in
        (0..<exponent).reduce(1) { power, _ in power * 10 }
    }

    /// The text as ±significand × 10^scale, the significand without leading or trailing
    /// zeros; nil if the text is not number syntax (only possible through `init(text:)`).
    private func significantDigits() -> (isNegative: Bool, magnitude: UInt64?, count: Int, scale: Int)? {
        var bytes = text.utf8[...]
        let isNegative = bytes.first == UInt8(ascii: "-")
        if isNegative { bytes = bytes.dropFirst() }
        var magnitude: UInt64? = 0
        var count = 0
        var pendingZeros = 0
        var fractionDigits = 0
        var sawDigit = false
        var inFraction = false
        while let byte = bytes.first, byte != UInt8(ascii: "e"), byte != UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if byte == UInt8(ascii: "."), !inFraction {
                inFraction = true
                continue
            }
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            sawDigit = true
            if inFraction { fractionDigits += 1 }
            let digit = UInt64(byte - UInt8(ascii: "0"))
            if digit == 0 {
                pendingZeros += 1
                continue
            }
            // A nonzero digit: the pending zeros were inside the significand after all.
            if count > 0 { count += pendingZeros }
            count += 1
            for _ in 0..<(magnitude == 0 ? 0 : pendingZeros) { magnitude = magnitude.flatMap { $0.timesTen } }
            magnitude = magnitude.flatMap { $0.timesTen }.flatMap { $0.addingIfNoOverflow(digit) }
            pendingZeros = 0
        }
        guard sawDigit else { return nil }
        var exponent = 0
        if !bytes.isEmpty {
            bytes = bytes.dropFirst()
            let isNegativeExponent = bytes.first == UInt8(ascii: "-")
            if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
            guard !bytes.isEmpty else { return nil }
            for byte in bytes {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                // Saturate: any exponent this large is out of every range anyway.
                exponent = min(exponent * 10 + Int(byte - UInt8(ascii: "0")), 1 << 40)
            }
            if isNegativeExponent { exponent = -exponent }
        }
        return (isNegative, magnitude, count, exponent - fractionDigits + pendingZeros)
    }
}

extension UInt64 {
    fileprivate var timesTen: UInt64? {
        let (result, overflow) = multipliedReportingOverflow(by: 10)
        return overflow ? nil : result
    }

    fileprivate func addingIfNoOverflow(_ other: UInt64) -> UInt64? {
        let (result, overflow) = addingReportingOverflow(other)
        return overflow ? nil : result
    }
}

/// A JSON number, as written (`-12`, `1.5e3`).
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// Most numbers in JSON are kept as values that spell their text exactly, so reading
    /// one makes no string that each conversion would read again; anything else as its
    /// text.
    private enum Storage: Sendable {
        /// An integer `Int64` holds, whose text is `String(value)` (the parser keeps those
        /// of up to 18 digits this way, never `-0`).
        case integer(Int64)
        /// Digits with a point, at most 15 in all (so their integer and the power of ten
        /// below it are exact doubles): `digits` with the point `scale` digits from the
        /// right, and the sign apart, for `-0.0`. `12.50` is (1250, 2, false).
        case decimal(digits: Int64, scale: Int, isNegative: Bool)
        case text(String)
    }

    private let storage: Storage

    public init(text: String) {
        storage = .text(text)
    }

    /// A number whose text is `String(value)`.
    init(integer value: Int64) {
        storage = .integer(value)
    }

    /// A number whose text is `digits` with a point `scale` digits from the right (1...15
    /// of them, and at most 15 digits in all), a zero before the point when no digit is,
    /// and a minus sign when `isNegative`.
    init(decimal digits: Int64, scale: Int, isNegative: Bool) {
        storage = .decimal(digits: digits, scale: scale, isNegative: isNegative)
    }

    /// The literal, valid JSON number syntax.
    public var text: String {
        switch storage {
        case .integer(let value):
            return String(value)
        case .decimal(let digits, let scale, let isNegative):
            let power = Self.scalePowers[scale]
            let fraction = String(digits % power)
            return (isNegative ? "-" : "") + String(digits / power) + "."
                + String(repeating: "0", count: scale - fraction.count) + fraction
        case .text(let text):
            return text
        }
    }

    /// The value when the number is stored as a plain integer.
    var storedInteger: Int64? {
        if case .integer(let value) = storage { return value }
        return nil
    }

    /// The nearest double when the number is stored as digits with a point: their integer
    /// over a power of ten, both exact, so one division gives the nearest double, as
    /// reading the text does.
    var storedDecimal: Double? {
        guard case .decimal(let digits, let scale, let isNegative) = storage else { return nil }
        let value = Double(digits) / Double(Self.scalePowers[scale])
        return isNegative ? -value : value
    }

    public var description: String { text }

    /// Numbers are equal when their texts are, however they are stored.
    public static func == (left: JSONNumber, right: JSONNumber) -> Bool {
        switch (left.storage, right.storage) {
        case (.integer(let leftValue), .integer(let rightValue)):
            return leftValue == rightValue
        case (.decimal(let leftDigits, let leftScale, let leftSign), .decimal(let rightDigits, let rightScale, let rightSign)):
            return (leftDigits, leftScale, leftSign) == (rightDigits, rightScale, rightSign)
        default:
            return left.text == right.text
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(text)
    }

    /// 10^0 through 10^15: the scales a decimal kept as a value may have (the parser
    /// builds its digits with them too).
    static let scalePowers: [Int64] = (0...15).map { exponent in (0..<exponent).reduce(1) { power, _ in power * 10 } }
}

import Foundation

extension DateFormatPattern {
    /// Where each field of a pattern of numbers and literals lies in a text that writes
    /// every number with as many digits as the pattern has letters (`yyyy-MM-dd'T'HH:mm:ss`
    /// and `2011-07-23T22:30:40`): the timestamps machines write, read at fixed offsets.
    ///
    /// A text of that shape reads here as the general parser reads it: each number is a run
    /// of digits ended by a literal without digits (or by the end), which is all the digits
    /// a greedy field takes. Any other text (a shorter number, a zone other than `Z`, a
    /// value out of range) is left to the general parser, which also says what is wrong.
    struct FixedLayout: Sendable {
        /// A number field: its place in the text and which value it gives, as an index into
        /// year, month, day, hour, minute, second (plain integers, read without copying an
        /// enum per field).
        struct Field: Sendable {
            let offset: Int
            let width: Int
            let value: Int
        }

        /// A literal: its place in the text and its bytes in the pattern's `literalBytes`.
        struct Literal: Sendable {
            let offset: Int
            let start: Int
            let count: Int
        }

        let fields: [Field]
        let literals: [Literal]
        /// The text's length without a zone.
        let length: Int
        /// The pattern ends with a zone, which here may be missing or `Z`.
        let endsWithZone: Bool

        /// The layout of `elements`, or nil when they hold anything else than number fields
        /// of one run of digits each (no fraction, no two-digit year, 0-23 hours, at most
        /// nine digits), literals without digits, and a zone at the end.
        init?(elements: [Element], letterCounts: [Int], literalBytes: [UInt8]) {
            var fields: [Field] = []
            var literals: [Literal] = []
            var offset = 0
            var endsWithZone = false
            for (index, element) in elements.enumerated() {
                switch element {
                case .literal(let range):
                    guard !literalBytes[range].contains(where: NumericText.isDigit) else { return nil }
                    literals.append(Literal(offset: offset, start: range.lowerBound, count: range.count))
                    offset += range.count
                case .number(let kind, .greedy):
                    let value: Int
                    switch kind {
                    case .year(twoDigitWindow: false): value = 0
                    case .month: value = 1
                    case .day: value = 2
                    case .hour(.from0To23): value = 3
                    case .minute: value = 4
                    case .second: value = 5
                    default: return nil
                    }
                    guard letterCounts[index] <= 9 else { return nil }
                    fields.append(Field(offset: offset, width: letterCounts[index], value: value))
                    offset += letterCounts[index]
                case .zone(optional: true) where index == elements.count - 1:
                    endsWithZone = true
                default:
                    return nil
                }
            }
            self.fields = fields
            self.literals = literals
            length = offset
            self.endsWithZone = endsWithZone
        }

        /// The date `bytes` spell in this layout, or nil to ask the general parser.
        func date(_ bytes: UnsafeBufferPointer<UInt8>, literalBytes: [UInt8]) -> Date? {
            guard bytes.count == length || (endsWithZone && bytes.count == length + 1 && bytes[length] == UInt8(ascii: "Z")) else {
                return nil
            }
            // Year, month, day, hour, minute, second; fields the pattern lacks keep
            // DateFormatter's defaults, 2000-01-01 00:00:00.
            var values = (2000, 1, 1, 0, 0, 0)
            let read = literalBytes.withUnsafeBufferPointer { pattern in
                literals.withUnsafeBufferPointer { literals in
                    fields.withUnsafeBufferPointer { fields in
                        withUnsafeMutableBytes(of: &values) { raw in
                            Self.read(bytes, pattern: pattern, literals: literals, fields: fields, into: raw.bindMemory(to: Int.self))
                        }
                    }
                }
            }
            let (year, month, day, hour, minute, second) = values
            guard read, year >= 1, (1...12).contains(month), (1...31).contains(day), hour <= 23, minute <= 59, second <= 59,
                  day <= CivilCalendar.daysIn(month: month, year: year)
            else { return nil }
            let days = CivilCalendar.days(year: year, month: month, day: day)
            return DateFormatPattern.date(seconds: days * 86_400 + hour * 3600 + minute * 60 + second, fraction: 0, digits: 0)
        }

        /// Checks the literals and reads the numbers into `values`; false when the text
        /// does not have the layout's shape. Plain loops over buffers: a date is read per
        /// record imported.
        private static func read(
            _ bytes: UnsafeBufferPointer<UInt8>, pattern: UnsafeBufferPointer<UInt8>, literals: UnsafeBufferPointer<Literal>,
            fields: UnsafeBufferPointer<Field>, into values: UnsafeMutableBufferPointer<Int>
        ) -> Bool {
            for literal in literals {
                var index = 0
                while index < literal.count {
                    guard bytes[literal.offset + index] == pattern[literal.start + index] else { return false }
                    index += 1
                }
            }
            for field in fields {
                var value = 0
                var index = field.offset
                let end = field.offset + field.width
                while index < end {
                    let digit = bytes[index] &- UInt8(ascii: "0")
                    guard digit < 10 else { return false }
                    value = value &* 10 &+ Int(digit)
                    index += 1
                }
                // A digit right after the field would belong to it.
                if end < bytes.count, NumericText.isDigit(bytes[end]) { return false }
                values[field.value] = value
            }
            return true
        }
    }
}

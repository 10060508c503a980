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
        /// Where a number lies in the text; a width of 0 for one the pattern lacks.
        struct Span: Sendable {
            let offset: Int
            let width: Int
        }

        /// The text without its zone, byte by byte: a literal's byte where the pattern has
        /// one, ``digit`` where a number's digit goes.
        let template: [UInt8]
        /// ``template`` as words of 8 bytes, to check a text a word at a time (a loop per
        /// literal and per field was most of reading a date); the last word ends
        /// where the text does, overlapping the one before. Empty for a text under 8 bytes.
        let words: [TemplateWord]
        /// Each number by name, read without a loop over the fields: a date is read per
        /// record imported.
        let year, month, day, hour, minute, second: Span
        /// The pattern ends with a zone, which here may be missing or `Z`.
        let endsWithZone: Bool
        /// Stands for a digit in ``template``: no byte of UTF-8 text is 0xFF.
        private static let digit: UInt8 = 0xFF

        /// Eight bytes of the template at `offset`: the literal bytes expected (under
        /// `literalMask`) and where digits go (the high bit of each such byte in `digitMask`).
        struct TemplateWord: Sendable {
            let offset: Int
            let literals: UInt64
            let literalMask: UInt64
            let digitMask: UInt64
        }

        /// The layout of `elements`, or nil when they hold anything else than number fields
        /// of one run of digits each (no fraction, no two-digit year, 0-23 hours, at most
        /// nine digits), each followed by a literal without digits, by the zone or by the
        /// end (two numbers side by side are the general parser's: the first would take
        /// the second's digits), and a zone at the end.
        init?(elements: [Element], letterCounts: [Int], literalBytes: [UInt8]) {
            // Year, month, day, hour, minute, second.
            var spans = [Span](repeating: Span(offset: 0, width: 0), count: 6)
            var template: [UInt8] = []
            var endsWithZone = false
            var followsNumber = false
            for (index, element) in elements.enumerated() {
                switch element {
                case .literal(let range):
                    guard !literalBytes[range].contains(where: NumericText.isDigit) else { return nil }
                    template.append(contentsOf: literalBytes[range])
                    followsNumber = false
                case .number(let kind, .greedy):
                    let place: Int
                    switch kind {
                    case .year(twoDigitWindow: false): place = 0
                    case .month: place = 1
                    case .day: place = 2
                    case .hour(.from0To23): place = 3
                    case .minute: place = 4
                    case .second: place = 5
                    default: return nil
                    }
                    guard letterCounts[index] <= 9, !followsNumber else { return nil }
                    spans[place] = Span(offset: template.count, width: letterCounts[index])
                    template.append(contentsOf: repeatElement(Self.digit, count: letterCounts[index]))
                    followsNumber = true
                case .zone(optional: true) where index == elements.count - 1:
                    endsWithZone = true
                default:
                    return nil
                }
            }
            self.template = template
            (year, month, day, hour, minute, second) = (spans[0], spans[1], spans[2], spans[3], spans[4], spans[5])
            self.endsWithZone = endsWithZone
            // Words from the start, the last one moved back to end with the text.
            let offsets = template.count < 8 ? [] : Set(stride(from: 0, to: template.count, by: 8).map { min($0, template.count - 8) }).sorted()
            words = offsets.map { Self.word(of: template, at: $0) }
        }

        private static func word(of template: [UInt8], at offset: Int) -> TemplateWord {
            var literals: UInt64 = 0, literalMask: UInt64 = 0, digitMask: UInt64 = 0
            for (index, byte) in template[offset..<offset + 8].enumerated() {
                let shift = UInt64(8 * index)
                if byte == digit {
                    digitMask |= 0x80 << shift
                } else {
                    literals |= UInt64(byte) << shift
                    literalMask |= 0xFF << shift
                }
            }
            return TemplateWord(offset: offset, literals: literals, literalMask: literalMask, digitMask: digitMask)
        }

        /// Whether `bytes` (at least as long as the template) has the template's literals
        /// and digits where it has them.
        private func matches(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            guard !words.isEmpty else {
                return template.withUnsafeBufferPointer { template in
                    for index in template.indices {
                        let expected = template[index]
                        let byte = bytes[index]
                        guard expected == Self.digit ? byte &- UInt8(ascii: "0") < 10 : byte == expected else { return false }
                    }
                    return true
                }
            }
            let raw = UnsafeRawBufferPointer(bytes)
            return words.withUnsafeBufferPointer { words in
                for word in words {
                    let text = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: word.offset, as: UInt64.self))
                    guard (text ^ word.literals) & word.literalMask == 0 else { return false }
                    // A digit XOR "0" is under 10: adding 0x76 to its low seven bits leaves
                    // the high bit clear (no carry into the next byte), which any other byte sets.
                    let offset = text ^ 0x3030_3030_3030_3030
                    guard (((offset & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7676_7676_7676_7676) | offset) & word.digitMask == 0 else { return false }
                }
                return true
            }
        }

        /// The date `bytes` spell in this layout, or nil to ask the general parser.
        func date(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
            let length = template.count
            guard bytes.count == length || (endsWithZone && bytes.count == length + 1 && bytes[length] == UInt8(ascii: "Z")) else {
                return nil
            }
            guard matches(bytes) else { return nil }
            // Fields the pattern lacks keep DateFormatter's defaults, 2000-01-01 00:00:00.
            let year = Self.number(bytes, self.year, absent: 2000), month = Self.number(bytes, self.month, absent: 1)
            let day = Self.number(bytes, self.day, absent: 1), hour = Self.number(bytes, self.hour, absent: 0)
            let minute = Self.number(bytes, self.minute, absent: 0), second = Self.number(bytes, self.second, absent: 0)
            guard year >= 1, (1...12).contains(month), (1...31).contains(day), hour <= 23, minute <= 59, second <= 59,
                  day <= CivilCalendar.daysIn(month: month, year: year)
            else { return nil }
            let days = CivilCalendar.days(year: year, month: month, day: day)
            return DateFormatPattern.date(seconds: days * 86_400 + hour * 3600 + minute * 60 + second, fraction: 0, digits: 0)
        }

        /// The number `span` covers in `bytes` (checked to be digits), or `absent`.
        @inline(__always)
        private static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ span: Span, absent: Int) -> Int {
            guard span.width > 0 else { return absent }
            var number = 0
            var index = span.offset
            let end = span.offset &+ span.width
            while index < end {
                number = number &* 10 &+ Int(bytes[index] &- UInt8(ascii: "0"))
                index &+= 1
            }
            return number
        }
    }
}

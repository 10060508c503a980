/// Turns a pattern's text into ``DateFormatPattern/Element``s: runs of one ASCII letter are
/// fields, `'...'` quotes literal text (`''` is a quote, inside quotes or out), anything
/// else is literal as it stands.
struct DateFormatCompiler {
    /// What a field fills in; each may appear once.
    enum FieldKind: String, Hashable {
        case year, month, day, hour, minute, second, fraction = "fraction of a second", weekday, dayPeriod = "AM/PM marker", zone = "time zone"
    }

    let format: String
    private(set) var elements: [DateFormatPattern.Element] = []
    private(set) var literalBytes: [UInt8] = []
    /// Letters per element (0 for literals): touching number fields take that many digits.
    private(set) var letterCounts: [Int] = []
    /// Each field kind seen, with the letters that gave it.
    private var seen: [FieldKind: String] = [:]

    init(format: String) {
        self.format = format
    }

    func hasFields(_ kinds: Set<FieldKind>) -> Bool {
        kinds.allSatisfy { seen[$0] != nil }
    }

    mutating func compile() throws(DateFormatError) {
        let bytes = Array(format.utf8)
        let quote = UInt8(ascii: "'")
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == quote {
                if index + 1 < bytes.count, bytes[index + 1] == quote {
                    appendLiteral(quote)
                    index += 2
                    continue
                }
                let opening = index
                index += 1
                var closed = false
                while index < bytes.count {
                    if bytes[index] == quote {
                        if index + 1 < bytes.count, bytes[index + 1] == quote {
                            appendLiteral(quote)
                            index += 2
                            continue
                        }
                        closed = true
                        index += 1
                        break
                    }
                    appendLiteral(bytes[index])
                    index += 1
                }
                guard closed else { throw failure("the quote at offset \(opening) is not closed") }
            } else if Self.isASCIILetter(byte) {
                var count = 1
                while index + count < bytes.count, bytes[index + count] == byte { count += 1 }
                try addField(letter: byte, count: count)
                index += count
            } else {
                appendLiteral(byte)
                index += 1
            }
        }
        try checkFields()
        assignWidths()
        if case .zone = elements.last {
            elements[elements.count - 1] = .zone(optional: true)
        }
    }

    private mutating func appendLiteral(_ byte: UInt8) {
        if case .literal(let range) = elements.last, range.upperBound == literalBytes.count {
            elements[elements.count - 1] = .literal(range.lowerBound..<range.upperBound + 1)
        } else {
            elements.append(.literal(literalBytes.count..<literalBytes.count + 1))
            letterCounts.append(0)
        }
        literalBytes.append(byte)
    }

    private mutating func addField(letter: UInt8, count: Int) throws(DateFormatError) {
        let letters = String(repeating: Character(Unicode.Scalar(letter)), count: count)
        let element: DateFormatPattern.Element
        let kind: FieldKind
        switch Unicode.Scalar(letter) {
        case "y":
            (element, kind) = (.number(.year(twoDigitWindow: count <= 2), .greedy), .year)
        case "M", "L":
            guard count <= 4 else { throw failure("\(letters) (narrow month names) is not supported: use MMM or MMMM") }
            (element, kind) = (count <= 2 ? .number(.month, .greedy) : .monthName, .month)
        case "d":
            (element, kind) = (.number(.day, .greedy), .day)
        case "H":
            (element, kind) = (.number(.hour(.from0To23), .greedy), .hour)
        case "k":
            (element, kind) = (.number(.hour(.from1To24), .greedy), .hour)
        case "h":
            (element, kind) = (.number(.hour(.from1To12), .greedy), .hour)
        case "K":
            (element, kind) = (.number(.hour(.from0To11), .greedy), .hour)
        case "m":
            (element, kind) = (.number(.minute, .greedy), .minute)
        case "s":
            (element, kind) = (.number(.second, .greedy), .second)
        case "S":
            (element, kind) = (.number(.fraction, .greedy), .fraction)
        case "E":
            guard count <= 4 else { throw failure("\(letters) (narrow or short weekday names) is not supported: use EEE or EEEE") }
            (element, kind) = (.weekdayName, .weekday)
        case "a":
            guard count <= 3 else { throw failure("\(letters) (narrow AM/PM markers) is not supported: use a") }
            (element, kind) = (.dayPeriod, .dayPeriod)
        case "Z", "X", "x":
            guard count <= 5 else { throw failure("\(letters) is not a time zone field: use at most five letters") }
            (element, kind) = (.zone(optional: false), .zone)
        case "O":
            guard count == 1 || count == 4 else { throw failure("\(letters) is not a time zone field: use O or OOOO") }
            (element, kind) = (.zone(optional: false), .zone)
        case "z":
            guard count <= 3 else {
                throw failure("\(letters) (long time zone names such as Pacific Standard Time) is not supported: use z, Z or XXX")
            }
            (element, kind) = (.zone(optional: false), .zone)
        default:
            throw failure(Self.unsupported(letter))
        }
        if let earlier = seen[kind] {
            throw failure("\(letters) repeats the \(kind.rawValue), already given by \(earlier)")
        }
        seen[kind] = letters
        elements.append(element)
        letterCounts.append(count)
    }

    private func checkFields() throws(DateFormatError) {
        guard !seen.isEmpty else { throw failure("it has no date fields (letters such as yyyy, MM, dd)") }
        if let marker = seen[.dayPeriod], let hour = seen[.hour], let first = hour.first, first == "H" || first == "k" {
            throw failure("\(marker) (AM/PM) goes with a 12-hour hour (h or K), not \(hour)")
        }
    }

    /// Number fields that touch (`yyyyMMdd`, `HHmmss`) cannot each take all the digits
    /// there are: as `DateFormatter` does, each takes as many digits as it has letters, and
    /// the first of the run takes what the others leave.
    private mutating func assignWidths() {
        var index = 0
        while index < elements.count {
            guard case .number = elements[index] else {
                index += 1
                continue
            }
            var end = index + 1
            while end < elements.count, case .number = elements[end] { end += 1 }
            if end - index > 1 {
                for position in index..<end {
                    guard case .number(let field, _) = elements[position] else { continue }
                    let width: DateFormatPattern.Width = position == index
                        ? .leaving(letterCounts[(index + 1)..<end].reduce(0, +))
                        : .exactly(letterCounts[position])
                    elements[position] = .number(field, width)
                }
            }
            index = end
        }
    }

    private func failure(_ reason: String) -> DateFormatError {
        DateFormatError(format: format, reason: reason)
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    /// Why a letter is refused, for the letters `DateFormatter` knows and this parser does not.
    private static func unsupported(_ letter: UInt8) -> String {
        let name = Character(Unicode.Scalar(letter))
        let meanings: [Character: String] = [
            "G": "era", "u": "extended year", "U": "cyclic year name", "r": "related Gregorian year",
            "Q": "quarter", "q": "quarter", "w": "week of year", "W": "week of month", "D": "day of year",
            "F": "weekday in month", "g": "modified Julian day", "e": "local weekday", "c": "local weekday",
            "b": "day period", "B": "day period", "A": "milliseconds in day", "v": "generic time zone name",
            "V": "time zone identifier", "j": "preferred hour", "J": "preferred hour", "C": "preferred hour",
        ]
        if name == "Y" {
            return "Y is the week-based year, which differs from the calendar year around New Year: use y"
        }
        if let meaning = meanings[name] { return "\(name) (\(meaning)) is not supported" }
        return "'\(name)' is not a date field letter: quote literal letters, as in 'T'"
    }
}

/// The reader's engine: an iterative parser over a window of bytes.
///
/// Open containers live on `frames`, and the finished values and member names of open
/// containers on the `values` and `names` stacks; a container is built once, at its final
/// size, when it closes. Scratch stacks are kept between values, so a stream reading
/// elements one by one reuses them.
///
/// Resumable between values: ``JSONArrayStream`` attaches a fresh window for each
/// element and drives the same `beginArray`/`continueArray` steps the parser uses inside
/// arrays, so a stream throws exactly the errors, at exactly the offsets, that reading the
/// whole document would.
struct JSONParser: ~Copyable {
    let allowsTrailingCommas: Bool
    let maximumDepth: Int
    let matchesRepeatedNames: Bool

    /// The bytes being read; only valid during the call that attached them.
    private(set) var input = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    /// The absolute offset of `input[0]`, for errors.
    private(set) var base = 0
    /// The next byte to read, as an index into `input`.
    var position = 0

    private var frames: [Frame] = []
    var values = JSONScratchStack<JSONValue>()
    private var names = JSONScratchStack<String>()
    /// The member names of the objects read last, most recent first: the records of an
    /// array usually repeat one set of names, which their objects then share.
    private var recentNames: [JSONMemberNames] = []
    /// The names read last (`recentNames[0]`) as the input would spell them, by place (nil
    /// for one only an escape can spell): the next object's member names are matched in
    /// place against them. Bytes of a spelling past its first 8 are in `expectedTails`.
    private(set) var expected: [ExpectedSpelling?] = []
    private var expectedTails: [UInt8] = []
    /// Counts the times `expected` was set: an object whose names all matched it in place,
    /// with no other list expected meanwhile, has exactly `recentNames[0]`'s names.
    private var expectation = 0

    /// Plain values, so that comparing a name copies no string.
    struct ExpectedSpelling {
        /// The spelling's first 8 bytes, with its closing quote when that fits, as a
        /// little-endian word, and the mask of the bytes that count in it.
        let head: UInt64
        let mask: UInt64
        /// Bytes in the name; those past the first 8 are at `tailStart` in `expectedTails`.
        let length: Int
        let tailStart: Int
    }
    /// Scratch for strings with escapes.
    var unescaped: [UInt8] = []
    /// The names `unbuiltFlags` were asked for (``parseValue(depth:inPlace:unbuiltStrings:)``).
    private var unbuiltFor: JSONMemberNames?
    /// By place in `unbuiltFor`: whether a flat object's plain ASCII string there is left
    /// unbuilt; empty when none is.
    private(set) var unbuiltFlags: [Bool] = []
    /// The flat object read last: its unbuilt strings' bytes by member, a nil base where
    /// the value was built.
    var unbuilt: [UnsafeBufferPointer<UInt8>] = []

    private struct Frame {
        var isObject: Bool
        var valuesStart: Int
        var namesStart: Int
        /// `expectation` when the container opened.
        var expectation: Int
        /// Member names read so far that matched the expected ones in place.
        var namesMatched = 0
    }

    init(_ reader: JSONReader) {
        allowsTrailingCommas = reader.allowsTrailingCommas
        maximumDepth = reader.maximumDepth
        matchesRepeatedNames = reader.matchesRepeatedNames
    }

    mutating func attach(_ bytes: UnsafeRawBufferPointer, base: Int, position: Int) {
        input = bytes.assumingMemoryBound(to: UInt8.self)
        self.base = base
        self.position = position
    }

    // MARK: Values

    /// Reads one value at `position` (after any whitespace) and stops right after it.
    /// `depth` is the number of containers already open around it.
    mutating func parseValue(depth: Int) throws(JSONError) -> JSONValue {
        // Never nil: not reading in place, every value is built.
        try parse(depth: depth, readsInPlace: false, { _ in }, unbuiltStrings: { _ in [] }) ?? .null
    }

    /// ``parseValue(depth:)``, except that an object whose member names are those of an
    /// object read before (the records of an array, as a rule) is not built: `inPlace`
    /// gets its members where they lie, valid during the call only, and nil is returned.
    /// Building a record's object was an allocation, and taking it apart again, per record.
    ///
    /// `unbuiltStrings` says, for a list of names, at which places such an object's plain
    /// ASCII strings may be left unbuilt (``JSONObjectView/unbuiltString(atMember:)``): a
    /// caller that reads a date from the bytes spares the string's allocation. It is asked
    /// once per list.
    mutating func parseValue(
        depth: Int, inPlace: (JSONObjectView) -> Void, unbuiltStrings: (JSONMemberNames) -> [Bool] = { _ in [] }
    ) throws(JSONError) -> JSONValue? {
        try parse(depth: depth, readsInPlace: true, inPlace, unbuiltStrings: unbuiltStrings)
    }

    private mutating func parse(
        depth: Int, readsInPlace: Bool, _ inPlace: (JSONObjectView) -> Void, unbuiltStrings: (JSONMemberNames) -> [Bool]
    ) throws(JSONError) -> JSONValue? {
        frames.removeAll(keepingCapacity: true)
        values.removeAll()
        names.removeAll()
        skipWhitespace()
        // An object repeating the names of the one before: the records of an array. (Its
        // depth needs no check: that object was read at the same depth or deeper.)
        if readsInPlace, position < input.count, input[position] == UInt8(ascii: "{"), let names = recentNames.first {
            if unbuiltFor !== names { leaveStringsUnbuilt(unbuiltStrings(names), for: names) }
            if readFlatObject() {
                unbuilt.withUnsafeBufferPointer { unbuilt in
                    inPlace(JSONObjectView(names: names, values: values.elements(from: 0), unbuilt: unbuiltFlags.isEmpty ? nil : unbuilt))
                }
                values.removeAll()
                return nil
            }
        }
        parsing: while true {
            skipWhitespace()
            guard position < input.count else { throw unexpected(.value) }
            var value: JSONValue
            switch input[position] {
            case UInt8(ascii: "{"):
                try open(isObject: true, depth: depth)
                if try beginObject() { continue parsing }
                frames.removeLast()
                value = .object(JSONObject())
            case UInt8(ascii: "["):
                try open(isObject: false, depth: depth)
                if beginArray() { continue parsing }
                frames.removeLast()
                value = .array([])
            default:
                guard let scalar = try parseScalar() else { throw unexpected(.value) }
                value = scalar
            }
            // Hand the value to its container; close every container that ends here.
            while let frame = frames.last {
                values.push(value)
                if frame.isObject {
                    if try continueObject() { continue parsing }
                    if readsInPlace, frames.count == 1, let shared = sharedNames(closing: frame) {
                        inPlace(JSONObjectView(names: shared, values: values.elements(from: frame.valuesStart)))
                        values.drop(from: frame.valuesStart)
                        names.drop(from: frame.namesStart)
                        frames.removeLast()
                        return nil
                    }
                    value = .object(closeObject(frame))
                } else {
                    if try continueArray() { continue parsing }
                    value = .array(closeArray(frame))
                }
                frames.removeLast()
            }
            return value
        }
    }

    private mutating func leaveStringsUnbuilt(_ flags: [Bool], for names: JSONMemberNames) {
        unbuiltFor = names
        unbuiltFlags = flags.count == names.names.count && flags.contains(true) ? flags : []
        unbuilt = Array(repeating: UnsafeBufferPointer(start: nil, count: 0), count: unbuiltFlags.count)
    }

    /// After the value: only whitespace to the end of the input.
    mutating func expectEndOfInput() throws(JSONError) {
        skipWhitespace()
        if position < input.count { throw unexpected(.endOfInput) }
    }

    private mutating func open(isObject: Bool, depth: Int) throws(JSONError) {
        guard depth + frames.count < maximumDepth else {
            throw JSONError(.nestingTooDeep(limit: maximumDepth), offset: base + position)
        }
        frames.append(Frame(isObject: isObject, valuesStart: values.count, namesStart: names.count, expectation: expectation))
        position += 1
    }

    // MARK: Arrays

    /// Just after `[`: true when an element follows, false when `]` closed the array.
    mutating func beginArray() -> Bool {
        skipWhitespace()
        guard position < input.count, input[position] == UInt8(ascii: "]") else { return true }
        position += 1
        return false
    }

    /// Just after an element: true when `,` introduced another, false when `]` closed
    /// the array.
    mutating func continueArray() throws(JSONError) -> Bool {
        skipWhitespace()
        guard position < input.count else { throw unexpected(.commaOrClosingBracket) }
        switch input[position] {
        case UInt8(ascii: ","):
            return try afterComma(closing: UInt8(ascii: "]"))
        case UInt8(ascii: "]"):
            position += 1
            return false
        default:
            throw unexpected(.commaOrClosingBracket)
        }
    }

    private mutating func closeArray(_ frame: Frame) -> [JSONValue] {
        values.popArray(from: frame.valuesStart)
    }

    // MARK: Objects

    /// Just after `{`: true when a member name and its colon were read, false when `}`
    /// closed the object.
    private mutating func beginObject() throws(JSONError) -> Bool {
        skipWhitespace()
        if position < input.count, input[position] == UInt8(ascii: "}") {
            position += 1
            return false
        }
        try parseMemberName()
        return true
    }

    /// Just after a member's value: true when `,` and the next name and colon were read,
    /// false when `}` closed the object.
    private mutating func continueObject() throws(JSONError) -> Bool {
        skipWhitespace()
        guard position < input.count else { throw unexpected(.commaOrClosingBrace) }
        switch input[position] {
        case UInt8(ascii: ","):
            guard try afterComma(closing: UInt8(ascii: "}")) else { return false }
            try parseMemberName()
            return true
        case UInt8(ascii: "}"):
            position += 1
            return false
        default:
            throw unexpected(.commaOrClosingBrace)
        }
    }

    private mutating func parseMemberName() throws(JSONError) {
        guard position < input.count, input[position] == UInt8(ascii: "\"") else { throw unexpected(.memberName) }
        if !expected.isEmpty, let frame = frames.last, case let index = names.count - frame.namesStart, readsExpectedName(at: index) {
            names.push(recentNames[0].names[index])
            frames[frames.count - 1].namesMatched += 1
        } else {
            names.push(try parseString())
        }
        skipWhitespace()
        guard position < input.count, input[position] == UInt8(ascii: ":") else { throw unexpected(.colon) }
        position += 1
        skipWhitespace()
    }

    /// Whether the input at `position` (a quote) spells the name at `index` of the names
    /// read last exactly; `position` is then past its closing quote. The records of an
    /// array repeat their names, and making each a `String` again was a third of reading
    /// a record.
    mutating func readsExpectedName(at index: Int) -> Bool {
        guard index < expected.count, let name = expected[index] else { return false }
        let start = position + 1
        // A word at once: most names, with their quote, are compared in one.
        guard start + 8 <= input.count, input.loadWord(at: start) & name.mask == name.head else { return false }
        if name.length >= 8 {
            let end = start + name.length
            guard end < input.count, input[end] == UInt8(ascii: "\"") else { return false }
            for offset in 8..<name.length where input[start + offset] != expectedTails[name.tailStart + offset - 8] { return false }
        }
        position = start + name.length + 1
        return true
    }

    /// Expects the next object to repeat `names`.
    private mutating func expect(_ names: JSONMemberNames) {
        guard matchesRepeatedNames else { return }
        expectation += 1
        expected.removeAll(keepingCapacity: true)
        expectedTails.removeAll(keepingCapacity: true)
        for name in names.names {
            let bytes = Array(name.utf8)
            // Only bytes a string may hold as they are: a quote, a backslash or a control
            // character is written escaped, and so never matches the input byte for byte.
            guard bytes.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) else {
                expected.append(nil)
                continue
            }
            let head = bytes.prefix(8) + (bytes.count < 8 ? [UInt8(ascii: "\"")] : [])
            let word = head.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * $1.offset) }
            let mask = head.count == 8 ? UInt64.max : (UInt64(1) << (8 * head.count)) - 1
            expected.append(ExpectedSpelling(head: word, mask: mask, length: bytes.count, tailStart: expectedTails.count))
            expectedTails.append(contentsOf: bytes.dropFirst(8))
        }
    }

    /// Builds the object from its members, last value winning for a repeated name.
    private mutating func closeObject(_ frame: Frame) -> JSONObject {
        let memberNames: JSONMemberNames
        if let shared = sharedNames(closing: frame) {
            names.drop(from: frame.namesStart)
            memberNames = shared
        } else {
            let order = names.popArray(from: frame.namesStart)
            guard !Self.hasRepeatedName(order) else {
                // A repeated name keeps its last value, in its first place.
                let members = values.popArray(from: frame.valuesStart)
                return JSONObject(Array(zip(order, members)))
            }
            memberNames = JSONMemberNames(order)
            recentNames.insert(memberNames, at: 0)
            if recentNames.count > Self.recentNamesKept { recentNames.removeLast() }
            expect(memberNames)
        }
        return JSONObject(names: memberNames, values: values.popArray(from: frame.valuesStart))
    }

    private static let recentNamesKept = 4

    /// The names of an object read before, when the closing object's member names
    /// (`frame`'s) are those, in order.
    private mutating func sharedNames(closing frame: Frame) -> JSONMemberNames? {
        let count = names.count - frame.namesStart
        if count > 0, frame.expectation == expectation, frame.namesMatched == count, count == expected.count, let first = recentNames.first {
            // Every name matched the expected list in place, in order: they are its names.
            return first
        }
        return sharedNames(names.elements(from: frame.namesStart))
    }

    /// Recently read names equal to `order`, moved to the front.
    private mutating func sharedNames(_ order: UnsafeBufferPointer<String>) -> JSONMemberNames? {
        guard let index = recentNames.firstIndex(where: { $0.names.count == order.count && $0.names.elementsEqual(order) }) else { return nil }
        let found = recentNames[index]
        if index > 0 {
            recentNames.remove(at: index)
            recentNames.insert(found, at: 0)
            expect(found)
        }
        return found
    }

    /// Whether a name appears twice: compared pairwise in a small object, hashed in a large one.
    private static func hasRepeatedName(_ names: [String]) -> Bool {
        guard names.count > 16 else {
            for index in names.indices.dropFirst() where names[..<index].contains(names[index]) { return true }
            return false
        }
        return Set(names).count < names.count
    }

    // MARK: Shared

    /// At a comma after an element or member: true when another follows; false when the
    /// container's `closing` bracket follows and trailing commas are allowed.
    private mutating func afterComma(closing: UInt8) throws(JSONError) -> Bool {
        let comma = position
        position += 1
        skipWhitespace()
        guard position < input.count, input[position] == closing else { return true }
        guard allowsTrailingCommas else { throw JSONError(.trailingComma, offset: base + comma) }
        position += 1
        return false
    }

    /// The error for the byte at `position`, or for the end of the input there.
    func unexpected(_ expected: JSONError.Expectation) -> JSONError {
        guard position < input.count else { return JSONError(.unexpectedEnd(expected: expected), offset: base + position) }
        return JSONError(.unexpectedCharacter(input[position], expected: expected), offset: base + position)
    }

    mutating func skipWhitespace() {
        while position < input.count {
            switch input[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                position += 1
            default:
                return
            }
        }
    }
}

import Foundation
import Testing
@testable import MagicalStore

/// Tests of Spec/KEY-ENCODING.md; `K<n>` cites its numbered statements.
struct KeyEncodingTests {
    // MARK: Pinned bytes

    @Test("K10-K13: every type encodes to its documented bytes")
    func knownAnswers() throws {
        let vectors: [(KeyValue, [UInt8])] = [
            (.null, [0x01]),
            (.bool(false), [0x02]),
            (.bool(true), [0x03]),
            (.int(0), [0x14]),
            (.int(1), [0x15, 0x01]),
            (.int(255), [0x15, 0xFF]),
            (.int(256), [0x16, 0x01, 0x00]),
            (.int(-1), [0x13, 0xFE]),
            (.int(-255), [0x13, 0x00]),
            (.int(-256), [0x12, 0xFE, 0xFF]),
            (.int(Int64.max), [0x1C, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            (.int(Int64.min), [0x0C, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            (.uint(UInt64.max), [0x1C, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            (.double(0.0), [0x21, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]),
            (.double(1.0), [0x21, 0xBF, 0xF0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]),
            (.double(-1.0), [0x21, 0x40, 0x0F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            (.double(.infinity), [0x21, 0xFF, 0xF0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]),
            (.double(-.infinity), [0x21, 0x00, 0x0F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            (.double(.nan), [0x21, 0xFF, 0xF8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]),
            (.double(.leastNonzeroMagnitude), [0x21, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01]),
            (.string(""), [0x30, 0x00]),
            (.string("a\0b"), [0x30, 0x61, 0x00, 0xFF, 0x62, 0x00]),
            (.string("é"), [0x30, 0xC3, 0xA9, 0x00]),
            (.bytes([]), [0x31, 0x00]),
            (.bytes([0x00, 0xFF]), [0x31, 0x00, 0xFF, 0xFF, 0x00]),
            (.date(Date(timeIntervalSinceReferenceDate: 0)), [0x40, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]),
            (.date(Date(timeIntervalSince1970: 0)), [0x40, 0x3E, 0x32, 0xD8, 0x1B, 0xBF, 0xFF, 0xFF, 0xFF]),
        ]
        for (value, bytes) in vectors {
            #expect(KeyEncoding.encode([value]) == bytes, "encoding of \(value)")
            #expect(try KeyEncoding.decode(bytes) == [value], "decoding of \(value)")
        }
        #expect(KeyEncoding.encode([]) == [])
        #expect(KeyEncoding.encode([.string("a"), .int(-1), .null]) == [0x30, 0x61, 0x00, 0x13, 0xFE, 0x01])
    }

    @Test("K11, K5: -0.0 and every NaN encode canonically")
    func floatCanonicalization() {
        #expect(KeyEncoding.encode([.double(-0.0)]) == KeyEncoding.encode([.double(0.0)]))
        let canonicalNaN = KeyEncoding.encode([.double(.nan)])
        for nan in [-Double.nan, .signalingNaN, Double(bitPattern: 0x7FF0_0000_0000_0001), Double(bitPattern: .max)] {
            #expect(KeyEncoding.encode([.double(nan)]) == canonicalNaN)
        }
        let negativeZeroDate = Date(timeIntervalSinceReferenceDate: -0.0)
        #expect(KeyEncoding.encode([.date(negativeZeroDate)]) == KeyEncoding.encode([.date(Date(timeIntervalSinceReferenceDate: 0))]))
    }

    // MARK: Order

    @Test("K2-K6: a hand-written ascending list encodes in ascending byte order")
    func documentedOrder() {
        let ascending: [KeyValue] = [
            .null, .bool(false), .bool(true),
            .int(Int64.min), .int(Int64.min + 1), .int(-65536), .int(-65535), .int(-256), .int(-255), .int(-1),
            .int(0), .uint(1), .int(255), .int(256), .int(65535), .int(65536), .int(Int64.max),
            .uint(UInt64(Int64.max) + 1), .uint(UInt64.max),
            .double(-.infinity), .double(-.greatestFiniteMagnitude), .double(-1), .double(-.leastNormalMagnitude),
            .double(-.leastNonzeroMagnitude), .double(0), .double(.leastNonzeroMagnitude),
            .double(.leastNormalMagnitude / 3), .double(.leastNormalMagnitude), .double(1), .double(1.5),
            .double(.greatestFiniteMagnitude), .double(.infinity), .double(.nan),
            .string(""), .string("\0"), .string("\0\0"), .string("a"), .string("a\0"), .string("ab"),
            .string("b"), .string("\u{7F}"), .string("é"), .string("日本"), .string("\u{FFFF}"), .string("😀"),
            .bytes([]), .bytes([0x00]), .bytes([0x00, 0x00]), .bytes([0x00, 0xFF]), .bytes([0x01]), .bytes([0xFF]),
            .date(.distantPast), .date(Date(timeIntervalSince1970: 0)), .date(Date(timeIntervalSinceReferenceDate: 0)),
            .date(.distantFuture), .date(Date(timeIntervalSinceReferenceDate: .infinity)),
            .date(Date(timeIntervalSinceReferenceDate: .nan)),
        ]
        for (lower, higher) in zip(ascending, ascending.dropFirst()) {
            #expect(byteOrder(KeyEncoding.encode([lower]), KeyEncoding.encode([higher])) < 0, "\(lower) < \(higher)")
            #expect(referenceCompare([lower], [higher]) < 0, "reference: \(lower) < \(higher)")
        }
    }

    @Test("K1-K7: byte order of random tuple pairs equals the reference order")
    func orderPropertyOnRandomPairs() {
        var random = SplitMix64(seed: 0x4B45_5931)
        var equalPairs = 0
        for _ in 0..<30_000 {
            let left = random.tuple()
            let right = switch random.next(below: 3) {
            case 0: random.tuple()
            case 1: random.variation(of: left)
            default: equivalent(of: left)
            }
            let leftBytes = KeyEncoding.encode(left)
            let rightBytes = KeyEncoding.encode(right)
            let expected = referenceCompare(left, right)
            #expect(byteOrder(leftBytes, rightBytes) == expected, "\(left) vs \(right)")
            #expect((left == right) == (expected == 0), "K7 equality of \(left) and \(right)")
            if expected == 0 {
                equalPairs += 1
                #expect(left.hashValue == right.hashValue)
            }
        }
        #expect(equalPairs > 10_000, "equal tuples must be common, to test equality and deep comparisons")
    }

    @Test("K10: an integer encoded on the stack or in place, alone or in a pair, is the integer's encoding, of the length told")
    func integersEncodedOnTheStack() {
        var random = SplitMix64(seed: 11)
        var values: [Int64] = [0, 1, -1, 255, 256, -256, -257, 65_535, 65_536, .max, .min, .max - 1, .min + 1]
        for shift in 0..<63 { values += [1 << Int64(shift), -(1 << Int64(shift)), (1 << Int64(shift)) - 1] }
        values += (0..<2_000).map { _ in Int64(bitPattern: random.next()) >> Int64(random.next() % 64) }
        for value in values {
            // The tuple form goes the general way, value by value.
            let expected = KeyEncoding.encode([.int(value)])
            #expect(KeyEncoding.withEncodedInteger(value) { Array($0) } == expected, "\(value)")
            #expect(KeyEncoding.encode(.int(value)) == expected, "\(value)")
            #expect(KeyEncoding.encodedLength(ofInteger: value) == expected.count, "\(value)")
            let other = values[Int(random.next() % UInt64(values.count))]
            #expect(KeyEncoding.encode(.int(value), .int(other)) == KeyEncoding.encode([.int(value), .int(other)]), "\(value), \(other)")
        }
    }

    @Test("K1: sorting by encoding sorts by value")
    func sortingByEncoding() {
        var random = SplitMix64(seed: 7)
        let keys = (0..<3_000).map { _ in random.tuple() }.map { (tuple: $0, bytes: KeyEncoding.encode($0)) }
        let sorted = keys.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
        for (lower, higher) in zip(sorted, sorted.dropFirst()) {
            let order = referenceCompare(lower.tuple, higher.tuple)
            #expect(order <= 0, "\(lower.tuple) sorted before \(higher.tuple)")
            #expect((order == 0) == (lower.bytes == higher.bytes))
        }
    }

    @Test("K9, K8: a prefix encodes to a byte prefix, and prefix + 0xFF bounds its extensions")
    func prefixProperty() {
        var random = SplitMix64(seed: 99)
        for _ in 0..<5_000 {
            let tuple = random.tuple()
            let bytes = KeyEncoding.encode(tuple)
            for length in 0..<tuple.count {
                let prefix = KeyEncoding.encode(Array(tuple.prefix(length)))
                #expect(bytes.starts(with: prefix))
                #expect(byteOrder(prefix, bytes) < 0)
            }
            let upperBound = bytes + [0xFF]
            let extended = KeyEncoding.encode(tuple + random.tuple())
            #expect(byteOrder(bytes, extended) <= 0)
            #expect(byteOrder(extended, upperBound) < 0)
        }
    }

    // MARK: Integers

    @Test("K3, K16: .int and .uint share one numeric space")
    func intAndUIntAreOneType() throws {
        var random = SplitMix64(seed: 3)
        for _ in 0..<10_000 {
            let unsigned = random.next() >> random.next(below: 64)
            let decoded = try #require(try KeyEncoding.decode(KeyEncoding.encode([.uint(unsigned)])).first)
            if unsigned <= UInt64(Int64.max) {
                let signed = KeyValue.int(Int64(unsigned))
                #expect(KeyEncoding.encode([signed]) == KeyEncoding.encode([.uint(unsigned)]))
                #expect(signed == .uint(unsigned))
                #expect(signed.hashValue == KeyValue.uint(unsigned).hashValue)
                #expect(isIntCase(decoded), "K16: \(unsigned) decodes as .int")
            } else {
                #expect(!isIntCase(decoded), "K16: \(unsigned) decodes as .uint")
            }
        }
        #expect(KeyValue.int(-1) != .uint(UInt64.max))
        #expect(KeyValue.int(1) != .double(1))
    }

    // MARK: Equality

    @Test("K7: equality and hashing follow the encoding")
    func equalityFollowsEncoding() {
        #expect(KeyValue.double(.nan) == .double(-.nan))
        #expect(KeyValue.double(.nan).hashValue == KeyValue.double(.signalingNaN).hashValue)
        #expect(KeyValue.double(-0.0) == .double(0.0))
        #expect(KeyValue.double(-0.0).hashValue == KeyValue.double(0.0).hashValue)
        let nanDate = Date(timeIntervalSinceReferenceDate: .nan)
        #expect(KeyValue.date(nanDate) == .date(nanDate))
        // K6: Swift calls these strings equal, but their bytes differ.
        #expect("é" == "e\u{301}")
        #expect(KeyValue.string("é") != .string("e\u{301}"))
        #expect(KeyValue.string("a") != .bytes([0x61]))
        let values: Set<KeyValue> = [.int(5), .uint(5), .double(.nan), .double(.nan), .string("x")]
        #expect(values.count == 3)
    }

    // MARK: Round trip and API forms

    @Test("The one-integer fast path agrees with decode on every key, and declines all but canonical non-negative integers")
    func nonNegativeIntegerFastPath() throws {
        var random = SplitMix64(seed: 7)
        var keys: [[UInt8]] = [0, 1, 255, 256, Int64.max, -1, .min].map { KeyEncoding.encode([.int($0)]) }
        keys += [[], [0x14, 0x00], [0x15], [0x15, 0x01, 0x02], [0x1D, 1, 2, 3, 4, 5, 6, 7, 8, 9], [0x1C, 0x80, 0, 0, 0, 0, 0, 0, 0]]
        for _ in 0..<2_000 {
            keys.append(KeyEncoding.encode(random.tuple()))
            keys.append(KeyEncoding.encode([.int(Int64.random(in: 0...Int64.max, using: &random))]))
        }
        for key in keys {
            let fast = KeyEncoding.decodeNonNegativeInteger(key)
            if let decoded = try? KeyEncoding.decode(key), decoded.count == 1, case .int(let value) = decoded[0], value >= 0 {
                #expect(fast == value, "key \(key)")
            } else if case .uint(let value)? = try? KeyEncoding.decode(key).first, value <= UInt64(Int64.max),
                      (try? KeyEncoding.decode(key).count) == 1 {
                #expect(fast == Int64(value), "key \(key)")
            } else {
                #expect(fast == nil, "key \(key)")
            }
        }
    }

    @Test("Random tuples round-trip through decode")
    func roundTrip() throws {
        var random = SplitMix64(seed: 42)
        for _ in 0..<10_000 {
            let tuple = random.tuple()
            let bytes = KeyEncoding.encode(tuple)
            let decoded = try KeyEncoding.decode(bytes)
            #expect(decoded == tuple)
            #expect(KeyEncoding.encode(decoded) == bytes)
        }
    }

    @Test("Dates round-trip exactly (K12)")
    func datesRoundTripExactly() throws {
        let dates = [Date(timeIntervalSince1970: 1.1), Date(timeIntervalSinceReferenceDate: 1e-300), .distantPast, .distantFuture]
        for date in dates {
            let decoded = try KeyEncoding.decode(KeyEncoding.encode([.date(date)]))
            guard case .date(let result) = decoded.first else {
                Issue.record("\(date) decoded as \(decoded)")
                continue
            }
            #expect(result.timeIntervalSinceReferenceDate.bitPattern == date.timeIntervalSinceReferenceDate.bitPattern)
        }
    }

    @Test("The append form extends the caller's buffer")
    func appendForm() {
        var random = SplitMix64(seed: 11)
        for _ in 0..<1_000 {
            let tuple = random.tuple()
            var buffer: [UInt8] = [0xAB, 0xCD]
            for value in tuple {
                KeyEncoding.encode(value, into: &buffer)
            }
            #expect(buffer == [0xAB, 0xCD] + KeyEncoding.encode(tuple))
        }
    }

    @Test("The one-value and pair forms encode as the tuple of those values")
    func oneValueAndPairForms() {
        var random = SplitMix64(seed: 12)
        for _ in 0..<1_000 {
            let values = random.tuple() + random.tuple() + random.tuple()
            guard values.count >= 2 else { continue }
            #expect(KeyEncoding.encode(values[0]) == KeyEncoding.encode([values[0]]))
            #expect(KeyEncoding.encode(values[0], values[1]) == KeyEncoding.encode([values[0], values[1]]))
        }
    }

    @Test("decode accepts slices and non-contiguous collections; offsets count from their start")
    func decodeCollections() throws {
        let bytes: [UInt8] = [0xAA, 0x15, 0x07, 0x30, 0x61, 0x00]
        #expect(try KeyEncoding.decode(bytes.dropFirst()) == [.int(7), .string("a")])
        #expect(try KeyEncoding.decode(bytes.dropFirst().lazy.map { $0 }) == [.int(7), .string("a")])
        #expect(try bytes.withUnsafeBytes { try KeyEncoding.decode($0.dropFirst()) } == [.int(7), .string("a")])
        #expect(throws: KeyEncodingError.unknownTypeTag(0xAA, offset: 0)) { try KeyEncoding.decode(bytes) }
        let damaged: [UInt8] = [0xAA, 0x01, 0x00]
        #expect(throws: KeyEncodingError.unknownTypeTag(0x00, offset: 1)) { try KeyEncoding.decode(damaged.dropFirst()) }
        #expect(throws: KeyEncodingError.truncated(offset: 1)) { try KeyEncoding.decode([0x01, 0x30, 0x61].lazy.map { $0 }) }
    }

    // MARK: Malformed input

    @Test("K14, K15: each kind of malformed input throws its error at the value's offset")
    func malformedInput() {
        let cases: [([UInt8], KeyEncodingError)] = [
            ([0x00], .unknownTypeTag(0x00, offset: 0)),
            ([0x01, 0xFF], .unknownTypeTag(0xFF, offset: 1)),
            ([0x01, 0x20], .unknownTypeTag(0x20, offset: 1)),
            ([0x15], .truncated(offset: 0)),
            ([0x01, 0x1C, 0x01, 0x02, 0x03], .truncated(offset: 1)),
            ([0x0C, 0x00], .truncated(offset: 0)),
            ([0x21, 0x80, 0x00], .truncated(offset: 0)),
            ([0x40], .truncated(offset: 0)),
            ([0x30, 0x61], .truncated(offset: 0)),
            ([0x30, 0x61, 0x00, 0xFF], .truncated(offset: 0)),
            ([0x02, 0x31], .truncated(offset: 1)),
            ([0x16, 0x00, 0x05], .nonMinimalInteger(offset: 0)),
            ([0x15, 0x00], .nonMinimalInteger(offset: 0)),
            ([0x13, 0xFF], .nonMinimalInteger(offset: 0)),
            ([0x12, 0xFF, 0x00], .nonMinimalInteger(offset: 0)),
            ([0x0C, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE], .integerOutOfRange(offset: 0)),
            ([0x0C, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00], .integerOutOfRange(offset: 0)),
            ([0x21, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], .nonCanonicalFloat(offset: 0)),
            ([0x21, 0xFF, 0xF8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01], .nonCanonicalFloat(offset: 0)),
            ([0x21, 0x00, 0x07, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], .nonCanonicalFloat(offset: 0)),
            ([0x14, 0x40, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], .nonCanonicalFloat(offset: 1)),
            ([0x30, 0xC3, 0x00], .invalidUTF8(offset: 0)),
            ([0x30, 0xC0, 0x80, 0x00], .invalidUTF8(offset: 0)),
            ([0x02, 0x30, 0xED, 0xA0, 0x80, 0x00], .invalidUTF8(offset: 1)),
            ([0x30, 0xEF, 0xBF, 0x00, 0xFF, 0x00], .invalidUTF8(offset: 0)),
        ]
        for (bytes, expected) in cases {
            #expect(throws: expected, "\(bytes)") { try KeyEncoding.decode(bytes) }
        }
    }

    @Test("Random and mutated bytes never trap: decode throws or the bytes round-trip")
    func garbageNeverTraps() {
        var random = SplitMix64(seed: 0xBAD)
        let likelyBytes: [UInt8] = [0x00, 0x01, 0x02, 0x03, 0x0C, 0x13, 0x14, 0x15, 0x1C, 0x21, 0x30, 0x31, 0x40, 0x7F, 0x80, 0xFF]
        var accepted = 0
        var rejected = 0
        for iteration in 0..<60_000 {
            var bytes: [UInt8]
            switch iteration % 3 {
            case 0:
                bytes = (0..<random.next(below: 24)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            case 1:
                bytes = (0..<random.next(below: 24)).map { _ in random.element(of: likelyBytes) }
            default:
                let valid = KeyEncoding.encode(random.tuple())
                bytes = random.mutation(of: valid)
            }
            do {
                let decoded = try KeyEncoding.decode(bytes)
                #expect(KeyEncoding.encode(decoded) == bytes, "\(bytes) decoded to \(decoded)")
                accepted += 1
            } catch {
                rejected += 1
            }
        }
        #expect(accepted > 1_000)
        #expect(rejected > 1_000)
    }
}

// MARK: - Reference order, written plainly from the spec

/// -1, 0 or 1 for the unsigned lexicographic order of two byte strings (memcmp, then length).
private func byteOrder(_ left: [UInt8], _ right: [UInt8]) -> Int {
    if left.lexicographicallyPrecedes(right) { return -1 }
    return right.lexicographicallyPrecedes(left) ? 1 : 0
}

private func threeWay<T: Comparable>(_ left: T, _ right: T) -> Int {
    left < right ? -1 : left > right ? 1 : 0
}

/// The same tuple spelled differently where K3 and K5 allow it: .int as .uint, -0.0, another NaN.
private func equivalent(of tuple: [KeyValue]) -> [KeyValue] {
    tuple.map { value in
        switch value {
        case .int(let number) where number >= 0: .uint(UInt64(number))
        case .uint(let number) where number <= UInt64(Int64.max): .int(Int64(number))
        case .double(let number) where number == 0: .double(-number)
        case .double(let number) where number.isNaN: .double(-number)
        case .date(let date) where date.timeIntervalSinceReferenceDate.isNaN:
            .date(Date(timeIntervalSinceReferenceDate: .signalingNaN))
        default: value
        }
    }
}

private func isIntCase(_ value: KeyValue) -> Bool {
    if case .int = value { true } else { false }
}

/// K1: element by element, then the shorter tuple first.
private func referenceCompare(_ left: [KeyValue], _ right: [KeyValue]) -> Int {
    for (leftValue, rightValue) in zip(left, right) {
        let order = referenceCompare(leftValue, rightValue)
        if order != 0 { return order }
    }
    return threeWay(left.count, right.count)
}

/// K2: null < false < true < integers < doubles < strings < bytes < dates.
private func typeRank(_ value: KeyValue) -> Int {
    switch value {
    case .null: 0
    case .bool(false): 1
    case .bool(true): 2
    case .int, .uint: 3
    case .double: 4
    case .string: 5
    case .bytes: 6
    case .date: 7
    }
}

private func referenceCompare(_ left: KeyValue, _ right: KeyValue) -> Int {
    let rankOrder = threeWay(typeRank(left), typeRank(right))
    if rankOrder != 0 { return rankOrder }
    switch (left, right) {
    case let (.int(a), .int(b)): return threeWay(a, b)
    case let (.uint(a), .uint(b)): return threeWay(a, b)
    case let (.int(a), .uint(b)): return a < 0 ? -1 : threeWay(UInt64(a), b)
    case let (.uint(a), .int(b)): return b < 0 ? 1 : threeWay(a, UInt64(b))
    case let (.double(a), .double(b)): return compareDoubles(a, b)
    case let (.string(a), .string(b)): return byteOrder(Array(a.utf8), Array(b.utf8))
    case let (.bytes(a), .bytes(b)): return byteOrder(a, b)
    case let (.date(a), .date(b)):
        return compareDoubles(a.timeIntervalSinceReferenceDate, b.timeIntervalSinceReferenceDate)
    default: return 0
    }
}

/// K5: numeric order, -0.0 == 0.0, all NaNs equal and above +infinity.
private func compareDoubles(_ left: Double, _ right: Double) -> Int {
    if left.isNaN || right.isNaN {
        return threeWay(left.isNaN ? 1 : 0, right.isNaN ? 1 : 0)
    }
    return threeWay(left, right)
}

// MARK: - Deterministic random tuples

/// Random tuples drawn from small pools, for the property tests.
extension SplitMix64 {
    mutating func next(below bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    mutating func nextBool() -> Bool {
        next() & 1 == 1
    }

    mutating func element<T>(of choices: [T]) -> T {
        choices[next(below: choices.count)]
    }

    /// 0 to 4 values. Small pools make equal values and shared prefixes common.
    mutating func tuple() -> [KeyValue] {
        (0..<next(below: 5)).map { _ in value() }
    }

    /// `tuple` with one element replaced, appended or dropped: mostly a near neighbour.
    mutating func variation(of tuple: [KeyValue]) -> [KeyValue] {
        var result = tuple
        switch next(below: 3) {
        case 0 where !result.isEmpty: result[next(below: result.count)] = value()
        case 1 where !result.isEmpty: result.removeLast()
        default: result.append(value())
        }
        return result
    }

    /// `bytes` with one to three random edits: overwrite, insert, delete or truncate.
    mutating func mutation(of bytes: [UInt8]) -> [UInt8] {
        var result = bytes
        for _ in 0...next(below: 3) {
            let position = next(below: result.count + 1)
            switch next(below: 4) {
            case 0 where position < result.count: result[position] = UInt8(truncatingIfNeeded: next())
            case 1: result.insert(UInt8(truncatingIfNeeded: next()), at: position)
            case 2 where position < result.count: result.remove(at: position)
            default: result.removeSubrange(position...)
            }
        }
        return result
    }

    mutating func value() -> KeyValue {
        switch next(below: 8) {
        case 0: return .null
        case 1: return .bool(nextBool())
        case 2: return .int(signedInteger())
        case 3: return .uint(unsignedInteger())
        case 4: return .double(double())
        case 5: return .string((0..<next(below: 4)).map { _ in element(of: Self.stringPieces) }.joined())
        case 6: return .bytes((0..<next(below: 5)).map { _ in element(of: Self.byteChoices) })
        default: return .date(date())
        }
    }

    private static let signedEdges: [Int64] = [.min, .min + 1, -65536, -256, -255, -1, 0, 1, 255, 256, .max - 1, .max]
    private static let unsignedEdges: [UInt64] = [0, 1, 255, 256, UInt64(Int64.max), UInt64(Int64.max) + 1, .max]
    private static let doubleEdges: [Double] = [
        0.0, -0.0, 1.0, -1.0, 1.5, .infinity, -.infinity, .nan, -.nan, .signalingNaN,
        .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude, .leastNormalMagnitude / 3,
        -.leastNormalMagnitude / 3, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
    ]
    private static let stringPieces = ["", "a", "b", "ab", "\0", "a\0", "é", "e\u{301}", "日本", "😀", "\u{7F}", "\u{80}", "\u{FFFF}"]
    private static let byteChoices: [UInt8] = [0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF]
    private static let dateEdges: [Date] = [
        .distantPast, .distantFuture, Date(timeIntervalSince1970: 0), Date(timeIntervalSinceReferenceDate: 0),
        Date(timeIntervalSinceReferenceDate: -0.0), Date(timeIntervalSinceReferenceDate: .nan),
        Date(timeIntervalSinceReferenceDate: .infinity), Date(timeIntervalSinceReferenceDate: -.infinity),
    ]

    private mutating func signedInteger() -> Int64 {
        if nextBool() { return element(of: Self.signedEdges) }
        let magnitude = Int64(truncatingIfNeeded: next() >> (1 + next(below: 63)))
        return nextBool() ? -magnitude : magnitude
    }

    private mutating func unsignedInteger() -> UInt64 {
        nextBool() ? element(of: Self.unsignedEdges) : next() >> next(below: 64)
    }

    private mutating func double() -> Double {
        switch next(below: 3) {
        case 0: return element(of: Self.doubleEdges)
        case 1: return Double(next(below: 7)) - 3
        default: return Double(bitPattern: next())
        }
    }

    private mutating func date() -> Date {
        nextBool() ? element(of: Self.dateEdges) : Date(timeIntervalSinceReferenceDate: double())
    }
}

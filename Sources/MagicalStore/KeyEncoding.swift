import Foundation

/// One element of a key tuple. Spec/KEY-ENCODING.md defines the order and the bytes.
public enum KeyValue: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    /// Compared and stored by its UTF-8 bytes, without normalization (Spec K6).
    case string(String)
    case bytes([UInt8])
    case date(Date)
}

/// Equality means "encodes to the same bytes" (Spec K7): `.int(5) == .uint(5)`,
/// `-0.0 == 0.0`, NaN equals NaN, and strings compare by UTF-8 bytes.
extension KeyValue: Hashable {
    public static func == (lhs: KeyValue, rhs: KeyValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null):
            return true
        case let (.bool(left), .bool(right)):
            return left == right
        case let (.double(left), .double(right)):
            return KeyEncoding.sortableBits(left) == KeyEncoding.sortableBits(right)
        case let (.string(left), .string(right)):
            return left.utf8.elementsEqual(right.utf8)
        case let (.bytes(left), .bytes(right)):
            return left == right
        case let (.date(left), .date(right)):
            return KeyEncoding.sortableBits(left.timeIntervalSinceReferenceDate)
                == KeyEncoding.sortableBits(right.timeIntervalSinceReferenceDate)
        default:
            guard let left = lhs.integerParts, let right = rhs.integerParts else { return false }
            return left == right
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(KeyEncoding.Tag.null)
        case .bool(let value):
            hasher.combine(value ? KeyEncoding.Tag.true : KeyEncoding.Tag.false)
        case .int(let value):
            hasher.combine(KeyEncoding.Tag.integerZero)
            hasher.combine(value < 0)
            hasher.combine(value.magnitude)
        case .uint(let value):
            hasher.combine(KeyEncoding.Tag.integerZero)
            hasher.combine(false)
            hasher.combine(value)
        case .double(let value):
            hasher.combine(KeyEncoding.Tag.double)
            hasher.combine(KeyEncoding.sortableBits(value))
        case .string(let value):
            hasher.combine(KeyEncoding.Tag.string)
            hasher.combine(value.utf8.count)
            for byte in value.utf8 { hasher.combine(byte) }
        case .bytes(let value):
            hasher.combine(KeyEncoding.Tag.bytes)
            hasher.combine(value)
        case .date(let value):
            hasher.combine(KeyEncoding.Tag.date)
            hasher.combine(KeyEncoding.sortableBits(value.timeIntervalSinceReferenceDate))
        }
    }

    /// The sign and magnitude of an integer, the form `.int` and `.uint` share (Spec K3).
    var integerParts: (isNegative: Bool, magnitude: UInt64)? {
        switch self {
        case .int(let value): return (value < 0, value.magnitude)
        case .uint(let value): return (false, value)
        default: return nil
        }
    }
}

/// Why `KeyEncoding.decode` rejected its input (Spec K14). `offset` is the position of the
/// tag byte of the value that could not be decoded.
public enum KeyEncodingError: Error, Equatable, Sendable {
    case unknownTypeTag(UInt8, offset: Int)
    /// The input ends inside a value, or a string or bytes value has no terminator.
    case truncated(offset: Int)
    /// An integer written with more bytes than its magnitude needs.
    case nonMinimalInteger(offset: Int)
    /// A negative integer whose magnitude exceeds 2^63.
    case integerOutOfRange(offset: Int)
    /// A double or date holding -0.0 or a NaN other than the canonical one.
    case nonCanonicalFloat(offset: Int)
    case invalidUTF8(offset: Int)
}

/// The order-preserving tuple encoding of Spec/KEY-ENCODING.md: byte order of encodings
/// equals the order of the tuples.
public enum KeyEncoding {
    /// Type tags (Spec section 2). `0xFF` is deliberately never a tag (Spec K8).
    @usableFromInline
    enum Tag {
        static let null: UInt8 = 0x01
        static let `false`: UInt8 = 0x02
        static let `true`: UInt8 = 0x03
        static let negativeInteger8: UInt8 = 0x0C
        @usableFromInline static let integerZero: UInt8 = 0x14
        static let positiveInteger8: UInt8 = 0x1C
        static let double: UInt8 = 0x21
        static let string: UInt8 = 0x30
        static let bytes: UInt8 = 0x31
        static let date: UInt8 = 0x40
    }

    static let terminator: UInt8 = 0x00
    static let escapedZero: UInt8 = 0xFF
    static let signBit: UInt64 = 1 << 63
    static let canonicalNaNBits: UInt64 = 0x7FF8_0000_0000_0000

    /// The key for `tuple`.
    public static func encode(_ tuple: [KeyValue]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(tuple.reduce(0) { $0 + estimatedSize(of: $1) })
        for value in tuple {
            encode(value, into: &output)
        }
        return output
    }

    /// The key for the one-value tuple `(value)`, built without a tuple array: a key is
    /// made for every record written, and each array was an allocation.
    public static func encode(_ value: KeyValue) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(estimatedSize(of: value))
        encode(value, into: &output)
        return output
    }

    /// The key for the pair `(first, second)` (an index entry, a to-many member).
    public static func encode(_ first: KeyValue, _ second: KeyValue) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(estimatedSize(of: first) + estimatedSize(of: second))
        encode(first, into: &output)
        encode(second, into: &output)
        return output
    }

    /// Appends the encoding of `value` to `output`, for building a key without
    /// intermediate arrays.
    public static func encode(_ value: KeyValue, into output: inout [UInt8]) {
        switch value {
        case .null:
            output.append(Tag.null)
        case .bool(let value):
            output.append(value ? Tag.true : Tag.false)
        case .int(let value):
            appendInteger(isNegative: value < 0, magnitude: value.magnitude, into: &output)
        case .uint(let value):
            appendInteger(isNegative: false, magnitude: value, into: &output)
        case .double(let value):
            appendFloat(value, tag: Tag.double, into: &output)
        case .string(let value):
            output.append(Tag.string)
            // Native strings expose their UTF-8 contiguously, which appends as one copy.
            if value.utf8.withContiguousStorageIfAvailable({ appendEscaped($0, into: &output) }) == nil {
                appendEscaped(value.utf8, into: &output)
            }
        case .bytes(let value):
            output.append(Tag.bytes)
            appendEscaped(value, into: &output)
        case .date(let value):
            appendFloat(value.timeIntervalSinceReferenceDate, tag: Tag.date, into: &output)
        }
    }

    /// The value of a key that is one non-negative integer in canonical form (an object
    /// key): a fast path that builds no tuple. Nil for any other key, which ``decode(_:)``
    /// then reads or rejects.
    public static func decodeNonNegativeInteger(_ key: [UInt8]) -> Int64? {
        key.withUnsafeBytes { decodeNonNegativeInteger($0) }
    }

    /// The same for borrowed key bytes. Inlinable: a scan reads an object key per record.
    @inlinable @inline(__always)
    public static func decodeNonNegativeInteger(_ key: UnsafeRawBufferPointer) -> Int64? {
        guard let tag = key.first, tag >= Tag.integerZero, tag <= Tag.integerZero + 8 else { return nil }
        let length = Int(tag - Tag.integerZero)
        guard key.count == 1 + length, length == 0 || key[1] != 0 else { return nil }
        var magnitude: UInt64 = 0
        for index in 1..<key.count { magnitude = magnitude << 8 | UInt64(key[index]) }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return Int64(magnitude)
    }

    /// The tuple encoded in `bytes`. Accepts exactly what `encode` produces (Spec section 4)
    /// and throws, never traps, on anything else.
    public static func decode(_ bytes: some Collection<UInt8>) throws(KeyEncodingError) -> [KeyValue] {
        let contiguous = bytes.withContiguousStorageIfAvailable { buffer in
            decode(UnsafeRawBufferPointer(buffer))
        }
        if let contiguous { return try contiguous.get() }
        return try Array(bytes).withUnsafeBytes { decode($0) }.get()
    }

    private static func decode(_ bytes: UnsafeRawBufferPointer) -> Result<[KeyValue], KeyEncodingError> {
        var decoder = KeyDecoder(bytes: bytes)
        return Result { () throws(KeyEncodingError) in try decoder.decodeTuple() }
    }

    /// An upper estimate of the encoded size, so `encode(_:)` allocates once.
    private static func estimatedSize(of value: KeyValue) -> Int {
        switch value {
        case .null, .bool: return 1
        case .int, .uint, .double, .date: return 9
        case .string(let value): return value.utf8.count + 2
        case .bytes(let value): return value.count + 2
        }
    }

    /// `body` with the encoding of `.int(value)` in a buffer on the stack (valid only
    /// during the call): a point read by object number allocates no key.
    public static func withEncodedInteger<T>(_ value: Int64, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        var storage: (UInt64, UInt64) = (0, 0)
        return try withUnsafeMutableBytes(of: &storage) { bytes in
            let length = writeInteger(value, to: bytes.baseAddress!)
            return try body(UnsafeRawBufferPointer(rebasing: bytes[0..<length]))
        }
    }

    /// The length of `.int(value)`'s encoding: its tag and the magnitude's bytes.
    public static func encodedLength(ofInteger value: Int64) -> Int {
        1 + magnitudeLength(value.magnitude)
    }

    /// Writes the encoding of `.int(value)` at `start`, which has room for
    /// ``encodedLength(ofInteger:)`` bytes (9 at most); returns that length.
    @discardableResult
    public static func writeInteger(_ value: Int64, to start: UnsafeMutableRawPointer) -> Int {
        let isNegative = value < 0
        let magnitude = value.magnitude
        let length = magnitudeLength(magnitude)
        start.storeBytes(of: isNegative ? Tag.integerZero - UInt8(length) : Tag.integerZero + UInt8(length), as: UInt8.self)
        let payload = isNegative ? ~magnitude : magnitude
        for index in 0..<length {
            start.storeBytes(of: UInt8(truncatingIfNeeded: payload >> ((length - 1 - index) * 8)), toByteOffset: 1 + index, as: UInt8.self)
        }
        return 1 + length
    }

    /// Bytes the magnitude takes: none for zero (K10).
    private static func magnitudeLength(_ magnitude: UInt64) -> Int {
        (UInt64.bitWidth - magnitude.leadingZeroBitCount + 7) / 8
    }

    /// Spec K10: tag by sign and length, then the magnitude (one's complement if negative).
    private static func appendInteger(isNegative: Bool, magnitude: UInt64, into output: inout [UInt8]) {
        let length = magnitudeLength(magnitude)
        output.append(isNegative ? Tag.integerZero - UInt8(length) : Tag.integerZero + UInt8(length))
        let payload = isNegative ? ~magnitude : magnitude
        var shift = (length - 1) * 8
        while shift >= 0 {
            output.append(UInt8(truncatingIfNeeded: payload >> shift))
            shift -= 8
        }
    }

    /// Spec K11: the canonical IEEE bits, transformed so unsigned order is numeric order.
    static func sortableBits(_ value: Double) -> UInt64 {
        let bits = value.isNaN ? canonicalNaNBits : value == 0 ? 0 : value.bitPattern
        return bits & signBit == 0 ? bits | signBit : ~bits
    }

    private static func appendFloat(_ value: Double, tag: UInt8, into output: inout [UInt8]) {
        output.append(tag)
        withUnsafeBytes(of: sortableBits(value).bigEndian) { output.append(contentsOf: $0) }
    }

    /// Spec K13: content with each 0x00 written as 00 FF, then the terminator.
    private static func appendEscaped(_ content: some Collection<UInt8>, into output: inout [UInt8]) {
        if content.contains(terminator) {
            for byte in content {
                output.append(byte)
                if byte == terminator { output.append(escapedZero) }
            }
        } else {
            output.append(contentsOf: content)
        }
        output.append(terminator)
    }
}

/// Reads values from untrusted bytes; every check failure is a `KeyEncodingError`.
private struct KeyDecoder {
    typealias Tag = KeyEncoding.Tag

    let bytes: UnsafeRawBufferPointer
    var position = 0

    mutating func decodeTuple() throws(KeyEncodingError) -> [KeyValue] {
        var values: [KeyValue] = []
        while position < bytes.count {
            values.append(try decodeValue())
        }
        return values
    }

    private mutating func decodeValue() throws(KeyEncodingError) -> KeyValue {
        let start = position
        let tag = bytes[position]
        position += 1
        switch tag {
        case Tag.null:
            return .null
        case Tag.false:
            return .bool(false)
        case Tag.true:
            return .bool(true)
        case Tag.negativeInteger8...Tag.positiveInteger8:
            return try decodeInteger(tag: tag, start: start)
        case Tag.double:
            return .double(try decodeFloat(start: start))
        case Tag.string:
            let content = try decodeEscaped(start: start)
            let string = String(decoding: content, as: UTF8.self)
            // Decoding repairs ill-formed UTF-8 with U+FFFD, which changes the bytes.
            guard string.utf8.elementsEqual(content) else { throw .invalidUTF8(offset: start) }
            return .string(string)
        case Tag.bytes:
            return .bytes(try decodeEscaped(start: start))
        case Tag.date:
            return .date(Date(timeIntervalSinceReferenceDate: try decodeFloat(start: start)))
        default:
            throw .unknownTypeTag(tag, offset: start)
        }
    }

    /// Reads `count` bytes as a big-endian unsigned integer.
    private mutating func readBigEndian(count: Int, start: Int) throws(KeyEncodingError) -> UInt64 {
        guard bytes.count - position >= count else { throw .truncated(offset: start) }
        var value: UInt64 = 0
        for byte in bytes[position..<position + count] {
            value = value << 8 | UInt64(byte)
        }
        position += count
        return value
    }

    /// Spec K10, with the checks of K14 that keep every accepted encoding canonical.
    private mutating func decodeInteger(tag: UInt8, start: Int) throws(KeyEncodingError) -> KeyValue {
        let isNegative = tag < Tag.integerZero
        let length = Int(isNegative ? Tag.integerZero - tag : tag - Tag.integerZero)
        if length == 0 { return .int(0) }
        let payload = try readBigEndian(count: length, start: start)
        let leadingByte = payload >> (8 * (length - 1))
        guard leadingByte != (isNegative ? 0xFF : 0x00) else { throw .nonMinimalInteger(offset: start) }
        guard isNegative else {
            return payload <= UInt64(Int64.max) ? .int(Int64(payload)) : .uint(payload)
        }
        let magnitude = ~payload & (UInt64.max >> (UInt64.bitWidth - 8 * length))
        guard magnitude <= Int64.min.magnitude else { throw .integerOutOfRange(offset: start) }
        // Two's complement negation; a magnitude of 2^63 becomes Int64.min.
        return .int(Int64(truncatingIfNeeded: 0 &- magnitude))
    }

    /// Spec K11, rejecting -0.0 and non-canonical NaNs.
    private mutating func decodeFloat(start: Int) throws(KeyEncodingError) -> Double {
        let sortable = try readBigEndian(count: 8, start: start)
        let bits = sortable & KeyEncoding.signBit != 0 ? sortable ^ KeyEncoding.signBit : ~sortable
        let value = Double(bitPattern: bits)
        guard KeyEncoding.sortableBits(value) == sortable else { throw .nonCanonicalFloat(offset: start) }
        return value
    }

    /// Spec K13 and K15: the unescaped content up to the terminator, which is consumed.
    private mutating func decodeEscaped(start: Int) throws(KeyEncodingError) -> [UInt8] {
        var content: [UInt8] = []
        var runStart = position
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            guard byte == KeyEncoding.terminator else { continue }
            content.append(contentsOf: bytes[runStart..<position - 1])
            guard position < bytes.count, bytes[position] == KeyEncoding.escapedZero else {
                return content
            }
            content.append(KeyEncoding.terminator)
            position += 1
            runStart = position
        }
        throw .truncated(offset: start)
    }
}

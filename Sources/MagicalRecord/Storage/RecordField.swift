import Foundation
import MagicalStore

/// Reading one field of a record where it lies (after ``RecordCoder/locateAttributes(_:number:wanted:offsets:ends:)``
/// has checked the record), and the orders ``AttributeValue/compare(_:_:)`` gives, applied
/// to the bytes: what lets filters and sorted scans judge a record without decoding it.
enum RecordField {
    /// The integer whose payload starts at `payload`; nil when its varint does not end
    /// inside the record.
    static func integer(_ record: UnsafeRawBufferPointer, at payload: Int) -> Int64? {
        var reader = ByteReader(record, at: payload)
        return reader.readVarintUInt64().map(RecordCoder.unzigzag)
    }

    /// The `T` at `payload`, little-endian; nil when it would run past the record (a
    /// damaged one: the decoder reports it).
    @inline(__always)
    private static func fixed<T: FixedWidthInteger>(_ record: UnsafeRawBufferPointer, at payload: Int, as type: T.Type) -> T? {
        guard payload + MemoryLayout<T>.size <= record.count else { return nil }
        return record.loadLittleEndian(at: payload, as: T.self)
    }

    /// A compact number's 32-bit integer (O12).
    @inline(__always)
    static func compact(_ record: UnsafeRawBufferPointer, at payload: Int) -> Int64? {
        fixed(record, at: payload, as: Int32.self).map(Int64.init)
    }

    /// The value of a double field in any of its forms (O12), as the decoder reads it; nil
    /// when `tag` is not a double's (or the field runs past the record).
    @inline(__always)
    static func double(_ record: UnsafeRawBufferPointer, tag: UInt8, at payload: Int) -> Double? {
        switch tag {
        case RecordCoder.Tag.double: return fixed(record, at: payload, as: UInt64.self).map(Double.init(bitPattern:))
        case RecordCoder.Tag.wholeDouble: return compact(record, at: payload).map { Double($0) }
        case RecordCoder.Tag.hundredthsDouble: return compact(record, at: payload).map { Double($0) / 100 }
        default: return nil
        }
    }

    /// A date field's seconds since 1970 in either form; nil when `tag` is not a date's.
    @inline(__always)
    static func dateSeconds(_ record: UnsafeRawBufferPointer, tag: UInt8, at payload: Int) -> Double? {
        switch tag {
        case RecordCoder.Tag.date: return fixed(record, at: payload, as: UInt64.self).map(Double.init(bitPattern:))
        case RecordCoder.Tag.wholeSecondsDate: return compact(record, at: payload).map { Double($0) }
        default: return nil
        }
    }

    /// The bytes of the text whose payload starts at `payload`, when they are all ASCII
    /// (which needs no validation); nil otherwise, for the decoder to validate.
    static func asciiText(_ record: UnsafeRawBufferPointer, at payload: Int) -> UnsafeRawBufferPointer? {
        var reader = ByteReader(record, at: payload)
        guard let count = reader.readVarint(), let start = reader.skip(count) else { return nil }
        let text = UnsafeRawBufferPointer(rebasing: record[start..<start + count])
        return isASCII(text) ? text : nil
    }

    /// Whether every byte is below 0x80 (ASCII text needs no UTF-8 validation): eight at a
    /// time, the last load overlapping the one before, so short texts cost two loads.
    @inline(__always)
    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        var high: UInt64
        if count >= 8 {
            high = bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            var index = 0
            while index + 8 < count {
                high |= bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                index += 8
            }
        } else if count >= 4 {
            high = UInt64(bytes.loadUnaligned(as: UInt32.self) | bytes.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
        } else {
            high = 0
            for byte in bytes { high |= UInt64(byte) }
        }
        return high & 0x8080_8080_8080_8080 == 0
    }

    /// A constant a field is ordered against in place; a string's bytes the caller holds.
    enum InPlaceConstant {
        case integer(Int64)
        case double(Double)
        /// A double that is a whole number of hundredths (O12), with that number: stored
        /// hundredths order against it as integers, without a division.
        case hundredths(Double, Int64)
        case date(Date)
        case string

        /// The constant for the double `value`, with its hundredths when it has them.
        static func of(_ value: Double) -> InPlaceConstant {
            RecordCoder.hundredths(of: value).map { .hundredths(value, Int64($0)) } ?? .double(value)
        }
    }

    /// How the field whose tag is at `start` orders against `constant` (`text`: the
    /// constant's UTF-8 bytes, for a string), as ``AttributeValue/compare(_:_:)`` orders the
    /// decoded value; nil when it cannot be told in place: a field of another kind than the
    /// constant, or non-ASCII text (which a decode validates).
    static func compare(
        _ record: UnsafeRawBufferPointer, fieldAt start: Int, against constant: InPlaceConstant, text: UnsafeRawBufferPointer
    ) -> ComparisonResult? {
        let payload = start + 1
        let tag = record[start]
        switch (constant, tag) {
        case (.integer(let other), RecordCoder.Tag.integer):
            return integer(record, at: payload).map { order($0, other) }
        case (.integer(let other), RecordCoder.Tag.wholeDouble), (.integer(let other), RecordCoder.Tag.hundredthsDouble):
            // 32-bit whole numbers and hundredths order against an integer in integers,
            // exactly as their doubles do: no conversion, no division.
            let scale: Int64 = tag == RecordCoder.Tag.wholeDouble ? 1 : 100
            let (scaled, overflow) = other.multipliedReportingOverflow(by: scale)
            guard !overflow else { return double(record, tag: tag, at: payload).flatMap { compareExactly(other, $0) }.map(\.reversed) }
            return compact(record, at: payload).map { order($0, scaled) }
        case (.integer(let other), _):
            return double(record, tag: tag, at: payload).flatMap { compareExactly(other, $0) }.map(\.reversed)
        case (.hundredths(_, let scaled), RecordCoder.Tag.hundredthsDouble):
            // Distinct 32-bit hundredths are distinct doubles, in the same order.
            return compact(record, at: payload).map { order($0, scaled) }
        case (.double(let other), RecordCoder.Tag.integer), (.hundredths(let other, _), RecordCoder.Tag.integer):
            return integer(record, at: payload).flatMap { compareExactly($0, other) }
        case (.double(let other), _), (.hundredths(let other, _), _):
            return double(record, tag: tag, at: payload).map { orderDoubles($0, other) }
        case (.date(let other), _):
            return dateSeconds(record, tag: tag, at: payload).map { order(Date(timeIntervalSince1970: $0), other) }
        case (.string, RecordCoder.Tag.string):
            return asciiText(record, at: payload).map { byteOrder($0, text) }
        default:
            return nil
        }
    }

    /// Byte by byte, then the shorter first: the order of UTF-8 strings.
    static func byteOrder(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> ComparisonResult {
        let common = min(left.count, right.count)
        if common > 0, let a = left.baseAddress, let b = right.baseAddress {
            let difference = memcmp(a, b, common)
            if difference != 0 { return difference < 0 ? .orderedAscending : .orderedDescending }
        }
        return order(left.count, right.count)
    }
}

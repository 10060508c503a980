import Foundation
import MagicalStore

/// Reading one field of a record where it lies (after ``RecordCoder/locateAttributes(_:number:wanted:offsets:)``
/// has checked the record), and the orders ``AttributeValue/compare(_:_:)`` gives, applied
/// to the bytes: what lets filters and sorted scans judge a record without decoding it.
enum RecordField {
    /// The integer whose payload starts at `payload`.
    static func integer(_ record: UnsafeRawBufferPointer, at payload: Int) -> Int64 {
        var reader = ByteReader(record, at: payload)
        let zigzag = reader.readVarintUInt64() ?? 0
        return Int64(bitPattern: (zigzag >> 1) ^ (0 &- (zigzag & 1)))
    }

    /// The double (or a date's seconds since 1970) whose payload starts at `payload`.
    static func double(_ record: UnsafeRawBufferPointer, at payload: Int) -> Double {
        Double(bitPattern: record.loadLittleEndian(at: payload, as: UInt64.self))
    }

    /// The bytes of the text whose payload starts at `payload`, when they are all ASCII
    /// (which needs no validation); nil otherwise, for the decoder to validate.
    static func asciiText(_ record: UnsafeRawBufferPointer, at payload: Int) -> UnsafeRawBufferPointer? {
        var reader = ByteReader(record, at: payload)
        guard let count = reader.readVarint(), let start = reader.skip(count) else { return nil }
        let text = UnsafeRawBufferPointer(rebasing: record[start..<start + count])
        return isASCII(text) ? text : nil
    }

    /// Whether every byte is below 0x80 (ASCII text needs no UTF-8 validation), eight at a
    /// time.
    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        var high: UInt64 = 0
        while index + 8 <= bytes.count {
            high |= bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < bytes.count {
            high |= UInt64(bytes[index])
            index += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }

    /// A constant a field is ordered against in place; a string's bytes the caller holds.
    enum InPlaceConstant {
        case integer(Int64)
        case double(Double)
        case date(Date)
        case string
    }

    /// How the field whose tag is at `start` orders against `constant` (`text`: the
    /// constant's UTF-8 bytes, for a string), as ``AttributeValue/compare(_:_:)`` orders the
    /// decoded value; nil when it cannot be told in place: a field of another kind than the
    /// constant, or non-ASCII text (which a decode validates).
    static func compare(
        _ record: UnsafeRawBufferPointer, fieldAt start: Int, against constant: InPlaceConstant, text: UnsafeRawBufferPointer
    ) -> ComparisonResult? {
        let payload = start + 1
        switch (constant, record[start]) {
        case (.integer(let other), RecordCoder.Tag.integer):
            return order(integer(record, at: payload), other)
        case (.integer(let other), RecordCoder.Tag.double):
            return compareExactly(other, double(record, at: payload)).map(\.reversed)
        case (.double(let other), RecordCoder.Tag.integer):
            return compareExactly(integer(record, at: payload), other)
        case (.double(let other), RecordCoder.Tag.double):
            return orderDoubles(double(record, at: payload), other)
        case (.date(let other), RecordCoder.Tag.date):
            return order(Date(timeIntervalSince1970: double(record, at: payload)), other)
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

import Foundation

/// Orders one attribute of a record against a bound without decoding the record: a sorted
/// scan turns away most objects on their first sort key with it, building no value.
final class SortKeyProbe {
    private let coder: RecordCoder
    private let position: Int
    private let wanted: UnsafeMutableBufferPointer<Bool>
    private let offsets: UnsafeMutableBufferPointer<Int>
    private var bound: AttributeValue = .null
    /// The bound's UTF-8 bytes when it is a string.
    private var boundText: [UInt8] = []

    init(coder: RecordCoder, position: Int) {
        self.coder = coder
        self.position = position
        let count = coder.defaultAttributes.count
        wanted = .allocate(capacity: count)
        wanted.initialize(repeating: false)
        wanted[position] = true
        offsets = .allocate(capacity: count)
        offsets.initialize(repeating: -1)
    }

    deinit {
        wanted.deallocate()
        offsets.deallocate()
    }

    /// The value records are ordered against from now on.
    func setBound(_ value: AttributeValue) {
        bound = value
        if case .string(let text) = value { boundText = Array(text.utf8) }
    }

    /// The order of the attribute in `record` against the bound, as ``AttributeValue/compare(_:_:)``
    /// gives it for the decoded value; nil when it cannot be told in place (a field the
    /// record lacks, of another kind than the bound, or non-ASCII text), so the caller
    /// decodes. A damaged record is an error, as a decode makes it.
    func keyOrder(of record: UnsafeRawBufferPointer, number: Int64) throws(MagicalRecordError) -> ComparisonResult? {
        try coder.locateAttributes(record, number: number, wanted: UnsafeBufferPointer(wanted), offsets: offsets)
        let start = offsets[position]
        guard start >= 0 else { return nil }
        let payload = start + 1
        switch (record[start], bound) {
        case (RecordCoder.Tag.integer, .integer(let other)):
            return order(RecordField.integer(record, at: payload), other)
        case (RecordCoder.Tag.integer, .double(let other)):
            return compareExactly(RecordField.integer(record, at: payload), other)
        case (RecordCoder.Tag.double, .integer(let other)):
            return compareExactly(other, RecordField.double(record, at: payload)).map(\.reversed)
        case (RecordCoder.Tag.double, .double(let other)):
            return orderDoubles(RecordField.double(record, at: payload), other)
        case (RecordCoder.Tag.date, .date(let other)):
            return order(Date(timeIntervalSince1970: RecordField.double(record, at: payload)), other)
        case (RecordCoder.Tag.string, .string):
            guard let text = RecordField.asciiText(record, at: payload) else { return nil }
            return boundText.withUnsafeBytes { RecordField.byteOrder(text, $0) }
        default:
            return nil
        }
    }
}

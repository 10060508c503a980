import Foundation

/// Orders one attribute of a record against a bound without decoding the record: a sorted
/// scan turns away most objects on their first sort key with it, building no value.
final class SortKeyProbe {
    private let coder: RecordCoder
    private let position: Int
    private let wanted: UnsafeMutableBufferPointer<Bool>
    private let offsets: UnsafeMutableBufferPointer<Int>
    private let ends: UnsafeMutableBufferPointer<Int>
    private let shape: RecordShape
    /// The bound as a field compares with it in place; nil for a kind that does not.
    private var bound: RecordField.InPlaceConstant?
    /// The bound's UTF-8 bytes when it is a string (owned here: an array property was
    /// retained at every record).
    private var boundText = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    init(coder: RecordCoder, position: Int) {
        self.coder = coder
        self.position = position
        let count = coder.defaultAttributes.count
        wanted = .allocate(capacity: count)
        wanted.initialize(repeating: false)
        wanted[position] = true
        offsets = .allocate(capacity: count)
        offsets.initialize(repeating: -1)
        ends = .allocate(capacity: count)
        ends.initialize(repeating: -1)
        shape = coder.makeShape()
    }

    deinit {
        wanted.deallocate()
        offsets.deallocate()
        ends.deallocate()
        boundText.deallocate()
    }

    /// The value records are ordered against from now on.
    func setBound(_ value: AttributeValue) {
        switch value {
        case .integer(let number): bound = .integer(number)
        case .double(let number): bound = .of(number)
        case .date(let date): bound = .date(date)
        case .string(let text):
            bound = .string
            boundText.deallocate()
            boundText = .allocate(byteCount: text.utf8.count, alignment: 1)
            boundText.copyBytes(from: text.utf8)
        default: bound = nil
        }
    }

    /// The order of the attribute in `record` against the bound, as ``AttributeValue/compare(_:_:)``
    /// gives it for the decoded value; nil when it cannot be told in place (a field the
    /// record lacks, of another kind than the bound, or non-ASCII text), so the caller
    /// decodes. A damaged record is an error, as a decode makes it.
    func keyOrder(of record: UnsafeRawBufferPointer, number: Int64) throws(MagicalRecordError) -> ComparisonResult? {
        guard let bound else { return nil }
        let header = try coder.header(record, number: number, shape: shape)
        let range: Range<Int>
        if header.hasPresence {
            guard let found = try coder.attributeField(position, header, record, number: number, shape: shape) else { return nil }
            range = found
        } else {
            try coder.locateAttributes(record, header, number: number, wanted: UnsafeBufferPointer(wanted), offsets: offsets, ends: ends, shape: shape)
            guard offsets[position] >= 0 else { return nil }
            range = offsets[position]..<ends[position]
        }
        // The field's own bytes: a damaged one never reads into the next.
        let field = UnsafeRawBufferPointer(rebasing: record[range])
        return RecordField.compare(field, fieldAt: 0, against: bound, text: UnsafeRawBufferPointer(boundText))
    }
}

import MagicalStore
@testable import MagicalRecord

/// Records as object formats 2 and 3 wrote them: an offset table (Spec/OBJECT-STORE.md
/// section 4), which this library still reads but no longer writes.
enum OffsetTableRecords {
    /// The version of 1-byte offsets that may hold compact numbers (O12): 6 and 7 have 2
    /// and 4 bytes; 2-4 are the same three, written before compact numbers.
    static let firstVersionWithCompactNumbers: UInt8 = 5

    /// `valueList`, a record of version 9, as the offset table those formats wrote for it:
    /// the narrowest offsets its values allow (versions 5-7: 1, 2 and 4 bytes).
    static func offsetTable(from valueList: [UInt8]) -> [UInt8] {
        valueList.withUnsafeBytes { raw in
            var reader = ByteReader(raw)
            precondition(reader.read(UInt8.self) == RecordLayout.valueList, "not a value list")
            let code = reader.readVarint()!
            let presence = reader.readVarintUInt64()!
            let valuesStart = reader.position
            var starts: [Int] = []
            var at = valuesStart
            for _ in 0..<presence.nonzeroBitCount {
                starts.append(at - valuesStart)
                at = RecordCoder.valueEnd(raw, from: at)!
            }
            precondition(at == raw.count, "bytes after the values")
            let length = raw.count - valuesStart
            let width = length <= 0x100 ? 1 : (length <= 0x1_0000 ? 2 : 4)
            var record: [UInt8] = [firstVersionWithCompactNumbers + (width == 1 ? 0 : (width == 2 ? 1 : 2))]
            record.appendVarint(code)
            record.appendVarint(presence)
            for start in starts.dropFirst() {
                switch width {
                case 1: record.append(UInt8(start))
                case 2: record.appendLittleEndian(UInt16(start))
                default: record.appendLittleEndian(UInt32(start))
                }
            }
            return record + raw[valuesStart...]
        }
    }
}

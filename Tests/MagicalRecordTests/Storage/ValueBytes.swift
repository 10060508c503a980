@testable import MagicalRecord

extension RecordCoder {
    /// Appends `value`'s tag and payload to `bytes`, as a record's builder writes them.
    static func append(_ value: AttributeValue, to bytes: inout [UInt8]) {
        var builder = RecordLayout.Builder()
        builder.add(value, slot: 0)
        bytes += builder.valueBytes
    }
}

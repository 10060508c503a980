import Foundation
import MagicalStore

/// Where the object layer keeps things in the engine's named trees (Spec/OBJECT-STORE.md).
enum StoreLayout {
    /// Metadata: the model, the slot map, the object-number counter.
    static let metadataTree = "mr.meta"

    /// Records of one concrete entity, keyed by object number.
    static func objectTree(_ entity: String) -> String { "o.\(entity)" }

    /// One index of one concrete entity: key (value, object number), empty value.
    static func indexTree(_ entity: String, _ attribute: String) -> String { "i.\(entity).\(attribute)" }

    /// One to-many relationship of one concrete entity: runs of members keyed (source
    /// number, last member's number) for an unordered one (``MemberChunk``, O14); for an
    /// ordered one, key (source number, position), value the target's entity code and
    /// number.
    static func relationshipTree(_ entity: String, _ relationship: String) -> String { "r.\(entity).\(relationship)" }

    static func objectKey(_ number: Int64) -> [UInt8] { KeyEncoding.encode(.int(number)) }

    /// Appends ``objectKey(_:)`` to `bytes` (a batch's buffer).
    static func appendObjectKey(_ number: Int64, to bytes: inout [UInt8]) {
        KeyEncoding.encode(.int(number), into: &bytes)
    }

    /// The ``objectKey(_:)`` of each of `numbers`, in order, as a batch to look up.
    static func objectKeys(_ numbers: [Int64]) -> EntryBatch { EntryBatch(integerKeys: numbers) }

    /// A to-many entry's value: the target's entity code, then its number in an ordered
    /// relationship only (an unordered one's key ends with the number; O13).
    static func targetValue(code: Int, number: Int64, ordered: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(ordered ? varintSize(code) + varintSize(Int(number)) : varintSize(code))
        bytes.appendVarint(code)
        if ordered { bytes.appendVarint(Int(number)) }
        return bytes
    }

    /// The target a to-many entry names: its entity code and number, the number from the
    /// value when it has one (ordered entries, and every entry written before O13), else
    /// from `keyNumber`, the key's last part. Nil when the value is malformed.
    static func target(_ value: UnsafeRawBufferPointer, keyNumber: () throws -> Int64?) rethrows -> (code: Int, number: Int64)? {
        var reader = ByteReader(value)
        guard let code = reader.readVarint() else { return nil }
        if reader.position == value.count { return try keyNumber().map { (code, $0) } }
        guard let number = reader.readVarint(), reader.position == value.count else { return nil }
        return (code, Int64(number))
    }

    static func indexKey(_ value: AttributeValue, _ number: Int64) -> [UInt8] {
        KeyEncoding.encode(keyValue(value), .int(number))
    }

    /// Appends ``indexKey(_:_:)`` to `bytes` (a batch's buffer).
    static func appendIndexKey(_ value: AttributeValue, _ number: Int64, to bytes: inout [UInt8]) {
        KeyEncoding.encode(keyValue(value), into: &bytes)
        KeyEncoding.encode(.int(number), into: &bytes)
    }

    /// All index entries for `value`: a byte prefix of every ``indexKey(_:_:)`` for it (K9).
    static func indexPrefix(_ value: AttributeValue) -> [UInt8] {
        KeyEncoding.encode(keyValue(value))
    }

    /// Appends ``indexPrefix(_:)`` to `bytes` (a batch's buffer).
    static func appendIndexPrefix(_ value: AttributeValue, to bytes: inout [UInt8]) {
        KeyEncoding.encode(keyValue(value), into: &bytes)
    }

    /// The ``indexPrefix(_:)`` of `.integer` each of `numbers`, in order, as a batch to scan.
    static func integerIndexPrefixes(_ numbers: [Int64]) -> EntryBatch { EntryBatch(integerKeys: numbers) }

    /// The key-encoding form of an attribute value, so index order is value order.
    /// Decimals index as doubles: the planner re-checks candidates against the predicate.
    static func keyValue(_ value: AttributeValue) -> KeyValue {
        switch value {
        case .null: return .null
        case .integer(let number): return .int(number)
        case .double(let number): return .double(number)
        case .float(let number): return .double(Double(number))
        case .decimal: return .double(value.doubleValue ?? 0)
        case .bool(let flag): return .bool(flag)
        case .string(let text): return .string(text)
        case .date(let date): return .date(date)
        case .data(let bytes): return .bytes(Array(bytes))
        case .uuid(let uuid): return .bytes(withUnsafeBytes(of: uuid.uuid) { Array($0) })
        case .uri(let url): return .string(url.absoluteString)
        }
    }
}

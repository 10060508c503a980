import MagicalStore

/// The layouts of a record's fields (Spec/OBJECT-STORE.md section 4, O11).
///
/// A record whose slots are all below 64 says which it has in a presence mask, its values
/// following in slot order (a value list). Other records list each field under its slot
/// number (a slot list), which any slot fits. Records of format 2 and 3 stores may also
/// carry a table of where each value starts (an offset table), which reads still take.
enum RecordLayout {
    /// The slot list written: version 8, which may hold compact numbers (O12); version 1,
    /// written before them, still reads.
    static let slotList: UInt8 = 8
    static let slotListBeforeCompactNumbers: UInt8 = 1
    /// The value list, written from object format 4 on.
    static let valueList: UInt8 = 9
    /// Offset tables of 1, 2 and 4 bytes per entry, no longer written: versions 5-7 may
    /// hold compact numbers, versions 2-4 were written before them.
    static let offsetTables: ClosedRange<UInt8> = 2...7

    static func isSlotList(_ version: UInt8) -> Bool {
        version == slotList || version == slotListBeforeCompactNumbers
    }
    /// Slots the presence mask holds.
    static let maskedSlots = 64

    /// A record's header, read and checked: where its fields are.
    struct Header {
        let version: UInt8
        /// Slot lists: the field count; otherwise the number of values.
        let count: Int
        /// Slot lists: where the first field starts; otherwise where the first value does.
        let fieldsStart: Int
        /// Value lists and offset tables: bit `s` set when slot `s` has a value.
        let presence: UInt64
        /// Offset tables only: where the table starts and each entry's width.
        let tableStart: Int
        let width: Int

        /// Reads the header of `raw`, a record of the entity coded `entityCode`; nil when it
        /// is not one. `valueCount` counts a presence mask's values: a caller reading many
        /// records of one shape can remember it (without a POPCNT instruction in the
        /// baseline target, a bit count is a dozen instructions).
        @inline(__always)
        init?(_ raw: UnsafeRawBufferPointer, entityCode: Int, valueCount: (UInt64) -> Int = { $0.nonzeroBitCount }) {
            var reader = ByteReader(raw)
            guard let version = reader.read(UInt8.self), reader.readVarint() == entityCode else { return nil }
            self.version = version
            if RecordLayout.isSlotList(version) {
                guard let count = reader.readVarint() else { return nil }
                self.count = count
                fieldsStart = reader.position
                presence = 0
                tableStart = 0
                width = 0
                return
            }
            guard version == RecordLayout.valueList || RecordLayout.offsetTables.contains(version),
                  let presence = reader.readVarintUInt64() else { return nil }
            self.presence = presence
            count = valueCount(presence)
            if version == RecordLayout.valueList {
                width = 0
                tableStart = reader.position
                fieldsStart = tableStart
                // Every value has at least its tag byte.
                guard raw.count - fieldsStart >= count else { return nil }
                return
            }
            // Versions 2 and 5 have 1-byte offsets, 3 and 6 2-byte, 4 and 7 4-byte.
            width = 1 << (Int(version - 2) % 3)
            tableStart = reader.position
            fieldsStart = tableStart + max(count - 1, 0) * width
            // Every value has at least its tag byte.
            guard raw.count - fieldsStart >= count else { return nil }
        }

        var hasOffsetTable: Bool { width > 0 }
        /// A value list or an offset table: the slots are the presence mask's bits.
        var hasPresence: Bool { !RecordLayout.isSlotList(version) }

        /// Offset tables only: where value `index` (counted in slot order) starts and ends
        /// in `raw`; nil when the table puts it out of order or past the end.
        @inline(__always)
        func valueRange(_ index: Int, in raw: UnsafeRawBufferPointer) -> Range<Int>? {
            let start = index == 0 ? fieldsStart : fieldsStart + offset(index - 1, raw)
            let end = index == count - 1 ? raw.count : fieldsStart + offset(index, raw)
            guard start < end, end <= raw.count else { return nil }
            return start..<end
        }

        /// Table entry `entry`: value `entry + 1`'s offset from the first value.
        @inline(__always)
        private func offset(_ entry: Int, _ raw: UnsafeRawBufferPointer) -> Int {
            let at = tableStart + entry * width
            switch width {
            case 1: return Int(raw[at])
            case 2: return Int(raw.loadLittleEndian(at: at, as: UInt16.self))
            default: return Int(raw.loadLittleEndian(at: at, as: UInt32.self))
            }
        }
    }

    /// Steps through a record's fields in order, in any layout.
    struct SlotReader {
        private let header: Header
        private var unvisited: UInt64
        private var index = 0
        /// Slot lists: the slots seen so far, to refuse one listed twice (which a partial
        /// read, taking the first, and a full one, taking the last, would read differently).
        private var listedBelow64: UInt64 = 0
        private var listedFrom64: Set<Int> = []

        init(_ header: Header) {
            self.header = header
            unvisited = header.presence
        }

        /// The next field's slot, with `reader` moved to its value (its tag); nil when the
        /// record is damaged there. Call it `header.count` times.
        @inline(__always)
        mutating func next(_ reader: inout ByteReader, in raw: UnsafeRawBufferPointer) -> Int? {
            defer { index += 1 }
            guard header.hasPresence else {
                guard let slot = reader.readVarint() else { return nil }
                if slot < RecordLayout.maskedSlots {
                    guard listedBelow64 & (1 << UInt64(slot)) == 0 else { return nil }
                    listedBelow64 |= 1 << UInt64(slot)
                } else {
                    guard listedFrom64.insert(slot).inserted else { return nil }
                }
                return slot
            }
            let slot = unvisited.trailingZeroBitCount
            unvisited &= unvisited - 1
            // Values lie one after another, each where a table says.
            guard !header.hasOffsetTable || header.valueRange(index, in: raw)?.lowerBound == reader.position else { return nil }
            return slot
        }
    }

    /// Gathers a record's fields (each value as its tag and payload, under its slot) and
    /// writes the record in the layout its slots allow. One builder serves record after
    /// record (``reset()`` keeps its buffers): a commit encodes thousands, and fresh
    /// buffers for each were most of the allocations of an import.
    ///
    /// Bytes are stored through a raw pointer once room is made: appending them one by one
    /// checked an array's uniqueness and capacity for each, and with the unspecialised
    /// generic appends that took a record's encoding to 4,100 instructions (callgrind).
    struct Builder {
        /// The values' bytes, one after another, in `buffer[..<length]`; the rest is room.
        private var buffer = [UInt8](repeating: 0, count: 256)
        private var length = 0
        /// The header of the record being written: a version, an entity code and a mask.
        private var head = [UInt8](repeating: 0, count: 21)
        /// Each value's slot and where it starts in `buffer`; `write` fills in the ends.
        private var fields: [(slot: Int, start: Int, end: Int)] = []
        /// The builder's own buffer, kept aside while a value list is written straight onto
        /// a caller's (``beginValueList(entityCode:presence:onto:)``).
        private var parked: [UInt8] = []
        /// Room made at a time (``Swift/Array/appendZeros(_:)``: appending repeated zeros
        /// went byte by byte, 470 instructions a record): enough for most records, and
        /// never the doubling of a caller's whole buffer.
        private static let roomAtATime = 256

        init() {
            fields.reserveCapacity(16)
        }

        /// Forgets the fields, keeping the buffers for the next record.
        mutating func reset() {
            length = 0
            fields.removeAll(keepingCapacity: true)
        }

        /// The values' bytes so far, one after another (for tests).
        var valueBytes: ArraySlice<UInt8> { buffer[..<length] }

        /// Starts the value of `slot`; its tag and payload are appended next.
        mutating func beginValue(slot: Int) {
            fields.append((slot, length, 0))
        }

        mutating func add(_ value: AttributeValue, slot: Int) {
            beginValue(slot: slot)
            RecordCoder.append(value, to: &self)
        }

        /// Appends what `store` writes at the pointer it is given, at most `maximum` bytes;
        /// it returns how many it wrote.
        @inline(__always)
        mutating func appendValueBytes(upTo maximum: Int, _ store: (UnsafeMutableRawPointer) -> Int) {
            if length + maximum > buffer.count { makeRoom(length + maximum - buffer.count) }
            let start = length
            length += buffer.withUnsafeMutableBytes { store($0.baseAddress! + start) }
        }

        /// Appends `bytes` as they are (a value copied from another record).
        mutating func appendValueBytes(_ bytes: UnsafeRawBufferPointer) {
            appendValueBytes(upTo: bytes.count) { start in
                if let base = bytes.baseAddress { start.copyMemory(from: base, byteCount: bytes.count) }
                return bytes.count
            }
        }

        /// Appends `tag` and then `bytes` after their length as a varint.
        mutating func appendValueBytes(tag: UInt8, lengthPrefixed bytes: UnsafeRawBufferPointer) {
            appendValueBytes(upTo: 1 + 10 + bytes.count) { start in
                start.storeBytes(of: tag, as: UInt8.self)
                let prefix = 1 + Self.storeVarint(UInt64(bytes.count), at: start + 1)
                if let base = bytes.baseAddress { (start + prefix).copyMemory(from: base, byteCount: bytes.count) }
                return prefix + bytes.count
            }
        }

        /// Appends `tag` alone (a value without payload).
        mutating func appendValueBytes(tag: UInt8) {
            appendValueBytes(upTo: 1) { start in
                start.storeBytes(of: tag, as: UInt8.self)
                return 1
            }
        }

        /// Appends `tag` and then `value`, little-endian.
        @inline(__always)
        mutating func appendValueBytes<Value: FixedWidthInteger>(tag: UInt8, littleEndian value: Value) {
            appendValueBytes(upTo: 1 + MemoryLayout<Value>.size) { start in
                start.storeBytes(of: tag, as: UInt8.self)
                (start + 1).storeBytes(of: value.littleEndian, as: Value.self)
                return 1 + MemoryLayout<Value>.size
            }
        }

        /// Stores `value` as a varint at `start` (room for 10 bytes); returns its size.
        @inline(__always)
        static func storeVarint(_ value: UInt64, at start: UnsafeMutableRawPointer) -> Int {
            UnsafeMutableRawBufferPointer(start: start, count: 10).storeVarint(value, at: 0)
        }

        private mutating func makeRoom(_ count: Int) {
            buffer.appendZeros(max(count, Self.roomAtATime))
        }

        /// Starts a value list written straight onto the end of `record`, for values that
        /// come in slot order, all in `presence`: the header now, each value as it is added
        /// (``RecordCoder/append(_:to:)``, ``appendReference(entityCode:number:)``), and
        /// ``endValueList(onto:)`` hands the record back. No field table and no second copy:
        /// gathering the fields and copying them over was half of a record's encoding.
        mutating func beginValueList(entityCode: Int, presence: UInt64, onto record: inout [UInt8]) {
            // Swapped, not assigned: a second reference would make the next write copy.
            swap(&parked, &buffer)
            swap(&buffer, &record)
            length = buffer.count
            appendValueBytes(upTo: 21) { start in
                start.storeBytes(of: RecordLayout.valueList, as: UInt8.self)
                let size = 1 + Self.storeVarint(UInt64(entityCode), at: start + 1)
                return size + Self.storeVarint(presence, at: start + size)
            }
        }

        /// Ends the value list begun on `record`, which gets its bytes back with the
        /// record after them.
        mutating func endValueList(onto record: inout [UInt8]) {
            buffer.removeLast(buffer.count - length)
            swap(&buffer, &record)
            swap(&buffer, &parked)
            length = 0
        }

        /// A to-one reference's value: its tag, the target's entity code and number.
        mutating func appendReference(entityCode: Int, number: Int64) {
            appendValueBytes(upTo: 21) { start in
                start.storeBytes(of: RecordCoder.Tag.object, as: UInt8.self)
                let size = 1 + Self.storeVarint(UInt64(entityCode), at: start + 1)
                return size + Self.storeVarint(UInt64(number), at: start + size)
            }
        }

        /// Appends the record to `record`.
        mutating func write(entityCode: Int, into record: inout [UInt8]) {
            // One pass: each field's end, whether the slots ascend, and the highest slot.
            var isInSlotOrder = true
            var highestSlot = -1
            let length = length
            fields.withUnsafeMutableBufferPointer { fields in
                for index in fields.indices {
                    fields[index].end = index + 1 < fields.count ? fields[index + 1].start : length
                    if fields[index].slot <= highestSlot { isInSlotOrder = false }
                    highestSlot = max(highestSlot, fields[index].slot)
                }
            }
            if !isInSlotOrder { fields.sort { $0.slot < $1.slot } }
            guard highestSlot >= RecordLayout.maskedSlots else {
                writeValueList(entityCode: entityCode, valuesInOrder: isInSlotOrder, into: &record)
                return
            }
            record.append(RecordLayout.slotList)
            record.appendVarint(entityCode)
            record.appendVarint(fields.count)
            buffer.withUnsafeBytes { values in
                for field in fields {
                    record.appendVarint(field.slot)
                    record.append(contentsOf: UnsafeRawBufferPointer(rebasing: values[field.start..<field.end]))
                }
            }
        }

        /// `valuesInOrder`: the buffer holds the fields in slot order, so it is copied whole.
        /// The record's buffer grows as appends grow it (doubling): reserving each record's
        /// exact size grew a batch's buffer by a few kilobytes at a time, copying it whole.
        private mutating func writeValueList(entityCode: Int, valuesInOrder: Bool, into record: inout [UInt8]) {
            let presence = fields.reduce(UInt64(0)) { $0 | 1 << UInt64($1.slot) }
            // The header in one append: appended byte by byte, each checked the array.
            let headLength = head.withUnsafeMutableBytes { head in
                let start = head.baseAddress!
                start.storeBytes(of: RecordLayout.valueList, as: UInt8.self)
                let size = 1 + Self.storeVarint(UInt64(entityCode), at: start + 1)
                return size + Self.storeVarint(presence, at: start + size)
            }
            head.withUnsafeBytes { record.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[..<headLength])) }
            buffer.withUnsafeBytes { values in
                if valuesInOrder {
                    record.append(contentsOf: UnsafeRawBufferPointer(rebasing: values[..<length]))
                    return
                }
                for field in fields { record.append(contentsOf: UnsafeRawBufferPointer(rebasing: values[field.start..<field.end])) }
            }
        }
    }
}

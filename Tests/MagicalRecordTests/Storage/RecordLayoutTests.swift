import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// Every record layout (a value list when every slot is below 64, a slot list otherwise,
/// the offset tables object formats 2 and 3 wrote, and the slot lists earlier versions
/// wrote for every record) decodes to the state encoded, in full, in part, and field by
/// field in place; damaged bytes are a damaged-record error, never data and never a crash.
@Suite struct RecordLayoutTests {
    private static let model = RecordCodingTests.model
    private static let properties = ["noteID", "title", "body", "rating", "written", "pinned", "author"]

    /// A coder whose Note properties have `slots` (in `properties` order).
    private func coder(slots: [Int]) throws -> RecordCoder {
        var codes = ["Note": 1, "Author": 2, "Author.authorID": 0]
        for (property, slot) in zip(Self.properties, slots) { codes["Note." + property] = slot }
        return try RecordCoder(entity: try #require(Self.model.entity(named: "Note")), slots: SlotMap(codes: codes))
    }

    private func randomText(_ random: inout SplitMix64) -> String {
        let lengths = [0, 3, 12, 200, 300, 70_000]
        let length = lengths[Int.random(in: 0..<(Int.random(in: 0..<20, using: &random) == 0 ? 6 : 4), using: &random)]
        return String(repeating: "é", count: Int.random(in: 0...1, using: &random)) + String(repeating: "x", count: length)
    }

    /// Doubles of every form a record writes (O12): whole, hundredths, any other.
    private func randomDouble(_ random: inout SplitMix64) -> Double {
        switch Int.random(in: 0..<3, using: &random) {
        case 0: return Double(Int.random(in: -1_000_000...1_000_000, using: &random))
        case 1: return Double(Int.random(in: -100_000_000...100_000_000, using: &random)) / 100
        default: return Double.random(in: -1e6...1e6, using: &random)
        }
    }

    private func randomState(_ random: inout SplitMix64) throws -> ObjectState {
        let entity = try #require(Self.model.entity(named: "Note"))
        var state = ObjectState(id: ObjectID(entityName: "Note", number: 9), entity: entity)
        func maybe(_ value: AttributeValue) -> AttributeValue { Int.random(in: 0..<4, using: &random) == 0 ? .null : value }
        state.attributes = [
            .integer(Int64.random(in: -1_000_000...1_000_000, using: &random)),
            maybe(.string(randomText(&random))), maybe(.string(randomText(&random))),
            maybe(.double(randomDouble(&random))),
            maybe(.date(Date(timeIntervalSince1970: Double(Int.random(in: 0...2_000_000_000, using: &random)) + (Bool.random(using: &random) ? 0 : 0.25)))),
            maybe(.bool(Bool.random(using: &random))),
        ]
        let author = Int.random(in: 0..<4, using: &random) == 0 ? nil : ObjectID(entityName: "Author", number: Int64.random(in: 1...1_000_000, using: &random))
        state.relationships = [.toOne(author)]
        return state
    }

    /// Full, partial and in-place reads of `bytes` all give `state`'s values. `shape` goes
    /// from record to record, as in a scan: it must follow each record's mask.
    private func expectReads(
        _ bytes: [UInt8], of state: ObjectState, coder: RecordCoder, shape: RecordShape, random: inout SplitMix64
    ) throws {
        #expect(try coder.decode(bytes, number: 9) == state)
        let mask = (0..<6).map { _ in Bool.random(using: &random) }
        var attributes = coder.defaultAttributes
        let offsets = UnsafeMutableBufferPointer<Int>.allocate(capacity: 6)
        let ends = UnsafeMutableBufferPointer<Int>.allocate(capacity: 6)
        let wanted = UnsafeMutableBufferPointer<Bool>.allocate(capacity: 6)
        _ = wanted.initialize(from: mask)
        defer {
            offsets.deallocate()
            ends.deallocate()
            wanted.deallocate()
        }
        // The same attributes read with the author's reference in place, into buffers that
        // hold another record's values.
        let withTargets = UnsafeMutableBufferPointer<AttributeValue>.allocate(capacity: 6)
        _ = withTargets.initialize(from: [AttributeValue](repeating: .string("stale"), count: 6))
        let targets = UnsafeMutableBufferPointer<ObjectID?>.allocate(capacity: 1)
        targets.initialize(repeating: ObjectID(entityName: "Author", number: 123_456_789))
        defer {
            withTargets.deinitialize()
            withTargets.deallocate()
            targets.deallocate()
        }
        let read = bytes.withUnsafeBytes { raw in
            Result { () throws(MagicalRecordError) in
                try coder.decodeAttributes(raw, number: 9, mask: mask, into: &attributes, shape: shape)
                try coder.locateAttributes(raw, number: 9, wanted: UnsafeBufferPointer(wanted), offsets: offsets, ends: ends, shape: shape)
                try coder.decodeAttributes(raw, number: 9, mask: mask, into: withTargets, targetsOf: [0], into: targets, shape: shape)
            }
        }
        try read.get()
        #expect(.toOne(targets[0]) == state.relationships[0])
        for position in 0..<6 where mask[position] { #expect(withTargets[position] == state.attributes[position]) }
        // One attribute found alone (a sort key's probe) lies where the located one does.
        let fields = bytes.withUnsafeBytes { raw in
            Result { () throws(MagicalRecordError) -> [Range<Int>?]? in
                let header = try coder.header(raw, number: 9, shape: shape)
                guard header.hasPresence else { return nil }
                return try (0..<6).map { position throws(MagicalRecordError) in try coder.attributeField(position, header, raw, number: 9, shape: shape) }
            }
        }
        if let fields = try fields.get() {
            for position in 0..<6 where mask[position] {
                #expect(fields[position] == (offsets[position] >= 0 ? offsets[position]..<ends[position] : nil))
            }
        }
        bytes.withUnsafeBytes { raw in
            for position in 0..<6 where mask[position] {
                #expect(attributes[position] == state.attributes[position])
                guard offsets[position] >= 0 else {
                    #expect(state.attributes[position] == .null)
                    continue
                }
                // The located bytes are the value's, exactly.
                var reader = ByteReader(UnsafeRawBufferPointer(rebasing: raw[offsets[position]..<ends[position]]))
                let value = reader.read(UInt8.self).flatMap { RecordCoder.readValue($0, &reader) }
                #expect(value == state.attributes[position])
                #expect(reader.position == ends[position] - offsets[position])
            }
        }
    }

    /// Offset tables as object formats 2 and 3 wrote them, at every width, still read.
    @Test func offsetTablesStillReadAtEveryWidth() throws {
        let coder = try coder(slots: [0, 1, 2, 3, 4, 5, 6])
        let shape = coder.makeShape()
        var random = SplitMix64(seed: 12)
        var versions = Set<UInt8>()
        for _ in 0..<(300 * testScale) {
            let state = try randomState(&random)
            let bytes = OffsetTableRecords.offsetTable(from: coder.encode(state))
            versions.insert(bytes[0])
            try expectReads(bytes, of: state, coder: coder, shape: shape, random: &random)
        }
        #expect(versions == [5, 6, 7])
    }

    /// Offset tables as libraries before compact numbers wrote them (versions 2-4, every
    /// double and date in 8 bytes) still read.
    @Test func offsetTablesBeforeCompactNumbersStillRead() throws {
        let coder = try coder(slots: [0, 1, 2, 3, 4, 5, 6])
        let shape = coder.makeShape()
        var random = SplitMix64(seed: 16)
        for _ in 0..<(100 * testScale) {
            var state = try randomState(&random)
            // Values no compact form holds: the bytes are what the earlier libraries wrote.
            state.attributes[3] = .double(Double.random(in: 0..<1, using: &random) / 3 + 0.001)
            state.attributes[4] = .date(Date(timeIntervalSince1970: 0.5))
            var bytes = OffsetTableRecords.offsetTable(from: coder.encode(state))
            bytes[0] -= OffsetTableRecords.firstVersionWithCompactNumbers - 2
            try expectReads(bytes, of: state, coder: coder, shape: shape, random: &random)
        }
    }

    /// Records of slots in property order, and out of it (as migrations leave them), are
    /// written as value lists in slot order, and read back as written and as offset tables.
    @Test(arguments: [[0, 1, 2, 3, 4, 5, 6], [9, 5, 2, 63, 0, 17, 4]])
    func valueListsRoundTrip(slots: [Int]) throws {
        let coder = try coder(slots: slots)
        let shape = coder.makeShape()
        var random = SplitMix64(seed: 13)
        for _ in 0..<(200 * testScale) {
            let state = try randomState(&random)
            let bytes = coder.encode(state)
            #expect(bytes[0] == RecordLayout.valueList)
            try expectReads(bytes, of: state, coder: coder, shape: shape, random: &random)
            try expectReads(OffsetTableRecords.offsetTable(from: bytes), of: state, coder: coder, shape: shape, random: &random)
        }
    }

    /// A record whose values come in slot order is written as they come, straight onto the
    /// batch's buffer: the bytes the builder gives when it gathers the values and orders
    /// them, record after record on one buffer. One builder serves both ways in turn (its
    /// own buffer is set aside while it writes onto the batch's), as values of any size
    /// make it grow.
    @Test func valuesWrittenAsTheyComeAreTheGatheredRecord() throws {
        let inOrder = try coder(slots: [0, 1, 2, 3, 4, 5, 6])
        let outOfOrder = try coder(slots: [9, 5, 2, 63, 0, 17, 4])
        let entity = try #require(Self.model.entity(named: "Note"))
        var random = SplitMix64(seed: 15)
        var builder = RecordLayout.Builder()
        var gatherer = RecordLayout.Builder()
        var batch: [UInt8] = [0xAA]
        var expected: [UInt8] = [0xAA]
        var otherBatch: [UInt8] = []
        var otherExpected: [UInt8] = []
        for _ in 0..<(200 * testScale) {
            let state = try randomState(&random)
            inOrder.encode(state, using: &builder, into: &batch)
            gatherer.reset()
            for (position, value) in state.attributes.enumerated() where !value.isNull || RecordCoder.writesNull(entity.attributes[position]) {
                gatherer.add(value, slot: position)
            }
            if case .toOne(let author?) = state.relationships[0] {
                gatherer.beginValue(slot: 6)
                gatherer.appendReference(entityCode: 2, number: author.number)
            }
            gatherer.write(entityCode: 1, into: &expected)
            #expect(batch.count == expected.count && batch.suffix(200) == expected.suffix(200))

            outOfOrder.encode(state, using: &builder, into: &otherBatch)
            otherExpected += outOfOrder.encode(state)
        }
        #expect(batch == expected)
        #expect(otherBatch == otherExpected)
    }

    /// An attribute's slot, or the to-one's, from 64 on.
    @Test(arguments: [[0, 1, 2, 64, 3, 200, 4], [0, 1, 2, 3, 4, 5, 64]])
    func aSlotFromSixtyFourOnWritesASlotList(slots: [Int]) throws {
        let coder = try coder(slots: slots)
        let shape = coder.makeShape()
        var random = SplitMix64(seed: 14)
        for _ in 0..<(100 * testScale) {
            var state = try randomState(&random)
            state.attributes[3] = .double(1.5)
            state.relationships[0] = .toOne(ObjectID(entityName: "Author", number: Int64.random(in: 1...1_000, using: &random)))
            let bytes = coder.encode(state)
            #expect(bytes[0] == RecordLayout.slotList)
            try expectReads(bytes, of: state, coder: coder, shape: shape, random: &random)
        }
    }

    /// A known state, byte for byte as Spec/OBJECT-STORE.md section 4 lays records out (so
    /// that a faster encoder cannot change the format): noteID 300, title "Hi", no body,
    /// rating 2.5 (hundredths), written at 1,000 s (whole seconds), pinned, author #5.
    private func knownState() throws -> ObjectState {
        let entity = try #require(Self.model.entity(named: "Note"))
        var state = ObjectState(id: ObjectID(entityName: "Note", number: 9), entity: entity)
        state.attributes = [.integer(300), .string("Hi"), .null, .double(2.5), .date(Date(timeIntervalSince1970: 1000)), .bool(true)]
        state.relationships = [.toOne(ObjectID(entityName: "Author", number: 5))]
        return state
    }

    private static let knownValues: [[UInt8]] = [
        [1, 0xD8, 0x04], [7, 2, 0x48, 0x69], [14, 0xFA, 0, 0, 0], [15, 0xE8, 0x03, 0, 0], [6], [12, 2, 5],
    ]

    @Test func aValueListIsWrittenByteForByteAsSpecified() throws {
        let bytes = try coder(slots: [0, 1, 2, 3, 4, 5, 6]).encode(try knownState())
        // Version 9, entity code 1, presence of slots 0, 1, 3, 4, 5 and 6, then the values.
        #expect(bytes == [9, 1, 0x7B] + Self.knownValues.joined())
    }

    @Test func anOffsetTableReadsByteForByteAsSpecified() throws {
        // Version 5 (1-byte offsets), entity code 1, presence of slots 0, 1, 3, 4, 5 and 6,
        // then where values 2 to 6 start, counted from the first value.
        let table: [UInt8] = [5, 1, 0x7B, 3, 7, 12, 17, 18]
        let bytes = table + Self.knownValues.joined()
        #expect(try coder(slots: [0, 1, 2, 3, 4, 5, 6]).decode(bytes, number: 9) == knownState())
        #expect(OffsetTableRecords.offsetTable(from: [9, 1, 0x7B] + Self.knownValues.joined()) == bytes)
    }

    @Test func aSlotListIsWrittenByteForByteAsSpecified() throws {
        let bytes = try coder(slots: [0, 64, 2, 3, 4, 5, 6]).encode(try knownState())
        // Version 8, entity code 1, six fields in ascending slot order: 0, 3, 4, 5, 6, 64.
        var expected: [UInt8] = [8, 1, 6]
        for (slot, value) in zip([0, 3, 4, 5, 6], [0, 2, 3, 4, 5].map { Self.knownValues[$0] }) { expected += [UInt8(slot)] + value }
        expected += [64] + Self.knownValues[1]
        #expect(bytes == expected)
    }

    /// Records as the first versions wrote every record: a slot list (version 1), whatever
    /// the slots, with doubles and dates in 8 bytes.
    @Test func slotListsOfSmallSlotsStillRead() throws {
        let coder = try coder(slots: [0, 1, 2, 3, 4, 5, 6])
        let shape = coder.makeShape()
        var random = SplitMix64(seed: 15)
        for _ in 0..<(100 * testScale) {
            let state = try randomState(&random)
            var fields: [UInt8] = []
            var count = 0
            for (slot, value) in state.attributes.enumerated() where !value.isNull {
                fields.appendVarint(slot)
                switch value {
                case .double(let number):
                    fields.append(RecordCoder.Tag.double)
                    fields.appendLittleEndian(number.bitPattern)
                case .date(let date):
                    fields.append(RecordCoder.Tag.date)
                    fields.appendLittleEndian(date.timeIntervalSince1970.bitPattern)
                default:
                    RecordCoder.append(value, to: &fields)
                }
                count += 1
            }
            if case .toOne(let author?) = state.relationships[0] {
                fields.appendVarint(6)
                fields += [RecordCoder.Tag.object, 2]
                fields.appendVarint(Int(author.number))
                count += 1
            }
            var bytes: [UInt8] = [RecordLayout.slotListBeforeCompactNumbers, 1]
            bytes.appendVarint(count)
            try expectReads(bytes + fields, of: state, coder: coder, shape: shape, random: &random)
        }
    }

    /// A slot list naming a slot twice would read one value in a filter (the first) and
    /// another in the object (the last): it is a damaged record.
    @Test func aSlotListedTwiceIsDamaged() throws {
        let coder = try coder(slots: [0, 1, 2, 3, 4, 5, 6])
        var bytes: [UInt8] = [RecordLayout.slotList, 1, 3, 0]
        RecordCoder.append(.integer(7), to: &bytes)
        bytes.append(1)
        RecordCoder.append(.string("first"), to: &bytes)
        bytes.append(1)
        RecordCoder.append(.string("last"), to: &bytes)
        let result = Result { () throws(MagicalRecordError) in try coder.decode(bytes, number: 9) }
        guard case .failure(.damagedRecord(let id)) = result else {
            Issue.record("decoded: \(result)")
            return
        }
        #expect(id.number == 9)
    }

    /// A whole decode of a value list or offset table (a point get's own loop) answers as
    /// the general walk does, on intact records with slots in and out of property order and
    /// on single-byte changes of them: the same state, or a damaged-record error.
    @Test func aWholeDecodeAnswersAsTheWalk() throws {
        var random = SplitMix64(seed: 29)
        let everything = RecordCoder.DecodeMask(attributes: [Bool](repeating: true, count: 6), relationships: true)
        for slots in [[0, 1, 2, 3, 4, 5, 6], [6, 0, 5, 1, 4, 2, 3], [3, 9, 1, 63, 0, 7, 2]] {
            let coder = try coder(slots: slots)
            for round in 0..<80 {
                let valueList = coder.encode(try randomState(&random))
                let bytes = round % 2 == 0 ? valueList : OffsetTableRecords.offsetTable(from: valueList)
                var records = [bytes]
                for _ in 0..<8 {
                    var damaged = bytes
                    damaged[Int.random(in: damaged.indices, using: &random)] = UInt8.random(in: 0...255, using: &random)
                    records.append(damaged)
                }
                for record in records {
                    record.withUnsafeBytes { raw in
                        let whole = Result { () throws(MagicalRecordError) in try coder.decode(raw, number: 9, attributes: nil) }
                        let walked = Result { () throws(MagicalRecordError) in try coder.decode(raw, number: 9, attributes: everything) }
                        switch (whole, walked) {
                        case (.success(let left), .success(let right)): #expect(left == right)
                        case (.failure(.damagedRecord(let left)), .failure(.damagedRecord(let right))): #expect(left == right)
                        default: Issue.record("whole decode \(whole), walk \(walked)")
                        }
                    }
                }
            }
        }
    }

    /// Every truncation and single-byte change of a value list or an offset table either
    /// decodes or is a damaged-record error, in full, partial and in-place reads alike.
    @Test(arguments: [false, true]) func damagedRecordsAreErrorsNeverCrashes(withOffsetTable: Bool) throws {
        let coder = try coder(slots: [0, 1, 2, 3, 4, 5, 6])
        let shape = coder.makeShape()
        var random = SplitMix64(seed: 16)
        let entity = try #require(Self.model.entity(named: "Note"))
        var state = ObjectState(id: ObjectID(entityName: "Note", number: 9), entity: entity)
        state.attributes = [.integer(7), .string("title"), .string("a body"), .double(2.5), .null, .bool(true)]
        state.relationships = [.toOne(ObjectID(entityName: "Author", number: 3))]
        let valueList = coder.encode(state)
        let bytes = withOffsetTable ? OffsetTableRecords.offsetTable(from: valueList) : valueList
        let mask = [Bool](repeating: true, count: 6)
        let offsets = UnsafeMutableBufferPointer<Int>.allocate(capacity: 6)
        let ends = UnsafeMutableBufferPointer<Int>.allocate(capacity: 6)
        let wanted = UnsafeMutableBufferPointer<Bool>.allocate(capacity: 6)
        _ = wanted.initialize(from: mask)
        let withTargets = UnsafeMutableBufferPointer<AttributeValue>.allocate(capacity: 6)
        _ = withTargets.initialize(from: coder.defaultAttributes)
        let targets = UnsafeMutableBufferPointer<ObjectID?>.allocate(capacity: 1)
        targets.initialize(repeating: nil)
        defer {
            offsets.deallocate()
            ends.deallocate()
            wanted.deallocate()
            withTargets.deinitialize()
            withTargets.deallocate()
            targets.deallocate()
        }
        func readAll(_ damaged: [UInt8]) -> [Bool] {
            var attributes = coder.defaultAttributes
            return damaged.withUnsafeBytes { raw in
                [
                    Result { () throws(MagicalRecordError) in try coder.decode(raw, number: 9, attributes: nil) }.map { _ in () },
                    Result { () throws(MagicalRecordError) in try coder.decodeAttributes(raw, number: 9, mask: mask, into: &attributes, shape: shape) },
                    Result { () throws(MagicalRecordError) in
                        try coder.locateAttributes(raw, number: 9, wanted: UnsafeBufferPointer(wanted), offsets: offsets, ends: ends, shape: shape)
                    },
                    Result { () throws(MagicalRecordError) in
                        try coder.decodeAttributes(raw, number: 9, mask: mask, into: withTargets, targetsOf: [0], into: targets, shape: shape)
                    },
                ].map { result in
                    if case .failure(let error) = result, case .damagedRecord(let id) = error { #expect(id.number == 9) }
                    if case .failure(let error) = result, case .damagedRecord = error {} else if case .failure(let error) = result {
                        Issue.record("not a damaged record: \(error)")
                    }
                    return (try? result.get()) != nil
                }
            }
        }
        for length in 0..<bytes.count { #expect(readAll(Array(bytes.prefix(length)))[0] == false) }
        for index in bytes.indices {
            for _ in 0..<20 {
                var damaged = bytes
                damaged[index] = UInt8.random(in: 0...255, using: &random)
                _ = readAll(damaged)
            }
        }
        guard withOffsetTable else {
            // A byte after the last value: the full decode sees it; partial reads stop after
            // the last value they want (O10).
            #expect(readAll(bytes + [RecordCoder.Tag.null]) == [false, true, true, true])
            // A string's length past the record's end.
            var beyond = bytes
            beyond[bytes.firstIndex(of: RecordCoder.Tag.string)! + 1] = 120
            #expect(readAll(beyond) == [false, false, false, false])
            return
        }
        // The table out of order, and past the end.
        let tableStart = 3
        var swapped = bytes
        swapped.swapAt(tableStart, tableStart + 1)
        #expect(readAll(swapped) == [false, false, false, false])
        var beyond = bytes
        beyond[tableStart + 4] = 250
        #expect(readAll(beyond)[0] == false)
    }
}

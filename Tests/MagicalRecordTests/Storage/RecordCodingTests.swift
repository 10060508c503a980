import Foundation
import Testing
import MagicalStore
@testable import MagicalRecord

/// Records: what is encoded decodes to the same state, in full or in part, and bytes that
/// are not a record are a damaged-record error, never data.
@Suite struct RecordCodingTests {
    static let model = try! ObjectModel(entities: [
        EntityDescription("Note", relatedBy: "noteID") {
            AttributeDescription("noteID", .integer64, optional: false)
            AttributeDescription("title", .string)
            AttributeDescription("body", .string)
            AttributeDescription("rating", .double)
            AttributeDescription("written", .date)
            AttributeDescription("pinned", .boolean)
            RelationshipDescription("author", to: "Author", inverse: "notes")
        },
        EntityDescription("Author", relatedBy: "authorID") {
            AttributeDescription("authorID", .integer64, optional: false)
            RelationshipDescription("notes", to: "Note", inverse: "author", toMany: true)
        },
    ])

    private func coder() throws -> RecordCoder {
        var slots = SlotMap()
        slots.assign(Self.model)
        return try RecordCoder(entity: try #require(Self.model.entity(named: "Note")), slots: slots)
    }

    private func note(title: String, body: String) throws -> ObjectState {
        let entity = try #require(Self.model.entity(named: "Note"))
        var state = ObjectState(id: ObjectID(entityName: "Note", number: 9), entity: entity)
        state.attributes = [.integer(9), .string(title), .string(body), .double(2.5), .date(Date(timeIntervalSince1970: 86_400)), .bool(true)]
        state.relationships = [.toOne(ObjectID(entityName: "Author", number: 3))]
        return state
    }

    @Test func textOfEveryKindRoundTrips() throws {
        let coder = try coder()
        for (title, body) in [("plain", "ascii only"), ("Zoë", "e\u{301} 😀 中文"), ("", "\u{0}")] {
            let state = try note(title: title, body: body)
            #expect(try coder.decode(coder.encode(state), number: 9) == state)
        }
    }

    @Test func oneBuilderEncodesRecordAfterRecordAsFreshOnesDo() throws {
        let coder = try coder()
        var builder = RecordLayout.Builder()
        var random = SystemRandomNumberGenerator()
        for round in 0..<200 {
            var state = try note(title: String(repeating: "t", count: Int.random(in: 0...300, using: &random)), body: "b\(round)")
            // Fewer fields, more, and wider offsets than the record before.
            for position in state.attributes.indices.dropFirst() where Bool.random(using: &random) { state.attributes[position] = .null }
            if Bool.random(using: &random) { state.relationships = [.toOne(nil)] }
            let reused = coder.encode(state, using: &builder)
            #expect(reused == coder.encode(state))
            #expect(try coder.decode(reused, number: 9) == state)
        }
    }

    @Test(arguments: [0, 1, RecordCoder.statesPerPart - 1, RecordCoder.statesPerPart, 10_001], [1, 3, 8])
    func aBatchEncodedInPartsEqualsOneByOne(count: Int, threads: Int) throws {
        let coder = try coder()
        let entity = try #require(Self.model.entity(named: "Note"))
        let states = (0..<count).map { index in
            var state = ObjectState(id: ObjectID(entityName: "Note", number: Int64(index + 1)), entity: entity)
            state.attributes = [.integer(Int64(index)), .string("title \(index)"), index % 3 == 0 ? .null : .string("body"), .double(Double(index) / 7), .null, .bool(index % 2 == 0)]
            return state
        }
        let records = coder.encodedRecords(states, at: Array(states.indices)[...], threads: threads)
        #expect(records.count == count)
        for (index, state) in states.enumerated() {
            #expect(records[index].key == StoreLayout.objectKey(state.id.number))
            #expect(records[index].value == coder.encode(state))
        }
    }

    /// O12: doubles and dates take the 4-byte compact forms exactly when those give the value
    /// back bit for bit, and every value reads back bit for bit.
    @Test func compactNumbersReadBackBitForBit() {
        func written(_ value: AttributeValue) -> [UInt8] {
            var bytes: [UInt8] = []
            RecordCoder.append(value, to: &bytes)
            return bytes
        }
        func readBack(_ bytes: [UInt8]) -> AttributeValue? {
            bytes.withUnsafeBytes { raw in
                var reader = ByteReader(raw, at: 1)
                let value = RecordCoder.readValue(raw[0], &reader)
                return reader.position == raw.count ? value : nil
            }
        }
        let cases: [(Double, UInt8)] = [
            (0, RecordCoder.Tag.wholeDouble), (-0.0, RecordCoder.Tag.double), (7, RecordCoder.Tag.wholeDouble),
            (-123_456, RecordCoder.Tag.wholeDouble), (Double(Int32.max), RecordCoder.Tag.wholeDouble), (Double(Int32.min), RecordCoder.Tag.wholeDouble),
            (Double(Int32.max) + 1, RecordCoder.Tag.double), (123_456.78, RecordCoder.Tag.hundredthsDouble), (0.5, RecordCoder.Tag.hundredthsDouble),
            (-0.01, RecordCoder.Tag.hundredthsDouble), (21_474_836.47, RecordCoder.Tag.hundredthsDouble), (21_474_836.48, RecordCoder.Tag.double),
            (0.001, RecordCoder.Tag.double), (1.0 / 3, RecordCoder.Tag.double),
            (.nan, RecordCoder.Tag.double), (.infinity, RecordCoder.Tag.double), (-.infinity, RecordCoder.Tag.double),
            (.greatestFiniteMagnitude, RecordCoder.Tag.double), (.leastNonzeroMagnitude, RecordCoder.Tag.double),
        ]
        for (number, tag) in cases {
            let bytes = written(.double(number))
            #expect(bytes[0] == tag, "\(number)")
            #expect(bytes.count == (tag == RecordCoder.Tag.double ? 9 : 5), "\(number)")
            guard case .double(let back)? = readBack(bytes) else {
                Issue.record("\(number) did not read back")
                continue
            }
            #expect(back.bitPattern == number.bitPattern, "\(number)")
        }
        var random = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let number = switch Int.random(in: 0..<4, using: &random) {
            case 0: Double(Int.random(in: -2_000_000_000_000...2_000_000_000_000, using: &random)) / 100
            case 1: Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &random))
            case 2: Double(Int64.random(in: -(1 << 50)...(1 << 50), using: &random))
            default: Double.random(in: -1e9...1e9, using: &random)
            }
            let bytes = written(.double(number))
            guard case .double(let back)? = readBack(bytes) else {
                Issue.record("\(number) did not read back")
                continue
            }
            #expect(back.bitPattern == number.bitPattern, "\(number)")
            #expect(bytes.count <= 9)
            let date = Date(timeIntervalSince1970: number.isFinite ? number.rounded() : 0)
            let dateBytes = written(.date(date))
            #expect(readBack(dateBytes) == .date(date), "\(date.timeIntervalSince1970)")
            #expect(dateBytes.count <= 9)
        }
        #expect(written(.date(Date(timeIntervalSince1970: 1_700_000_000)))[0] == RecordCoder.Tag.wholeSecondsDate)
        #expect(written(.date(Date(timeIntervalSince1970: 1_700_000_000.5)))[0] == RecordCoder.Tag.date)
    }

    @Test func aPartialDecodeReadsOnlyWhatItIsAskedFor() throws {
        let coder = try coder()
        let bytes = coder.encode(try note(title: "Zoë", body: "body"))
        let partial = try bytes.withUnsafeBytes { raw in
            Result { () throws(MagicalRecordError) in try coder.decode(raw, number: 9, attributes: coder.decodeMask(["title"])) }
        }.get()
        #expect(partial.attributes[1] == .string("Zoë"))
        #expect(partial.attributes[2] == .null)
        #expect(partial.relationships == [.toOne(nil)])
        let withAuthor = try bytes.withUnsafeBytes { raw in
            Result { () throws(MagicalRecordError) in try coder.decode(raw, number: 9, attributes: coder.decodeMask(["author"])) }
        }.get()
        #expect(withAuthor.relationships == [.toOne(ObjectID(entityName: "Author", number: 3))])
    }

    /// Values go straight to their places, and the places a record leaves empty take their
    /// defaults, for entities on both sides of 64 attributes (the places are tracked in a
    /// word up to there), decoded in full and in part.
    @Test(arguments: [3, 64, 65, 130])
    func recordsDecodeIntoEveryPlaceWhateverTheEntitysWidth(attributeCount: Int) throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Wide") {
                for index in 0..<attributeCount {
                    index % 3 == 0
                        ? AttributeDescription("a\(index)", .string, default: .string("default \(index)"))
                        : AttributeDescription("a\(index)", .integer64)
                }
            },
        ])
        var slots = SlotMap()
        slots.assign(model)
        let entity = try #require(model.entity(named: "Wide"))
        let coder = try RecordCoder(entity: entity, slots: slots)
        var state = ObjectState(id: ObjectID(entityName: "Wide", number: 5), entity: entity)
        for position in stride(from: 0, to: attributeCount, by: 2) {
            state.attributes[position] = position % 3 == 0 ? .string("set \(position)") : .integer(Int64(position) * 1_000_003)
        }
        let bytes = coder.encode(state)
        #expect(try coder.decode(bytes, number: 5) == state)
        let wanted = Set(stride(from: 0, to: attributeCount, by: 3).map { "a\($0)" })
        let partial = try bytes.withUnsafeBytes { raw in
            Result { () throws(MagicalRecordError) in try coder.decode(raw, number: 5, attributes: coder.decodeMask(wanted)) }
        }.get()
        for position in 0..<attributeCount {
            #expect(partial.attributes[position] == (position % 3 == 0 ? state.attributes[position] : entity.defaultAttributes[position]), "a\(position)")
        }
    }

    /// A model whose attributes were given slots out of their order (one added before the
    /// others in a later version), and a to-one whose target is of a subentity: the values
    /// are written in slot order and the target under its own entity's code.
    @Test func slotsOutOfOrderAndSubentityTargetsRoundTrip() throws {
        let first = try ObjectModel(entities: [
            EntityDescription("Tag") { AttributeDescription("label", .string) },
            EntityDescription("Card") {
                AttributeDescription("title", .string)
                AttributeDescription("count", .integer32)
                RelationshipDescription("tag", to: "Tag")
            },
        ])
        let second = try ObjectModel(entities: [
            EntityDescription("Tag") { AttributeDescription("label", .string) },
            EntityDescription("SpecialTag", parent: "Tag") { AttributeDescription("note", .string) },
            EntityDescription("Card") {
                AttributeDescription("added", .double)
                AttributeDescription("title", .string)
                AttributeDescription("count", .integer32)
                RelationshipDescription("tag", to: "Tag")
            },
        ])
        var slots = SlotMap()
        slots.assign(first)
        slots.assign(second)
        let entity = try #require(second.entity(named: "Card"))
        let coder = try RecordCoder(entity: entity, slots: slots)
        for target in [ObjectID(entityName: "Tag", number: 7), ObjectID(entityName: "SpecialTag", number: 8)] {
            var state = ObjectState(id: ObjectID(entityName: "Card", number: 2), entity: entity)
            state.attributes = [.double(1.25), .string("ace"), .integer(3)]
            state.relationships = [.toOne(target)]
            #expect(try coder.decode(coder.encode(state), number: 2) == state)
        }
    }

    @Test func invalidUTF8InAStringIsADamagedRecord() throws {
        let coder = try coder()
        var bytes = coder.encode(try note(title: "abc", body: "xyz"))
        let start = try #require(bytes.firstRange(of: Array("abc".utf8))).lowerBound
        for invalid: [UInt8] in [[0xFF, 0x61, 0x62], [0xC3, 0x28, 0x61], [0x61, 0x62, 0xE2]] {
            bytes.replaceSubrange(start..<start + 3, with: invalid)
            let result = Result { () throws(MagicalRecordError) in try coder.decode(bytes, number: 9) }
            guard case .failure(.damagedRecord(let id)) = result else {
                Issue.record("\(invalid) decoded: \(result)")
                continue
            }
            #expect(id == ObjectID(entityName: "Note", number: 9))
        }
    }

    @Test func truncatedRecordsAreDamagedNeverData() throws {
        let coder = try coder()
        let bytes = coder.encode(try note(title: "title", body: "body"))
        for length in 0..<bytes.count {
            #expect(throws: MagicalRecordError.self) { try coder.decode(Array(bytes.prefix(length)), number: 9) }
        }
    }
}

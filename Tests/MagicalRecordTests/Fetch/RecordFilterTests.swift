import Foundation
import Testing
@testable import MagicalRecord

/// The filter on record bytes against the reference: the compiled predicate evaluated on
/// the decoded attributes. Same answer or same kind of error, for random records (values
/// of every kind, absent fields, non-ASCII text, NaN) and random predicates.
@Suite struct RecordFilterTests {
    private static let model = try! ObjectModel(entities: [
        EntityDescription("Item", relatedBy: "itemID") {
            AttributeDescription("itemID", .integer64, optional: false)
            AttributeDescription("count", .integer16)
            AttributeDescription("price", .double)
            AttributeDescription("seen", .date)
            AttributeDescription("name", .string)
            AttributeDescription("flag", .boolean)
            AttributeDescription("ratio", .float)
            AttributeDescription("note", .string, default: .string("dflt"))
        },
    ])
    private static let entity = model.entity(named: "Item")!
    private static let names = entity.attributes.map(\.name)

    private func coder() throws -> RecordCoder {
        var slots = SlotMap()
        slots.assign(Self.model)
        return try RecordCoder(entity: Self.entity, slots: slots)
    }

    /// Short and long (past a word of eight bytes), with non-ASCII bytes before and after
    /// the first eight.
    private static let texts = [
        "", "a", "ab", "abc", "b", "Zoë", "zoe", "\u{0}", "中文", "e\u{301}", "dflt", "ABC",
        "abcdefghij", "abcdefghijé", "ébcdefghij", "abcdéfghij", "abcde\u{301}fghij", "ABCDÉFGHIJ",
        "abcdefghijklmnopq", "ijklmnopq", "abcdf",
    ]
    /// Whole numbers and hundredths (stored compact, O12) on both sides of the integers,
    /// and doubles no compact form holds.
    private static let numbers: [Double] = [
        -2, -1, -0.5, 0, 0.5, 1, 2, 3, 1e19, -1e19, .nan, .infinity, 9_007_199_254_740_992,
        2.99, 3.01, -2.01, 0.01, -0.0, 1.0 / 3, 21_474_836.47, 2_147_483_647, 2_147_483_648,
    ]

    private func randomValue(_ generator: inout SeededGenerator) -> AttributeValue {
        switch generator.next() % 9 {
        case 0: return .null
        case 1: return .integer(Int64(generator.pick([-3, -1, 0, 1, 2, 3, 40, Int64.max, Int64.min, 9_007_199_254_740_993])))
        case 2: return .double(generator.pick(Self.numbers))
        case 3: return .date(Date(timeIntervalSince1970: generator.pick([0, 1, 86_400, -86_400, 1.5])))
        case 4, 5: return .string(generator.pick(Self.texts))
        case 6: return .bool(generator.next() % 2 == 0)
        case 7: return .float(Float(generator.pick(Self.numbers)))
        default: return .string(generator.pick(["1", "1970-01-02", "x"]))
        }
    }

    /// A stored value of the attribute's own kind, now and then of another (as a record
    /// written before a model change may hold), or null (an absent field).
    private func randomStored(_ position: Int, _ generator: inout SeededGenerator) -> AttributeValue {
        if generator.next() % 5 == 0 { return .null }
        if generator.next() % 8 == 0 { return randomValue(&generator) }
        switch Self.entity.attributes[position].type {
        case .integer16, .integer32, .integer64: return .integer(Int64(generator.pick([-3, -1, 0, 1, 2, 3, 40, 9_007_199_254_740_993])))
        case .double: return .double(generator.pick(Self.numbers))
        case .float: return .float(Float(generator.pick(Self.numbers)))
        case .date: return .date(Date(timeIntervalSince1970: generator.pick([0, 1, 86_400, -86_400, 1.5])))
        case .boolean: return .bool(generator.next() % 2 == 0)
        default: return .string(generator.pick(Self.texts))
        }
    }

    private func randomPredicate(_ generator: inout SeededGenerator, depth: Int = 0) -> ObjectPredicate {
        switch depth < 2 ? generator.next() % 6 : 5 {
        case 0: return .not(randomPredicate(&generator, depth: depth + 1))
        case 1: return .and((0..<Int(1 + generator.next() % 3)).map { _ in randomPredicate(&generator, depth: depth + 1) })
        case 2: return .or((0..<Int(1 + generator.next() % 3)).map { _ in randomPredicate(&generator, depth: depth + 1) })
        case 3: return generator.next() % 2 == 0 ? .truePredicate : .falsePredicate
        default:
            let operators: [PredicateOperator] = [
                .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo,
                .beginsWith, .endsWith, .contains, .like, .in,
            ]
            let comparison = generator.pick(operators)
            let right: ObjectExpression = comparison == .in
                ? .list([.constant(randomValue(&generator)), .constant(randomValue(&generator))])
                : .constant(randomValue(&generator))
            let options: PredicateOptions = generator.next() % 4 == 0 ? .caseInsensitive : []
            return .comparison(PredicateComparison(.keyPath(PredicateKeyPath(generator.pick(Self.names))), comparison, right, options: options))
        }
    }

    /// What the filter answers, and what the reference answers, as comparable outcomes.
    private enum Outcome: Equatable {
        case value(Bool)
        case predicateError
        case otherError(String)
    }

    private func outcome(_ run: () throws(MagicalRecordError) -> Bool) -> Outcome {
        do throws(MagicalRecordError) {
            return .value(try run())
        } catch {
            if case .predicate = error { return .predicateError }
            return .otherError("\(error)")
        }
    }

    /// A field cut short inside an offset table (its bytes end before its value does) is
    /// a damaged record to the filter too: read in place, it took the next field's bytes.
    @Test func aFieldCutShortBeforeTheNextIsADamagedRecord() throws {
        let coder = try coder()
        var state = ObjectState(id: ObjectID(entityName: "Item", number: 7), entity: Self.entity)
        state.attributes = Self.entity.attributes.map { _ in .null }
        state.attributes[0] = .integer(1)
        state.attributes[2] = .double(12)
        state.attributes[4] = .string("abcdef")
        let bytes = OffsetTableRecords.offsetTable(from: coder.encode(state))
        #expect(try coder.decode(bytes, number: 7).attributes[2] == .double(12))
        // Version 5: header (version, code, presence: a 2-byte varint, as the note's slot 7
        // is set: its null is written, it has a default, O8), offsets of values 1 to 3, then
        // the values: the whole double's 4 bytes, cut to 2 by moving the string's start back.
        var damaged = bytes
        let tableStart = 4
        let fieldsStart = tableStart + 3
        #expect(damaged[fieldsStart + Int(damaged[tableStart])] == RecordCoder.Tag.wholeDouble)
        damaged[tableStart + 1] -= 2
        let compiled = CompiledPredicate(try ObjectPredicate(format: "price > 5"), entity: Self.entity)
        let filter = try #require(RecordFilter(compiled, coder: coder, entityName: "Item"))
        let answer = damaged.withUnsafeBytes { raw in Result { () throws(MagicalRecordError) in try filter.matches(raw, number: 7) } }
        guard case .failure(.damagedRecord(let id)) = answer else {
            Issue.record("answered \(answer)")
            return
        }
        #expect(id.number == 7)
    }

    /// One filter over records of changing shapes (fields before the tested ones present
    /// or not, tested ones absent): it remembers one shape's value positions at a time,
    /// and each record is read by its own.
    @Test func recordsOfChangingShapesReadEachByItsOwn() throws {
        let coder = try coder()
        let compiled = CompiledPredicate(try ObjectPredicate(format: "price > 5 AND name BEGINSWITH 'ab'"), entity: Self.entity)
        let filter = try #require(RecordFilter(compiled, coder: coder, entityName: "Item"))
        let counts: [AttributeValue] = [.null, .integer(3)]
        let prices: [AttributeValue] = [.null, .double(7), .double(2.5)]
        let names: [AttributeValue] = [.null, .string("abc"), .string("xab")]
        var answers = 0
        for round in 0..<3 {
            for count in counts {
                for price in prices {
                    for name in names {
                        var state = ObjectState(id: ObjectID(entityName: "Item", number: 7), entity: Self.entity)
                        state.attributes[0] = .integer(Int64(round))
                        state.attributes[1] = count
                        state.attributes[2] = price
                        state.attributes[4] = name
                        let bytes = coder.encode(state)
                        let expected = try compiled.evaluate(attributes: try coder.decode(bytes, number: 7).attributes) { _ in false }
                        let actual = try bytes.withUnsafeBytes { raw throws(MagicalRecordError) in try filter.matches(raw, number: 7) }
                        #expect(actual == expected, "\(count) \(price) \(name)")
                        if actual { answers += 1 }
                    }
                }
            }
        }
        #expect(answers == 3 * 2)
    }

    @Test(arguments: 0..<UInt64(8))
    func answersAsTheEvaluatorDoesOnTheDecodedState(seed: UInt64) throws {
        let coder = try coder()
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<(100 * testScale) {
            let compiled = CompiledPredicate(randomPredicate(&generator), entity: Self.entity)
            let filter = try #require(RecordFilter(compiled, coder: coder, entityName: "Item"))
            for _ in 0..<10 {
                var state = ObjectState(id: ObjectID(entityName: "Item", number: 7), entity: Self.entity)
                state.attributes = Self.entity.attributes.indices.map { randomStored($0, &generator) }
                let bytes = coder.encode(state)
                let decoded = try coder.decode(bytes, number: 7)
                let expected = outcome { () throws(MagicalRecordError) in
                    do {
                        return try compiled.evaluate(attributes: decoded.attributes) { _ in false }
                    } catch let error as ObjectPredicateError {
                        throw .predicate(error, entity: "Item")
                    } catch {
                        throw .invalidFetch("\(error)")
                    }
                }
                let actual = bytes.withUnsafeBytes { raw in
                    outcome { () throws(MagicalRecordError) in try filter.matches(raw, number: 7) }
                }
                #expect(actual == expected, "\(compiled) on \(decoded.attributes)")
            }
        }
    }

    /// Every stored text against every constant text under every operator, with and without
    /// options: the in-place byte tests must step aside for exactly the texts they cannot
    /// decide (non-ASCII anywhere, canonically equal but different bytes).
    @Test func everyTextPairAgreesWithTheEvaluator() throws {
        let coder = try coder()
        let operators: [PredicateOperator] = [
            .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo,
            .beginsWith, .endsWith, .contains, .like,
        ]
        let position = try #require(Self.names.firstIndex(of: "name"))
        for stored in Self.texts {
            var state = ObjectState(id: ObjectID(entityName: "Item", number: 7), entity: Self.entity)
            state.attributes[position] = .string(stored)
            let bytes = coder.encode(state)
            for constant in Self.texts {
                for comparison in operators {
                    for options: PredicateOptions in [[], .caseInsensitive] {
                        let predicate = ObjectPredicate.comparison(PredicateComparison(
                            .keyPath(PredicateKeyPath("name")), comparison, .constant(.string(constant)), options: options))
                        let compiled = CompiledPredicate(predicate, entity: Self.entity)
                        let filter = try #require(RecordFilter(compiled, coder: coder, entityName: "Item"))
                        let expected = try compiled.evaluate(attributes: state.attributes) { _ in false }
                        let actual = try bytes.withUnsafeBytes { raw throws(MagicalRecordError) in try filter.matches(raw, number: 7) }
                        #expect(actual == expected, "\(compiled) on \(stored.debugDescription)")
                    }
                }
            }
        }
    }

    /// A cut record is a damaged-record error up to the tested field's end; past it the
    /// filter (which stops reading once it has its fields) may answer, and then rightly.
    @Test func aDamagedRecordIsATypedErrorNeverAWrongAnswer() throws {
        let coder = try coder()
        let compiled = CompiledPredicate(try ObjectPredicate(format: "count > 1"), entity: Self.entity)
        let filter = try #require(RecordFilter(compiled, coder: coder, entityName: "Item"))
        var state = ObjectState(id: ObjectID(entityName: "Item", number: 7), entity: Self.entity)
        state.attributes[1] = .integer(5)
        state.attributes[4] = .string("after the tested field")
        let bytes = coder.encode(state)
        let damaged = Outcome.otherError("\(MagicalRecordError.damagedRecord(ObjectID(entityName: "Item", number: 7)))")
        var answered = 0
        for cut in 0..<bytes.count {
            let result = Array(bytes[..<cut]).withUnsafeBytes { raw in
                outcome { () throws(MagicalRecordError) in try filter.matches(raw, number: 7) }
            }
            #expect(result == damaged || result == .value(true), "cut at \(cut)")
            if result == .value(true) { answered += 1 } else { #expect(answered == 0, "an error after an answer, at \(cut)") }
        }
        #expect(answered < bytes.count - 5)
    }

    /// Stored text that is not UTF-8 (a byte of 0x80 or more anywhere in a long text) is a
    /// damaged record for the in-place tests too, as it is for the decoder.
    @Test(arguments: [0, 3, 4, 7, 8, 11])
    func storedTextThatIsNotUTF8IsADamagedRecord(at offset: Int) throws {
        let coder = try coder()
        let position = try #require(Self.names.firstIndex(of: "name"))
        let text = "abcdefghijkl"
        var state = ObjectState(id: ObjectID(entityName: "Item", number: 7), entity: Self.entity)
        state.attributes[position] = .string(text)
        var bytes = [UInt8](coder.encode(state))
        let start = try #require(bytes.indices.first { bytes[$0...].starts(with: text.utf8) })
        bytes[start + offset] = 0xFF
        #expect(throws: MagicalRecordError.self) { try coder.decode(bytes, number: 7) }
        let damaged = Outcome.otherError("\(MagicalRecordError.damagedRecord(ObjectID(entityName: "Item", number: 7)))")
        for format in ["name == 'abcdefghijkl'", "name < 'b'", "name BEGINSWITH 'abc'", "name ENDSWITH 'jkl'", "name CONTAINS 'e'"] {
            let filter = try #require(RecordFilter(CompiledPredicate(try ObjectPredicate(format: format), entity: Self.entity), coder: coder, entityName: "Item"))
            let result = bytes.withUnsafeBytes { raw in outcome { () throws(MagicalRecordError) in try filter.matches(raw, number: 7) } }
            #expect(result == damaged, "\(format)")
        }
    }

    @Test func aPartThatReadsMoreThanAttributesHasNoFilter() throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Node", relatedBy: "nodeID") {
                AttributeDescription("nodeID", .integer64, optional: false)
                RelationshipDescription("parent", to: "Node", inverse: "children")
                RelationshipDescription("children", to: "Node", inverse: "parent", toMany: true)
            },
        ])
        let entity = try #require(model.entity(named: "Node"))
        var slots = SlotMap()
        slots.assign(model)
        let coder = try RecordCoder(entity: entity, slots: slots)
        let compiled = CompiledPredicate(try ObjectPredicate(format: "parent.nodeID == 1"), entity: entity)
        #expect(RecordFilter(compiled, coder: coder, entityName: "Node") == nil)
    }
}

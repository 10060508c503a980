import Foundation
import MagicalStore

/// A predicate of attribute-with-constant comparisons (``CompiledPredicate/readsOnlyAttributes``)
/// tested on a record's bytes, so a scan turns away an object without building a value.
///
/// Integers, doubles, dates and strings without options are compared where they lie, by the
/// same orders ``AttributeValue/compare(_:_:)`` uses (strings by UTF-8 bytes); any other
/// comparison, a field of another kind than the constant, a non-ASCII string (which a
/// decode validates) and an attribute the record lacks (its default) go through
/// ``PredicateComparator`` on the decoded value. So the answer is always the one the
/// evaluator gives on the decoded state, with its errors (a damaged field is reported when
/// a test reads it). A filter keeps per-record scratch: one scan uses it at a time.
final class RecordFilter {
    private enum Node {
        case constant(Bool)
        case test(Int)
        case not(Int)
        /// Children `start..<start + count` of `children`.
        case and(start: Int, count: Int)
        case or(start: Int, count: Int)
    }

    /// The hot half of a test: trivially copyable, read per record. `constant` is nil when
    /// the test is never made in place; a string constant's bytes are
    /// `textStart..<textStart + textCount` of `stringBytes`.
    private struct FastTest {
        let position: Int
        let comparison: PredicateOperator
        let constant: RecordField.InPlaceConstant?
        var textStart = 0
        var textCount = 0
    }

    /// The cold half: what the general comparison needs.
    private struct GeneralTest {
        let constant: PredicateValue
        let options: PredicateOptions
        /// The result for the attribute's default, when the record lacks the field.
        let absent: Result<Bool, ObjectPredicateError>
    }

    private let coder: RecordCoder
    private let entityName: String
    private let nodes: UnsafeMutableBufferPointer<Node>
    private let children: UnsafeMutableBufferPointer<Int>
    private let tests: UnsafeMutableBufferPointer<FastTest>
    private let generalTests: [GeneralTest]
    private let stringBytes: UnsafeMutableBufferPointer<UInt8>
    private let wanted: UnsafeMutableBufferPointer<Bool>
    /// The tested attributes as positions, and as a value list's presence bits: a value
    /// list is read without going over every attribute for each record.
    private let wantedPositions: UnsafeMutableBufferPointer<Int>
    private let wantedSlots: UInt64
    /// Per record: where each tested attribute's field begins and ends (see
    /// ``RecordCoder/locateAttributes(_:number:wanted:offsets:ends:)``).
    private let offsets: UnsafeMutableBufferPointer<Int>
    private let ends: UnsafeMutableBufferPointer<Int>
    /// What each presence mask says of where a record's values lie, learnt once per mask.
    private let shape: RecordShape

    /// Nil when `compiled` has a part that reads more than attributes. `entityName` names
    /// the fetched entity in predicate errors.
    init?(_ compiled: CompiledPredicate, coder: RecordCoder, entityName: String) {
        var builder = Builder(defaults: coder.defaultAttributes)
        guard builder.add(compiled) != nil else { return nil }
        self.coder = coder
        self.entityName = entityName
        nodes = .copying(builder.nodes)
        children = .copying(builder.children)
        tests = .copying(builder.tests)
        generalTests = builder.generalTests
        stringBytes = .copying(builder.stringBytes)
        var wanted = [Bool](repeating: false, count: coder.defaultAttributes.count)
        for test in builder.tests { wanted[test.position] = true }
        self.wanted = .copying(wanted)
        let positions = wanted.indices.filter { wanted[$0] }
        wantedPositions = .copying(positions)
        wantedSlots = coder.presenceBits(ofAttributes: positions)
        offsets = .allocate(capacity: wanted.count)
        offsets.initialize(repeating: -1)
        ends = .allocate(capacity: wanted.count)
        ends.initialize(repeating: -1)
        shape = coder.makeShape()
    }

    deinit {
        nodes.deallocate()
        children.deallocate()
        tests.deallocate()
        stringBytes.deallocate()
        wanted.deallocate()
        wantedPositions.deallocate()
        offsets.deallocate()
        ends.deallocate()
    }

    /// Whether the object stored as `record` (its number `number`) satisfies the predicate.
    /// A record with an offset table has each tested field found when a test reads it (so
    /// a test the others decide costs nothing); a value list or a slot list is walked once
    /// for them all, as far as the last.
    func matches(_ record: UnsafeRawBufferPointer, number: Int64) throws(MagicalRecordError) -> Bool {
        let header = try coder.header(record, number: number, shape: shape)
        if header.hasPresence && !header.hasOffsetTable {
            try coder.locateValues(record, header, number: number, positions: UnsafeBufferPointer(wantedPositions), slots: wantedSlots, offsets: offsets, ends: ends)
        } else if !header.hasOffsetTable {
            try coder.locateAttributes(record, header, number: number, wanted: UnsafeBufferPointer(wanted), offsets: offsets, ends: ends, shape: shape)
        }
        return try evaluateNode(nodes.count - 1, record, number, header)
    }

    /// `table`: the record's header; without an offset table, the fields were located into
    /// `offsets` and `ends`.
    private func evaluate(
        _ index: Int, _ record: UnsafeRawBufferPointer, _ number: Int64, _ table: RecordLayout.Header
    ) throws(MagicalRecordError) -> Bool {
        switch nodes[index] {
        case .constant(let value):
            return value
        case .test(let test):
            return try self.test(test, record, number, table)
        case .not(let operand):
            return try !evaluateNode(operand, record, number, table)
        case .and(let start, let count):
            for child in start..<start + count where try !evaluateNode(children[child], record, number, table) { return false }
            return true
        case .or(let start, let count):
            for child in start..<start + count where try evaluateNode(children[child], record, number, table) { return true }
            return false
        }
    }

    /// Node `index`, a test made here without the recursive call: most nodes are tests,
    /// and calling `evaluate` again for each was 3% of a count's instructions.
    @inline(__always)
    private func evaluateNode(
        _ index: Int, _ record: UnsafeRawBufferPointer, _ number: Int64, _ table: RecordLayout.Header
    ) throws(MagicalRecordError) -> Bool {
        if case .test(let test) = nodes[index] { return try self.test(test, record, number, table) }
        return try evaluate(index, record, number, table)
    }

    /// Where test `index`'s field lies in `record`: nil when the record lacks it (the
    /// attribute reads as its default).
    @inline(__always)
    private func field(
        _ index: Int, _ record: UnsafeRawBufferPointer, _ number: Int64, _ table: RecordLayout.Header
    ) throws(MagicalRecordError) -> Range<Int>? {
        let position = tests[index].position
        guard table.hasOffsetTable else {
            let start = offsets[position]
            return start >= 0 ? start..<ends[position] : nil
        }
        return try coder.attributeField(position, table, record, number: number, shape: shape)
    }

    private func test(
        _ index: Int, _ record: UnsafeRawBufferPointer, _ number: Int64, _ table: RecordLayout.Header
    ) throws(MagicalRecordError) -> Bool {
        let test = tests[index]
        guard let range = try field(index, record, number, table) else {
            switch generalTests[index].absent {
            case .success(let result): return result
            case .failure(let error): throw .predicate(error, entity: entityName)
            }
        }
        // The field's own bytes: a damaged one never reads into the next.
        let field = UnsafeRawBufferPointer(rebasing: record[range])
        switch (test.constant, test.comparison) {
        case (nil, _):
            break
        case (.string?, .beginsWith), (.string?, .endsWith), (.string?, .contains):
            guard field[0] == RecordCoder.Tag.string, let stored = RecordField.asciiText(field, at: 1) else { break }
            return Self.match(stored, test.comparison, text(of: test))
        case (let constant?, _):
            guard let order = RecordField.compare(field, fieldAt: 0, against: constant, text: text(of: test)) else { break }
            return Self.truth(test.comparison, order)
        }
        return try general(index, tag: field[0], at: 1, field, number)
    }

    /// A string test's constant, as UTF-8 bytes.
    @inline(__always)
    private func text(of test: FastTest) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: stringBytes.baseAddress.map { $0 + test.textStart }, count: test.textCount)
    }

    /// The general comparison on the decoded field: every case the in-place tests do not
    /// cover, with the evaluator's result and errors.
    private func general(_ index: Int, tag: UInt8, at payload: Int, _ record: UnsafeRawBufferPointer, _ number: Int64) throws(MagicalRecordError) -> Bool {
        var reader = ByteReader(record, at: payload)
        guard let value = RecordCoder.readValue(tag, &reader) else {
            throw .damagedRecord(ObjectID(entityName: coder.entity.name, number: number))
        }
        let test = generalTests[index]
        do {
            return try PredicateComparator.compare(.attribute(value), tests[index].comparison, test.constant, options: test.options)
        } catch {
            throw .predicate(error, entity: entityName)
        }
    }

    /// What a comparison operator says of two non-null values in `order` (nil: they have
    /// none), as ``PredicateComparator`` decides it.
    private static func truth(_ comparison: PredicateOperator, _ order: ComparisonResult?) -> Bool {
        switch comparison {
        case .equalTo: return order == .orderedSame
        case .notEqualTo: return order != .orderedSame
        case .lessThan: return order == .orderedAscending
        case .lessThanOrEqualTo: return order.map { $0 != .orderedDescending } ?? false
        case .greaterThan: return order == .orderedDescending
        case .greaterThanOrEqualTo: return order.map { $0 != .orderedAscending } ?? false
        default: return false  // Not compiled to an in-place test.
        }
    }

    /// BEGINSWITH, ENDSWITH and CONTAINS without options: UTF-8 bytes, as
    /// ``PredicateStrings`` matches them.
    private static func match(_ text: UnsafeRawBufferPointer, _ comparison: PredicateOperator, _ part: UnsafeRawBufferPointer) -> Bool {
        switch comparison {
        case .beginsWith: return text.count >= part.count && bytesEqual(text.baseAddress, part)
        case .endsWith: return text.count >= part.count && bytesEqual(text.baseAddress.map { $0 + text.count - part.count }, part)
        default: return contains(text, part)
        }
    }

    /// Whether the bytes at `start` are `part`'s: short parts (most prefixes and
    /// suffixes) byte by byte, without a call.
    @inline(__always)
    private static func bytesEqual(_ start: UnsafeRawPointer?, _ part: UnsafeRawBufferPointer) -> Bool {
        guard let start, let bytes = part.baseAddress, !part.isEmpty else { return true }
        guard part.count <= 8 else { return memcmp(start, bytes, part.count) == 0 }
        for index in 0..<part.count where start.load(fromByteOffset: index, as: UInt8.self) != part[index] { return false }
        return true
    }

    private static func contains(_ text: UnsafeRawBufferPointer, _ part: UnsafeRawBufferPointer) -> Bool {
        guard part.count <= text.count else { return false }
        guard let first = part.first else { return true }
        for start in 0...(text.count - part.count) where text[start] == first {
            if text[start..<start + part.count].elementsEqual(part) { return true }
        }
        return false
    }

    /// Flattens a compiled predicate into nodes (children before their parent, the root
    /// last) and tests.
    private struct Builder {
        let defaults: [AttributeValue]
        var nodes: [Node] = []
        var children: [Int] = []
        var tests: [FastTest] = []
        var generalTests: [GeneralTest] = []
        var stringBytes: [UInt8] = []

        /// The node index of `compiled`, nil when a part reads more than attributes.
        mutating func add(_ compiled: CompiledPredicate) -> Int? {
            switch compiled {
            case .constant(let value):
                return append(.constant(value))
            case .general:
                return nil
            case .not(let operand):
                guard let child = add(operand) else { return nil }
                return append(.not(child))
            case .and(let operands), .or(let operands):
                var indices: [Int] = []
                for operand in operands {
                    guard let child = add(operand) else { return nil }
                    indices.append(child)
                }
                let start = children.count
                children += indices
                if case .and = compiled { return append(.and(start: start, count: indices.count)) }
                return append(.or(start: start, count: indices.count))
            case .attribute(let position, let comparison, let constant, let options):
                let absent = Result { () throws(ObjectPredicateError) in
                    try PredicateComparator.compare(.attribute(defaults[position]), comparison, constant, options: options)
                }
                tests.append(fastTest(position, comparison, constant, options))
                generalTests.append(GeneralTest(constant: constant, options: options, absent: absent))
                return append(.test(tests.count - 1))
            }
        }

        private mutating func append(_ node: Node) -> Int {
            nodes.append(node)
            return nodes.count - 1
        }

        private mutating func fastTest(
            _ position: Int, _ comparison: PredicateOperator, _ constant: PredicateValue, _ options: PredicateOptions
        ) -> FastTest {
            let none = FastTest(position: position, comparison: comparison, constant: nil)
            guard case .attribute(let value) = constant else { return none }
            switch (comparison, value) {
            case (.equalTo, _), (.notEqualTo, _), (.lessThan, _), (.lessThanOrEqualTo, _), (.greaterThan, _), (.greaterThanOrEqualTo, _):
                switch value {
                case .integer(let number): return FastTest(position: position, comparison: comparison, constant: .integer(number))
                case .double(let number): return FastTest(position: position, comparison: comparison, constant: .of(number))
                case .date(let date): return FastTest(position: position, comparison: comparison, constant: .date(date))
                case .string(let text) where options.isEmpty: return string(text, position, comparison)
                default: return none
                }
            case (.beginsWith, .string(let text)), (.endsWith, .string(let text)), (.contains, .string(let text)):
                return options.isEmpty ? string(text, position, comparison) : none
            default:
                return none
            }
        }

        private mutating func string(_ text: String, _ position: Int, _ comparison: PredicateOperator) -> FastTest {
            let start = stringBytes.count
            stringBytes += text.utf8
            return FastTest(position: position, comparison: comparison, constant: .string, textStart: start, textCount: stringBytes.count - start)
        }
    }
}

private extension UnsafeMutableBufferPointer {
    /// A new buffer holding `elements`, to be deallocated by its owner.
    static func copying(_ elements: [Element]) -> UnsafeMutableBufferPointer<Element> {
        let buffer = UnsafeMutableBufferPointer<Element>.allocate(capacity: Swift.max(elements.count, 1))
        _ = buffer.initialize(from: elements)
        return UnsafeMutableBufferPointer(rebasing: buffer[0..<elements.count])
    }
}

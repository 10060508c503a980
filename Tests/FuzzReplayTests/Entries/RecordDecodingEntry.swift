import Foundation
import MagicalStore
@testable import MagicalRecord

/// Shared by the libFuzzer target (Fuzz/) and the corpus replay in `make test`.
///
/// The first byte picks a slot assignment (small slots in order, out of order, or some from
/// 64 on) and which attributes a partial read wants; the rest is taken as a record of a
/// Note. Every read (full, partial, in place, with the to-one's reference) gives data or a
/// `damagedRecord` error, never a trap (Spec/OBJECT-STORE.md O10). When the full decode
/// succeeds, the partial and in-place reads agree with it, and the state encodes to a
/// record that decodes the same.
func fuzzRecordDecoding(_ input: UnsafeRawBufferPointer) {
    guard let selector = input.first else { return }
    let coder = RecordDecodingFuzz.coders[Int(selector) % RecordDecodingFuzz.coders.count]
    let mask = (0..<6).map { selector & (4 << $0) != 0 }
    let raw = UnsafeRawBufferPointer(rebasing: input.dropFirst())

    func damagedOrNil(_ read: () throws(MagicalRecordError) -> Void) -> Bool {
        do throws(MagicalRecordError) {
            try read()
            return true
        } catch {
            guard case .damagedRecord(let id) = error, id.number == 9 else { preconditionFailure("not a damaged record: \(error)") }
            return false
        }
    }
    var full: ObjectState?
    _ = damagedOrNil { () throws(MagicalRecordError) in full = try coder.decode(raw, number: 9, attributes: nil) }
    var partial = coder.defaultAttributes
    // A shape that knows another mask first, as in a scan that reached this record.
    let shape = coder.makeShape()
    _ = shape.valueCount(UInt64.max)
    let partialRead = damagedOrNil { () throws(MagicalRecordError) in
        try coder.decodeAttributes(raw, number: 9, mask: mask, into: &partial, shape: shape)
    }
    let wanted = UnsafeMutableBufferPointer<Bool>.allocate(capacity: mask.count)
    let offsets = UnsafeMutableBufferPointer<Int>.allocate(capacity: mask.count)
    let ends = UnsafeMutableBufferPointer<Int>.allocate(capacity: mask.count)
    defer {
        wanted.deallocate()
        offsets.deallocate()
        ends.deallocate()
    }
    _ = wanted.initialize(from: mask)
    let located = damagedOrNil { () throws(MagicalRecordError) in
        try coder.locateAttributes(raw, number: 9, wanted: UnsafeBufferPointer(wanted), offsets: offsets, ends: ends, shape: shape)
    }
    // The same attributes with the author's reference read in place, as a grouped
    // aggregate reads them.
    let withTarget = UnsafeMutableBufferPointer<AttributeValue>.allocate(capacity: coder.defaultAttributes.count)
    _ = withTarget.initialize(from: coder.defaultAttributes)
    let target = UnsafeMutableBufferPointer<ObjectID?>.allocate(capacity: 1)
    target.initialize(repeating: nil)
    defer {
        withTarget.deinitialize()
        withTarget.deallocate()
        target.deallocate()
    }
    let readWithTarget = damagedOrNil { () throws(MagicalRecordError) in
        try coder.decodeAttributes(raw, number: 9, mask: mask, into: withTarget, targetsOf: [0], into: target, shape: shape)
    }
    guard let full else { return }
    precondition(partialRead && located && readWithTarget, "a record that decodes failed a partial read")
    precondition(.toOne(target[0]) == full.relationships[0], "a reference read in place disagrees with the full decode")
    for position in mask.indices where mask[position] {
        precondition(RecordDecodingFuzz.same(withTarget[position], full.attributes[position]), "a read with references disagrees with the full decode")
    }
    for position in mask.indices where mask[position] {
        precondition(RecordDecodingFuzz.same(partial[position], full.attributes[position]), "a partial read disagrees with the full decode")
        if offsets[position] < 0 { continue }
        // Read within the located bytes alone, which the value fills exactly.
        var reader = ByteReader(UnsafeRawBufferPointer(rebasing: raw[offsets[position]..<ends[position]]))
        let value = reader.read(UInt8.self).flatMap { RecordCoder.readValue($0, &reader) }
        precondition(value.map { RecordDecodingFuzz.same($0, full.attributes[position]) } == true, "a located field disagrees with the full decode")
        precondition(reader.position == ends[position] - offsets[position], "a located field's bytes are not its value's")
    }
    let again = try? coder.decode(coder.encode(full), number: 9)
    precondition(again.map { zip($0.attributes, full.attributes).allSatisfy(RecordDecodingFuzz.same) } == true, "a decoded state does not survive encoding")
}

enum RecordDecodingFuzz {
    /// Equal values, NaNs with the same bits included (a record may hold any double).
    static func same(_ left: AttributeValue, _ right: AttributeValue) -> Bool {
        switch (left, right) {
        case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern
        case (.float(let a), .float(let b)): return a.bitPattern == b.bitPattern
        case (.date(let a), .date(let b)): return a.timeIntervalSince1970.bitPattern == b.timeIntervalSince1970.bitPattern
        default: return left == right
        }
    }

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

    /// Note's properties (attributes, then `author`) under three slot assignments.
    static let coders: [RecordCoder] = [[0, 1, 2, 3, 4, 5, 6], [9, 5, 2, 63, 0, 17, 4], [0, 1, 2, 64, 3, 200, 4]].map { slots in
        let properties = ["noteID", "title", "body", "rating", "written", "pinned", "author"]
        var codes = ["Note": 1, "Author": 2, "Author.authorID": 0]
        for (property, slot) in zip(properties, slots) { codes["Note." + property] = slot }
        return try! RecordCoder(entity: model.entity(named: "Note")!, slots: SlotMap(codes: codes))
    }
}

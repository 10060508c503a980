import Foundation
import Testing
@testable import MagicalRecord

/// The in-place order of a record's sort key against a bound: when it answers, it is the
/// order of the decoded value (`AttributeValue.compare`); it answers for the common kinds.
@Suite struct SortKeyProbeTests {
    private static let model = try! ObjectModel(entities: [
        EntityDescription("Row", relatedBy: "rowID") {
            AttributeDescription("rowID", .integer64, optional: false)
            AttributeDescription("key", .string)
            AttributeDescription("tail", .string)
        },
    ])
    private static let entity = model.entity(named: "Row")!

    private static let values: [AttributeValue] = [
        .null, .integer(-2), .integer(0), .integer(3), .integer(Int64.max), .double(-2), .double(0.5), .double(3),
        .double(.nan), .double(.infinity), .double(9.223372036854775808e18), .date(Date(timeIntervalSince1970: 0)),
        .date(Date(timeIntervalSince1970: 1.5)), .string(""), .string("a"), .string("ab"), .string("b"), .string("Zoë"),
        .string("zoe"), .bool(true), .float(0.5),
    ]

    @Test func answersAsTheDecodedValueCompares() throws {
        var slots = SlotMap()
        slots.assign(Self.model)
        let coder = try RecordCoder(entity: Self.entity, slots: slots)
        var answered = 0
        for stored in Self.values {
            var state = ObjectState(id: ObjectID(entityName: "Row", number: 4), entity: Self.entity)
            state.attributes = [.integer(4), stored, .string("after")]
            let bytes = coder.encode(state)
            let decoded = try coder.decode(bytes, number: 4).attributes[1]
            for bound in Self.values {
                let probe = SortKeyProbe(coder: coder, position: 1)
                probe.setBound(bound)
                let order = try bytes.withUnsafeBytes { raw in
                    try Result { () throws(MagicalRecordError) in try probe.keyOrder(of: raw, number: 4) }.get()
                }
                guard let order else { continue }
                answered += 1
                #expect(order == AttributeValue.compare(decoded, bound), "\(decoded) against \(bound)")
            }
        }
        #expect(answered >= 60)
    }

    /// A record cut before its key's end is a damaged-record error; past it the probe may
    /// answer (it stops reading there), and then rightly.
    @Test func aDamagedRecordIsAnErrorNeverAWrongOrder() throws {
        var slots = SlotMap()
        slots.assign(Self.model)
        let coder = try RecordCoder(entity: Self.entity, slots: slots)
        var state = ObjectState(id: ObjectID(entityName: "Row", number: 4), entity: Self.entity)
        state.attributes = [.integer(4), .string("key"), .string("tail")]
        let bytes = coder.encode(state)
        let probe = SortKeyProbe(coder: coder, position: 1)
        probe.setBound(.string("m"))
        var answered = 0
        for cut in 0..<bytes.count {
            let order = try? Array(bytes[..<cut]).withUnsafeBytes { raw in
                try Result { () throws(MagicalRecordError) in try probe.keyOrder(of: raw, number: 4) }.get()
            }
            if let order {
                answered += 1
                #expect(order == .orderedAscending)
            } else {
                #expect(answered == 0, "an error after an answer, at \(cut)")
            }
        }
        #expect(answered < bytes.count - 4)
    }
}

import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// Records encoded ahead of their commit, a part at a time until the commit waits: the
/// commit uses those and encodes the rest, and writes the same records whatever part
/// was encoded ahead.
@Suite struct RecordsAheadTests {
    /// New employees with a few samples among them: two entities, grouped apart.
    private func newObjects(in store: ObjectStore) throws -> ChangeSet {
        let employee = try #require(FetchModel.model.entity(named: "Employee"))
        let sample = try #require(FetchModel.model.entity(named: "Sample"))
        var changes = ChangeSet()
        for index in 0..<5_000 {
            let entity = index % 700 == 0 ? sample : employee
            var state = ObjectState(id: ObjectID(entityName: entity.name, number: store.allocateNumber()), entity: entity)
            state.attributes[try #require(entity.slot(ofAttribute: entity === sample ? "sampleID" : "employeeID"))] = .integer(Int64(index))
            state.attributes[try #require(entity.slot(ofAttribute: entity === sample ? "note" : "firstName"))] = .string("name \(index)")
            changes.upserts.append(state)
        }
        return changes
    }

    private func states(_ entityName: String, in stack: FetchStack) throws -> [ObjectState] {
        var states: [ObjectState] = []
        try stack.store.snapshot().scan(entityName) { state in
            states.append(state)
            return true
        }
        return states
    }

    /// `looks`: how many times the encoding may ask whether the commit waits and hear no:
    /// once before it starts, then once before each part (2,048 upserts) of 8 samples
    /// (the first upsert is one) and then of 4,992 employees.
    @Test(arguments: [(0, 0), (1, 0), (2, 8), (3, 2_056), (4, 4_104), (5, 5_000), (100, 5_000)])
    func aCommitWritesTheSameRecordsWhateverWasEncodedAhead(looks: Int, encoded: Int) throws {
        let plain = try FetchStack()
        let ahead = try FetchStack()
        let recordsAhead = RecordsAhead()
        var asked = 0
        let changes = try newObjects(in: ahead.store)
        recordsAhead.encode(changes, store: ahead.store) {
            asked += 1
            return asked > looks
        }
        #expect(recordsAhead.encodedCount == encoded)

        try plain.store.commit(try newObjects(in: plain.store))
        try ahead.store.commit(changes, recordsAhead: recordsAhead)
        #expect(recordsAhead.encodedCount == 0, "the commit took them all")
        for entity in ["Employee", "Sample"] {
            let written = try states(entity, in: ahead)
            #expect(written.count == (entity == "Sample" ? 8 : 4_992))
            #expect(written == (try states(entity, in: plain)), "\(entity)")
        }
    }
}

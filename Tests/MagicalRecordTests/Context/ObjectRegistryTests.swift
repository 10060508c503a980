import Foundation
import Testing
@testable import MagicalRecord

/// A context registers the objects it hands out without keeping them alive: one object
/// per id while it lives, and a registry that does not grow with every object ever read.
@Suite struct ObjectRegistryTests {
    @Test func objectsReadAndDroppedDoNotAccumulateInTheRegistry() throws {
        let stack = try FetchStack()
        let count = 12_000
        for id in 0..<Int64(count) {
            try stack.main.insert("Sample", ["sampleID": .integer(id)])
        }
        try stack.main.saveToPersistentStore()
        let ids = try stack.root.fetchObjectIDs(FetchRequest(entityName: "Sample"))
        #expect(ids.count == count)

        let reader = stack.child()
        var kept: [ObjectID: ManagedObject] = [:]
        for (index, id) in ids.enumerated() {
            let object = try reader.existingObject(with: id)
            if index % 97 == 0 { kept[id] = object }
        }
        #expect(reader.registryEntryCount < 2 * 4_096 + kept.count, "\(reader.registryEntryCount) entries for \(kept.count) live objects")
        for (id, object) in kept {
            #expect(try reader.existingObject(with: id) === object, "a live object stays the one registered")
        }
    }

    @Test func anObjectDroppedByItsCallersIsNotHandedOutAgain() throws {
        let stack = try FetchStack()
        let id = try stack.main.insert("Sample", ["sampleID": .integer(1), "note": .string("saved")]).objectID
        try stack.main.saveToPersistentStore()
        let reader = stack.child()
        // Read, then dropped by every caller: the registry alone holds it.
        #expect(try reader.existingObject(with: id).attributeValue(forKey: "note") == .string("saved"))
        // The parent changes it without saving: a child sees that only in objects it loads
        // afresh, so a re-read must not return the object it dropped.
        try stack.main.existingObject(with: id).setValue(.string("changed"), forKey: "note")
        #expect(try reader.existingObject(with: id).attributeValue(forKey: "note") == .string("changed"))
    }

    @Test func aKeptObjectStaysTheOneHandedOutAcrossPruning() throws {
        let stack = try FetchStack()
        for id in 0..<Int64(10_000) {
            try stack.main.insert("Sample", ["sampleID": .integer(id)])
        }
        try stack.main.saveToPersistentStore()
        let reader = stack.child()
        let ids = try reader.fetchObjectIDs(FetchRequest(entityName: "Sample"))
        let kept = try reader.existingObject(with: ids[0])
        weak var dropped: ManagedObject?
        dropped = try reader.existingObject(with: ids[1])
        // Enough registrations to prune the table more than once.
        for id in ids.dropFirst(2) { _ = try reader.existingObject(with: id) }
        #expect(dropped == nil, "an object no caller holds is released by pruning")
        #expect(try reader.existingObject(with: ids[0]) === kept)
        #expect(reader.registryEntryCount < 2 * 4_096 + 1)
    }
}

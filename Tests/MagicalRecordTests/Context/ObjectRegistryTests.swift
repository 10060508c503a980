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
}

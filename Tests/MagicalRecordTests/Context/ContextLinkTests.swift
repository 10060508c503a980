import Foundation
import Testing
@testable import MagicalRecord

/// Objects hold their context through its ``ContextLink``: they know it while it lives,
/// do not keep it alive, and stay readable (under its lock) once it is gone.
@Suite struct ContextLinkTests {
    @Test func anObjectKnowsItsContextWithoutKeepingItAlive() throws {
        let stack = try FetchStack()
        let id = try stack.main.insert("Sample", ["sampleID": .integer(7), "note": .string("kept")]).objectID
        try stack.main.saveToPersistentStore()

        var reader: ManagedObjectContext? = stack.child()
        weak let gone = reader
        let object = try #require(reader).existingObject(with: id)
        #expect(object.managedObjectContext === reader)
        reader = nil
        #expect(gone == nil, "an object held by a caller keeps its context alive")
        #expect(object.managedObjectContext == nil)

        // The state it was read with stays readable; changing it needs the context.
        #expect(try object.attributeValue(forKey: "note") == .string("kept"))
        #expect(throws: MagicalRecordError.self) { try object.setValue(.string("changed"), forKey: "note") }
    }

    @Test func eachObjectReportsTheContextItWasMadeIn() throws {
        let stack = try FetchStack()
        let first = try stack.main.insert("Sample", ["sampleID": .integer(1)])
        let second = try stack.main.insert("Sample", ["sampleID": .integer(2)])
        let other = try stack.child().insert("Sample", ["sampleID": .integer(3)])
        #expect(first.managedObjectContext === stack.main && second.managedObjectContext === stack.main)
        #expect(other.managedObjectContext !== stack.main)
    }
}

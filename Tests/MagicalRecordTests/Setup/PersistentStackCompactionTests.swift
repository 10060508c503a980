import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// `PersistentStack.compact()`: the file shrinks, every saved object is kept, and the
/// stack's contexts go on reading and saving.
@Suite struct PersistentStackCompactionTests {
    @Test func compactionShrinksTheFileAndKeepsEverySavedObject() throws {
        let fixture = MigrationFixture()
        let model = try MigrationFixture.model("v1", #"[{"name": "Note", "attributes": [{"name": "text", "type": "String"}, {"name": "number", "type": "Integer 64"}]}]"#)
        let stack = try PersistentStack(storeAt: fixture.url, model: model, durability: .normal)
        let context = stack.mainContext
        for round in 0..<5 {
            for number in 0..<200 {
                let note = try context.insertObject(entityName: "Note")
                try note.setValue(.string(String(repeating: "x", count: 100)), forKey: "text")
                try note.setValue(.integer(Int64(round * 1000 + number)), forKey: "number")
            }
            try context.saveToPersistentStore()
        }
        for note in try context.fetch(FetchRequest(entityName: "Note", predicate: ObjectPredicate(format: "number >= 1000"))) {
            try context.delete(note)
        }
        try context.saveToPersistentStore()

        let result = try stack.compact()
        #expect(result.bytesAfter < result.bytesBefore)
        #expect(try context.count(for: FetchRequest(entityName: "Note")) == 200)
        let added = try context.insertObject(entityName: "Note")
        try added.setValue(.integer(-1), forKey: "number")
        try context.saveToPersistentStore()
        try stack.close()

        #expect(fixture.isSound)
        let reopened = try PersistentStack(storeAt: fixture.url)
        #expect(try reopened.all("Note").count == 201)
        try reopened.close()
    }
}

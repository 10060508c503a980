import Foundation
import Testing
@testable import MagicalRecord

/// All or nothing, and skipping (Spec/IMPORT.md I19): a failed import leaves the context
/// and the store exactly as they were; with skipInvalid a bad record is left out whole.
@Suite struct ImportFailureTests {
    /// A saved store, and unsaved changes on top, to check that neither moves.
    private func populated() throws -> ImportStack {
        let stack = try ImportStack()
        try stack.importJSON(#"[{"labelID": 1, "title": "A", "artists": [1, 2]}, {"labelID": 2, "title": "B"}]"#, into: "Label")
        try stack.main.saveToPersistentStore()
        try stack.importJSON(#"{"labelID": 3, "title": "unsaved", "artists": [{"artistID": 2, "name": "moved"}]}"#, into: "Label")
        return stack
    }

    @Test func everyKindOfBadInputLeavesContextAndStoreAsTheyWere() throws {
        let badInputs: [(String, String)] = [
            ("malformed JSON", #"[{"labelID": 4}, {"labelID": 5,]"#),
            ("not an object", #"[{"labelID": 4, "title": "x"}, 17]"#),
            ("a top-level string", #""label""#),
            ("a value that does not convert", #"[{"labelID": 4, "artists": [7]}, {"labelID": 1, "rating": "high"}]"#),
            ("a nested value that does not convert", #"[{"labelID": 1, "title": "changed", "artists": [{"artistID": 1, "active": "maybe"}]}]"#),
            ("a key that does not convert", #"[{"labelID": 2, "title": "changed"}, {"labelID": "two"}]"#),
            ("a nested key that does not convert", #"[{"labelID": 2, "title": "changed", "artists": [{"artistID": "x"}]}]"#),
            ("an array inside a relationship array", #"[{"labelID": 1, "artists": [[1]]}]"#),
            ("an integer out of range", #"[{"labelID": 2, "title": "changed"}, {"labelID": 2147483648}]"#),
            ("truncated input", #"[{"labelID": 4}, {"labe"#),
        ]
        let stack = try populated()
        let store = try stack.dump(stack.root)
        let context = try stack.dump(stack.main)
        for (name, text) in badInputs {
            let failure = importFailure { () throws(MagicalRecordError) in try stack.importJSON(text, into: "Label") }
            #expect(failure != nil, "\(name)")
            #expect(try stack.dump(stack.main) == context, "\(name) changed the context")
            #expect(try stack.dump(stack.root) == store, "\(name) changed the store")
        }
        try stack.main.saveToPersistentStore()
        #expect(try stack.object("Label", "labelID", .integer(3), in: stack.root)["name"] == .string("unsaved"))
    }

    @Test func malformedJSONNamesTheOffset() throws {
        let stack = try ImportStack()
        let failure = importFailure { () throws(MagicalRecordError) in
            try stack.importJSON(#"[{"labelID": 4}, {"labelID": 5,]"#, into: "Label")
        }
        guard case .json(let error)? = failure?.reason else {
            Issue.record("not a JSON error: \(String(describing: failure))")
            return
        }
        #expect(error.offset == 31, "at the ']' after the comma")
    }

    @Test func skipInvalidLeavesBadRecordsOutWholeAndReportsEach() throws {
        let stack = try populated()
        let result = try stack.importJSON(
            #"""
            [{"labelID": 10, "title": "good"},
             {"labelID": 11, "title": "bad nested", "artists": [{"artistID": 50, "name": "left out"}, {"artistID": 51, "active": 3}]},
             17,
             {"labelID": "x"},
             {"labelID": 1, "title": "bad update", "rating": "NaN"},
             {"labelID": 12, "artists": [{"artistID": 52}]}]
            """#,
            into: "Label", options: ImportOptions(skipInvalid: true)
        )
        #expect(result.skipped.map(\.recordIndex) == [1, 2, 3, 4])
        #expect(result.created == 3, "labels 10 and 12, artist 52")
        #expect(try stack.count("Artist") == 3, "artists 1, 2 and 52: 50 and 51 left with their record")
        #expect(try stack.object("Label", "labelID", .integer(1))["name"] == .string("A"))
        #expect(try stack.main.fetch(FetchRequest(entityName: "Label")).filter { $0["labelID"] == .integer(11) }.isEmpty)
        let description = result.skipped.map(\.description).joined(separator: "\n")
        #expect(description.contains(#"record 1: Artist.active from key "active": 3"#))
        #expect(description.contains("record 2 (Label): a record must be a JSON object, not a number"))
    }

    @Test func skipInvalidStillFailsWholeOnMalformedJSON() throws {
        let stack = try populated()
        let before = try stack.dump(stack.main)
        let failure = importFailure { () throws(MagicalRecordError) in
            try stack.importJSON(#"[{"labelID": 20}, {"labelID": 21} {"labelID": 22}]"#, into: "Label", options: ImportOptions(skipInvalid: true, batchSize: 1))
        }
        #expect(failure?.recordIndex == nil)
        #expect(try stack.dump(stack.main) == before, "records of earlier batches are undone too")
    }

    @Test func trailingCommasAreAnOption() throws {
        let stack = try ImportStack()
        let text = #"[{"labelID": 1, "title": "a",}, {"labelID": 2},]"#
        #expect(importFailure { () throws(MagicalRecordError) in try stack.importJSON(text, into: "Label") } != nil)
        let result = try stack.importJSON(text, into: "Label", options: ImportOptions(allowsTrailingCommas: true))
        #expect(result.created == 2)
    }

    @Test func unknownEntitiesAndAmbiguousAbstractOnesAreRefused() throws {
        let stack = try ImportStack()
        #expect(throws: MagicalRecordError.self) { try stack.importJSON("[]", into: "Nope") }
        let shapes = try ImportStack(model: try ObjectModel(entities: [
            EntityDescription("Shape", abstract: true) { AttributeDescription("name", .string) },
            EntityDescription("Circle", parent: "Shape"),
            EntityDescription("Square", parent: "Shape"),
            EntityDescription("Animal", abstract: true) { AttributeDescription("name", .string) },
            EntityDescription("Dog", parent: "Animal"),
        ]))
        let failure = importFailure { () throws(MagicalRecordError) in try shapes.importJSON(#"[{"name": "x"}]"#, into: "Shape") }
        #expect(failure?.description.contains("abstract with subentities Circle, Square") == true)
        // One concrete subentity: records become its objects (Spec/IMPORT.md I25).
        try shapes.importJSON(#"[{"name": "Rex"}]"#, into: "Animal")
        #expect(try shapes.count("Dog") == 1)
    }
}

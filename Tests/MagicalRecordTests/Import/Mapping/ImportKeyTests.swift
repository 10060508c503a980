import Foundation
import Testing
@testable import MagicalRecord

/// Keys and upserts (Spec/IMPORT.md I6-I11): objects found by key are updated, the rest
/// created; keys are converted before lookup.
@Suite struct ImportKeyTests {
    @Test func recordsWithAKnownKeyUpdateTheirObject() throws {
        let stack = try ImportStack()
        let first = try stack.importJSON(#"[{"labelID": 1, "title": "Blue Note"}, {"labelID": 2, "title": "Verve"}]"#, into: "Label")
        #expect(first.created == 2 && first.updated == 0)
        try stack.main.saveToPersistentStore()

        let second = try stack.importJSON(#"[{"labelID": 2, "title": "Verve Records"}, {"labelID": 3, "title": "Impulse!"}]"#, into: "Label")
        #expect(second.created == 1 && second.updated == 1)
        #expect(try stack.count("Label") == 3)
        #expect(try stack.object("Label", "labelID", .integer(2))["name"] == .string("Verve Records"))
        #expect(try stack.object("Label", "labelID", .integer(1))["name"] == .string("Blue Note"))
        #expect(second.objectIDs.count == 2)
    }

    @Test func keysAreConvertedBeforeLookup() throws {
        let stack = try ImportStack()
        try stack.importJSON(#"{"labelID": 42, "title": "A"}"#, into: "Label")
        try stack.main.saveToPersistentStore()
        // MagicalRecord compared "42" with 42 uncoerced and made a duplicate.
        let result = try stack.importJSON(#"[{"labelID": "42", "title": "B"}, {"labelID": 42.0, "city": "x"}]"#, into: "Label")
        #expect(result.created == 0 && result.updated == 1)
        #expect(try stack.count("Label") == 1)
        #expect(try stack.object("Label", "labelID", .integer(42))["name"] == .string("B"))
    }

    @Test func theSameKeyTwiceInOneImportIsOneObjectAndTheLastValueWins() throws {
        let stack = try ImportStack()
        let result = try stack.importJSON(#"[{"labelID": 7, "title": "first"}, {"labelID": 8}, {"labelID": "7", "title": "last"}]"#, into: "Label")
        #expect(result.created == 2)
        #expect(result.objectIDs.count == 2, "a record imported twice is reported once")
        #expect(try stack.object("Label", "labelID", .integer(7))["name"] == .string("last"))
    }

    @Test func keysAreFoundAmongUnsavedObjectsOfTheContextAndItsParents() throws {
        let stack = try ImportStack()
        let pending = try stack.main.insertObject(entityName: "Label")
        try pending.setValue(.integer(5), forKey: "labelID")
        let child = ManagedObjectContext.context(withParent: stack.main)
        let result = try child.importRecords([["labelID": 5, "title": "from child"]], entityName: "Label")
        #expect(result.created == 0 && result.updated == 1)
        try child.save()
        #expect(pending["name"] == .string("from child"))
        #expect(try stack.count("Label") == 1)
    }

    @Test func theEntityIDAttributeIsTheKeyWithoutRelatedByAttribute() throws {
        let stack = try ImportStack()
        #expect(ImportModel.model.entity(named: "Artist")?.keyAttribute == "artistID")
        try stack.importJSON(#"[{"artistID": 1, "name": "Monk"}, {"artistID": 1, "active": true}]"#, into: "Artist")
        #expect(try stack.count("Artist") == 1)
        let monk = try stack.object("Artist", "artistID", .integer(1))
        #expect(monk["name"] == .string("Monk") && monk["active"] == .bool(true))
    }

    @Test func anEntityWithoutAKeyAlwaysInserts() throws {
        let stack = try ImportStack()
        let result = try stack.importJSON(#"[{"text": "a"}, {"text": "a"}, {"text": "a"}]"#, into: "Note")
        #expect(result.created == 3)
        #expect(try stack.count("Note") == 3)
    }

    @Test func aRecordWithoutUsableKeyIsAnErrorNamingIt() throws {
        let cases: [(String, String)] = [
            (#"[{"labelID": 1}, {"title": "no key"}]"#, "record 1: key Label.labelID = absent"),
            (#"[{"labelID": null}]"#, "record 0: key Label.labelID = absent"),
            (#"[{"labelID": 1}, {"labelID": 2}, {"labelID": "2x"}]"#, "record 2: key Label.labelID = \"2x\""),
            (#"[{"labelID": 99999999999}]"#, "record 0: key Label.labelID = 99999999999"),
        ]
        for (text, expected) in cases {
            let stack = try ImportStack()
            guard let failure = importFailure({ () throws(MagicalRecordError) in try stack.importJSON(text, into: "Label") }) else { continue }
            #expect(failure.description.hasPrefix(expected), "\(text): \(failure)")
            #expect(stack.main.hasChanges == false, "\(text): a failed import leaves nothing")
        }
    }

    /// Random records over a few keys, imported in batches of several sizes, against a
    /// plain-Swift reference of the upsert rules: key found → update the keys present
    /// (null sets nil), else create with the model defaults.
    @Test func randomUpsertsMatchTheReference() throws {
        var generator = SeededGenerator(seed: 0x1A2B)
        var records: [String] = []
        var reference: [Int: (name: String?, city: String?)] = [:]
        for _ in 0..<(200 * testScale) {
            let key = Int.random(in: 0..<40, using: &generator)
            var fields = [Bool.random(using: &generator) ? #""labelID": \#(key)"# : #""labelID": "\#(key)""#]
            var entry = reference[key] ?? (name: nil, city: nil)
            switch Int.random(in: 0..<3, using: &generator) {
            case 0:
                let title = "t\(Int.random(in: 0..<5, using: &generator))"
                fields.append(#""title": "\#(title)""#)
                entry.name = title
            case 1:
                fields.append(#""title": null"#)
                entry.name = nil
            default:
                break
            }
            if Bool.random(using: &generator) {
                let city = "c\(Int.random(in: 0..<5, using: &generator))"
                fields.append(#""location": {"city": "\#(city)"}"#)
                entry.city = city
            }
            reference[key] = entry
            records.append("{" + fields.joined(separator: ", ") + "}")
        }
        let text = "[" + records.joined(separator: ",") + "]"
        for batchSize in [1, 3, 64, 10_000] {
            let stack = try ImportStack()
            let result = try stack.importJSON(text, into: "Label", options: ImportOptions(batchSize: batchSize))
            #expect(result.created == reference.count)
            try stack.main.saveToPersistentStore()
            var stored: [Int: (name: String?, city: String?)] = [:]
            for label in try stack.root.fetch(FetchRequest(entityName: "Label")) {
                guard let key = label["labelID"].integerValue else { continue }
                stored[Int(key)] = (label["name"].stringValue, label["city"].stringValue)
            }
            #expect(stored.count == reference.count, "batch size \(batchSize)")
            for (key, entry) in reference {
                #expect(stored[key]?.name == entry.name && stored[key]?.city == entry.city, "batch size \(batchSize), key \(key)")
            }
        }
    }
}

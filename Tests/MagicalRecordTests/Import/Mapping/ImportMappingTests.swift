import Foundation
import Testing
@testable import MagicalRecord

/// Where values come from (Spec/IMPORT.md I1-I5): mapped key names, alternates, key
/// paths, null against absent, defaults.
@Suite struct ImportMappingTests {
    private func label(_ json: String, options: ImportOptions = ImportOptions(), before: String? = nil) throws -> ManagedObject {
        let stack = try ImportStack()
        if let before { try stack.importJSON(before, into: "Label") }
        try stack.importJSON(json, into: "Label", options: options)
        return try stack.object("Label", "labelID", .integer(1))
    }

    @Test func mappedKeyNamesAndTheirAlternatesAreTriedInOrder() throws {
        #expect(try label(#"{"labelID": 1, "title": "T", "label_name": "L", "meta": {"name": "M"}}"#)["name"] == .string("T"))
        #expect(try label(#"{"labelID": 1, "label_name": "L", "meta": {"name": "M"}}"#)["name"] == .string("L"))
        #expect(try label(#"{"labelID": 1, "meta": {"name": "M"}}"#)["name"] == .string("M"))
        #expect(try label(#"{"labelID": 1, "name": "own name is not read when mapped"}"#)["name"] == .null)
    }

    @Test func keyPathsWalkNestedObjectsAndThroughAnythingElseAreAbsent() throws {
        #expect(try label(#"{"labelID": 1, "location": {"city": "Paris"}}"#)["city"] == .string("Paris"))
        #expect(try label(#"{"labelID": 1, "location": "here"}"#, before: #"{"labelID": 1, "location": {"city": "Kept"}}"#)["city"] == .string("Kept"))
        let stack = try ImportStack()
        let failure = importFailure { () throws(MagicalRecordError) in
            try stack.importJSON(#"{"labelID": 1, "location": {"city": {"name": "x"}}}"#, into: "Label")
        }
        #expect(failure?.description.contains(#"Label.city from key "location.city": an object"#) == true, "an object is not a String")
    }

    @Test func nullSetsNilNotTheDefault() throws {
        let imported = try label(#"{"labelID": 1, "motto": null, "title": null}"#, before: #"{"labelID": 1, "motto": "m", "title": "t"}"#)
        #expect(imported["motto"] == .null)
        #expect(imported["name"] == .null, "null on the first key sets nil: alternates are not tried")
    }

    @Test func nullAsAbsentTriesTheNextAlternateAndKeepsValues() throws {
        let options = ImportOptions(nullAsAbsent: true)
        let imported = try label(
            #"{"labelID": 1, "motto": null, "title": null, "label_name": "alternate"}"#, options: options,
            before: #"{"labelID": 1, "motto": "kept"}"#
        )
        #expect(imported["motto"] == .string("kept"))
        #expect(imported["name"] == .string("alternate"))
    }

    @Test func absentKeysLeaveValuesUnlessTheAttributeAsksForItsDefault() throws {
        let imported = try label(#"{"labelID": 1}"#, before: #"{"labelID": 1, "motto": "m", "title": "t", "rating": 9.5}"#)
        #expect(imported["motto"] == .string("m"))
        #expect(imported["name"] == .string("t"))
        #expect(imported["rating"] == .double(5), "useDefaultValueWhenNotPresent")
        let fresh = try label(#"{"labelID": 1}"#)
        #expect(fresh["motto"] == .string("none"), "a new object starts at the model defaults")
    }

    @Test func valuesConvertToTheAttributeType() throws {
        let imported = try label(#"{"labelID": "1", "title": 1234567890123, "rating": "2.5", "founded": "1939-01-06T00:00:00Z"}"#)
        #expect(imported["name"] == .string("1234567890123"))
        #expect(imported["rating"] == .double(2.5))
        #expect(imported["founded"] == .date(Date(timeIntervalSince1970: -977_875_200)))
    }

    @Test func aValueThatDoesNotConvertNamesRecordEntityAttributeKeyAndValue() throws {
        let stack = try ImportStack()
        let failure = importFailure { () throws(MagicalRecordError) in
            try stack.importJSON(#"[{"labelID": 1}, {"labelID": 2, "rating": "12abc"}]"#, into: "Label")
        }
        #expect(failure?.recordIndex == 1)
        #expect(failure?.entity == "Label")
        guard case .conversion(let attribute, let key, let value, _)? = failure?.reason else {
            Issue.record("not a conversion error: \(String(describing: failure))")
            return
        }
        #expect(attribute == "rating" && key == "rating" && value == "\"12abc\"")
        #expect(failure?.description.hasPrefix(#"record 1: Label.rating from key "rating": "12abc": "#) == true)

        let dated = importFailure { () throws(MagicalRecordError) in
            try stack.importJSON(#"{"labelID": 3, "founded": "yesterday"}"#, into: "Label")
        }
        guard case .conversion(let dateAttribute, _, _, _)? = dated?.reason else {
            Issue.record("a date that does not parse was accepted")
            return
        }
        #expect(dateAttribute == "founded")
    }

    @Test func importingUnchangedDataChangesNothing() throws {
        let stack = try ImportStack()
        let text = #"[{"labelID": 1, "title": "A", "location": {"city": "B"}}]"#
        try stack.importJSON(text, into: "Label")
        try stack.main.saveToPersistentStore()
        let result = try stack.importJSON(text, into: "Label")
        #expect(result.updated == 0 && result.unchanged == 1)
        #expect(stack.main.hasChanges == false)
    }

    @Test func anUpdateChangesOnlyWhatTheDataChanges() throws {
        let stack = try ImportStack()
        try stack.importJSON(#"[{"labelID": 1, "title": "A", "motto": "m1"}, {"labelID": 2, "title": "B"}, {"labelID": 3, "title": "C"}]"#, into: "Label")
        try stack.main.saveToPersistentStore()
        try stack.importJSON(#"[{"labelID": 1, "title": "A"}, {"labelID": 2, "title": "B2"}]"#, into: "Label")
        let labels = try (1...3).map { try stack.object("Label", "labelID", .integer($0)) }
        #expect(labels.map(\.hasChanges) == [false, true, false])
        #expect(labels[0]["motto"] == .string("m1"))
        #expect(labels[1]["name"] == .string("B2") && labels[1]["motto"] == .string("none"))
    }
}

import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// The change kinds of Spec/MIGRATION.md's table not covered by MigrationTests: ordering,
/// indexes, optionality, inheritance, chains through a removal, and retired slots.
@Suite struct MigrationChangeKindTests {
    typealias Base = MigrationTests

    private func replacing(_ text: String, _ pairs: [(String, String)]) -> String {
        pairs.reduce(text) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
    }

    @Test func aToManyBecomesOrderedAndBackKeepingItsTargets() throws {
        let fixture = MigrationFixture()
        try fixture.write(try Base.v1(), Base.populate)
        let ordered = replacing(Base.department, [(#""toMany": true"#, #""toMany": true, "ordered": true"#)])
        let v2 = try MigrationFixture.model("V2", "[\(Base.person), \(ordered)]")
        var stack = try fixture.open(v2)
        var sales = try #require(try stack.all("Department").first { try $0.attributeValue(forKey: "name") == .string("Sales") })
        #expect(try sales.relatedObjects(forKey: "people").map { try $0.attributeValue(forKey: "personID") } == [.integer(1), .integer(2)])
        try stack.close()
        let v3 = try MigrationFixture.model("V3", "[\(Base.person), \(Base.department)]")
        stack = try fixture.open(v3)
        sales = try #require(try stack.all("Department").first { try $0.attributeValue(forKey: "name") == .string("Sales") })
        #expect(try sales.relatedObjects(forKey: "people").count == 2)
        try stack.close()
        #expect(fixture.isSound)
    }

    @Test func indexesComeAndGoWithTheirTrees() throws {
        let fixture = MigrationFixture()
        try fixture.write(try Base.v1(), Base.populate)
        let person = replacing(Base.person, [
            (#"{"name": "name", "type": "String"}"#, #"{"name": "name", "type": "String", "indexed": true}"#),
            (#"{"name": "personID", "type": "Integer 64", "indexed": true}"#, #"{"name": "personID", "type": "Integer 64"}"#),
            (#""relatedByAttribute": "personID""#, #""relatedByAttribute": "name""#),
        ])
        let v2 = try MigrationFixture.model("V2", "[\(person), \(Base.department)]")
        let plan = try StoreMigration.plan(storeAt: fixture.url, to: ModelVersions(v2))
        #expect(plan.steps.contains { $0.description == "Person.name: now indexed: index built from 3 objects [rewrites data]" }, "\(plan)")
        #expect(plan.steps.contains { $0.description == "Person.personID: no longer indexed: index dropped" }, "\(plan)")
        let stack = try fixture.open(v2)
        #expect(try stack.rootContext.count(for: FetchRequest(entityName: "Person", predicate: ObjectPredicate(format: "name == 'Cy'"))) == 1)
        try stack.close()
        let engine = try Store(path: fixture.url.path, options: StoreOptions(readOnly: true))
        let names = try engine.read().treeNames()
        try engine.close()
        #expect(names.contains("i.Person.name"))
        #expect(!names.contains("i.Person.personID"))
    }

    @Test func optionalityChangesNeedNoRewrite() throws {
        let fixture = MigrationFixture()
        try fixture.write(try Base.v1()) { context in
            try Base.populate(context)
            let nameless = try context.insertObject(entityName: "Person")
            try nameless.setValue(.integer(8), forKey: "personID")
        }
        let person = replacing(Base.person, [
            (#"{"name": "name", "type": "String"}"#, #"{"name": "name", "type": "String", "optional": false, "default": "?"}"#),
            (#"{"name": "personID", "type": "Integer 64", "indexed": true}"#, #"{"name": "personID", "type": "Integer 64", "indexed": true, "optional": true}"#),
        ])
        let v2 = try MigrationFixture.model("V2", "[\(person), \(Base.department)]")
        let plan = try StoreMigration.plan(storeAt: fixture.url, to: ModelVersions(v2))
        #expect(plan.isPossible && !plan.rewritesData, "\(plan)")
        let stack = try fixture.open(v2)
        let nameless = try #require(try stack.all("Person").first { try $0.attributeValue(forKey: "personID") == .integer(8) })
        #expect(try nameless.attributeValue(forKey: "name") == .string("?"))
        try stack.rootContext.save()
        try stack.close()
    }

    /// O8: an optional attribute with a default keeps an explicit nil; made required, the
    /// records holding one are rewritten and the nil takes the new default, while set values
    /// and values never set keep reading as before.
    @Test func explicitNilsTakeTheDefaultWhenTheirAttributeBecomesRequired() throws {
        let fixture = MigrationFixture()
        let withDefault = replacing(Base.person, [(#"{"name": "name", "type": "String"}"#, #"{"name": "name", "type": "String", "default": "anon"}"#)])
        try fixture.write(try MigrationFixture.model("V1", "[\(withDefault), \(Base.department)]")) { context in
            try Base.populate(context)
            let nameless = try context.insertObject(entityName: "Person")
            try nameless.setValue(.integer(8), forKey: "personID")
            try nameless.setValue(.null, forKey: "name")
            let unset = try context.insertObject(entityName: "Person")
            try unset.setValue(.integer(9), forKey: "personID")
        }
        let required = replacing(Base.person, [(#"{"name": "name", "type": "String"}"#, #"{"name": "name", "type": "String", "optional": false, "default": "?"}"#)])
        let v2 = try MigrationFixture.model("V2", "[\(required), \(Base.department)]")
        let plan = try StoreMigration.plan(storeAt: fixture.url, to: ModelVersions(v2))
        #expect(plan.isPossible && plan.rewritesData, "\(plan)")
        let stack = try fixture.open(v2)
        let names = try stack.all("Person", sortedBy: "personID").map { try $0.attributeValue(forKey: "name") }
        #expect(names == [.string("Ann"), .string("Bob"), .string("Cy"), .string("?"), .string("anon")])
        try stack.rootContext.save()
        try stack.close()
        #expect(fixture.isSound)
    }

    @Test func aNewParentBringsItsAttributesToTheChild() throws {
        let fixture = MigrationFixture()
        let note = #"{"name": "Note", "attributes": [{"name": "text", "type": "String"}]}"#
        try fixture.write(try MigrationFixture.model("V1", "[\(note)]")) { context in
            let first = try context.insertObject(entityName: "Note")
            try first.setValue(.string("hello"), forKey: "text")
        }
        let item = #"{"name": "Item", "abstract": true, "attributes": [{"name": "created", "type": "Date"}, {"name": "text", "type": "String"}]}"#
        let child = #"{"name": "Note", "parent": "Item", "attributes": [{"name": "pinned", "type": "Boolean", "optional": false, "default": false}]}"#
        let v2 = try MigrationFixture.model("V2", "[\(item), \(child)]")
        let stack = try fixture.open(v2)
        let notes = try stack.all("Item")
        #expect(try notes.map { try $0.attributeValue(forKey: "text") } == [.string("hello")])
        #expect(try notes.map { try $0.attributeValue(forKey: "pinned") } == [.bool(false)])
        try stack.close()
        #expect(fixture.isSound)
    }

    @Test func aChainForgetsWhatAMiddleVersionRemoved() throws {
        let fixture = MigrationFixture()
        try fixture.write(try Base.v1(), Base.populate)
        let v1 = try Base.v1()
        let withoutActive = replacing(Base.person, [(#", {"name": "active", "type": "Boolean"}"#, ""), (#",\#n    {"name": "active", "type": "Boolean"}"#, "")])
        let v2 = try MigrationFixture.model("V2", "[\(withoutActive), \(Base.department)]")
        #expect(v2.entity(named: "Person")?.attribute(named: "active") == nil)
        let withNickname = replacing(Base.person, [(#"{"name": "active", "type": "Boolean"}"#, #"{"name": "active", "type": "Boolean"}, {"name": "nickname", "type": "String"}"#)])
        let v3 = try MigrationFixture.model("V3", "[\(withNickname), \(Base.department)]")
        // Straight from V1, `active` would continue; through V2 it is a new attribute.
        let direct = try StoreMigration.plan(storeAt: fixture.url, to: ModelVersions(v3))
        #expect(!direct.steps.contains { $0.subject == "Person.active" })
        let stack = try fixture.open(ModelVersions([v1, v2, v3], current: "V3"))
        #expect(try stack.all("Person").allSatisfy { try $0.attributeValue(forKey: "active") == .null })
        #expect(try stack.all("Person").count == 3)
        try stack.close()
    }

    @Test func removedNumbersAreRetiredAndNeverHandedOutAgain() throws {
        let fixture = MigrationFixture()
        try fixture.write(try Base.v1(), Base.populate)
        let before = try PersistentStack(storeAt: fixture.url, readOnly: true)
        let oldSlots = before.modelDescription.currentSlots
        try before.close()
        let person = replacing(Base.person, [
            (#"{"name": "active", "type": "Boolean"}"#, #"{"name": "flag", "type": "String"}"#),
            (#"[{"name": "department", "destination": "Department", "inverse": "people"}]"#, "[]"),
        ])
        let stack = try fixture.open(try MigrationFixture.model("V2", "[\(person)]"))
        let slots = stack.modelDescription.currentSlots
        try stack.close()
        let activeSlot = try #require(oldSlots["Person.active"])
        #expect(slots["Person.#\(activeSlot)"] == activeSlot)
        #expect(slots["Person.active"] == nil)
        #expect(try #require(slots["Person.flag"]) > oldSlots.filter { $0.key.hasPrefix("Person.") }.values.max()!)
        let departmentCode = try #require(oldSlots["Department"])
        #expect(slots["#\(departmentCode)"] == departmentCode)
        #expect(slots["Department"] == nil)
        #expect(slots["Person"] == oldSlots["Person"])
    }
}

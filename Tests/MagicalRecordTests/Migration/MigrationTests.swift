import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// Migrating stores between model versions (Spec/MIGRATION.md): each change kind carries
/// the stored data over, refused migrations change nothing, and the store records its history.
@Suite struct MigrationTests {
    static let person = #"""
        {"name": "Person", "userInfo": {"relatedByAttribute": "personID"}, "attributes": [
            {"name": "personID", "type": "Integer 64", "indexed": true},
            {"name": "name", "type": "String"},
            {"name": "age", "type": "Integer 16"},
            {"name": "score", "type": "Integer 32"},
            {"name": "born", "type": "Date"},
            {"name": "active", "type": "Boolean"}],
         "relationships": [{"name": "department", "destination": "Department", "inverse": "people"}]}
        """#
    static let department = #"""
        {"name": "Department", "attributes": [{"name": "name", "type": "String"}],
         "relationships": [{"name": "people", "destination": "Person", "inverse": "department", "toMany": true}]}
        """#
    static func v1() throws -> ObjectModel { try MigrationFixture.model("V1", "[\(person), \(department)]") }
    /// V1 with Person.name a Date: a change no migration infers.
    static func nameAsDate() throws -> ObjectModel {
        try MigrationFixture.model("V2", "[\(person.replacingOccurrences(of: #""name", "type": "String""#, with: #""name", "type": "Date""#)), \(department)]")
    }

    /// Three people in two departments.
    static func populate(_ context: ManagedObjectContext) throws {
        let sales = try context.insertObject(entityName: "Department")
        try sales.setValue(.string("Sales"), forKey: "name")
        let lab = try context.insertObject(entityName: "Department")
        try lab.setValue(.string("Lab"), forKey: "name")
        for (id, name, age, department) in [(1, "Ann", 31, sales), (2, "Bob", 45, sales), (3, "Cy", 27, lab)] {
            let person = try context.insertObject(entityName: "Person")
            try person.setValue(.integer(Int64(id)), forKey: "personID")
            try person.setValue(.string(name), forKey: "name")
            try person.setValue(.integer(Int64(age)), forKey: "age")
            try person.setValue(.integer(Int64(id * 7)), forKey: "score")
            try person.setValue(.date(Date(timeIntervalSince1970: Double(id) * 86_400)), forKey: "born")
            try person.setValue(.bool(id != 2), forKey: "active")
            try person.setRelatedObject(department, forKey: "department")
        }
    }

    private func replacing(_ text: String, _ pairs: [(String, String)]) -> String {
        pairs.reduce(text) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
    }

    @Test func addingRemovingAndRenamingRewritesNothingAndKeepsValues() throws {
        let fixture = MigrationFixture()
        try fixture.write(try Self.v1(), Self.populate)
        let person = replacing(Self.person, [
            (#"{"name": "name", "type": "String"}"#, #"{"name": "fullName", "type": "String", "renamingIdentifier": "name"}"#),
            (#"{"name": "age", "type": "Integer 16"}"#, #"{"name": "age", "type": "Integer 64"}"#),
            (#"{"name": "active", "type": "Boolean"}"#, #"{"name": "nickname", "type": "String", "default": "none"}"#),
        ])
        let v2 = try MigrationFixture.model("V2", "[\(person), \(Self.department)]")
        let plan = try StoreMigration.plan(storeAt: fixture.url, to: ModelVersions(v2))
        #expect(plan.isPossible)
        #expect(!plan.rewritesData, "\(plan)")
        #expect(plan.steps.map(\.description).contains("Person.fullName: renamed from name: slot kept, nothing rewritten"))
        #expect(plan.steps.contains { $0.subject == "Person.active" && $0.change.contains("removed") })

        let stack = try fixture.open(v2)
        let people = try stack.all("Person", sortedBy: "personID")
        #expect(try people.map { try $0.attributeValue(forKey: "fullName") } == [.string("Ann"), .string("Bob"), .string("Cy")])
        #expect(try people.map { try $0.attributeValue(forKey: "age") } == [.integer(31), .integer(45), .integer(27)])
        #expect(try people.map { try $0.attributeValue(forKey: "nickname") } == [.string("none"), .string("none"), .string("none")])
        #expect(try people[0].relatedObject(forKey: "department")?.attributeValue(forKey: "name") == .string("Sales"))
        #expect(try stack.rootContext.count(for: FetchRequest(entityName: "Person", predicate: ObjectPredicate(format: "fullName == 'Bob'"))) == 1)
        #expect(stack.modelHistory?.versions.all.map(\.versionName) == ["V1"])
        try stack.close()
        #expect(fixture.isSound)

        // Re-adding the removed attribute starts it afresh: its old values are not revived.
        let v3 = try MigrationFixture.model("V3", "[\(replacing(person, [(#""nickname""#, #""active", "type": "Boolean"}, {"name": "nickname""#)])), \(Self.department)]")
        let third = try fixture.open(ModelVersions([v2, v3], current: "V3"))
        #expect(try third.all("Person").allSatisfy { try $0.attributeValue(forKey: "active") == .null })
        #expect(third.modelHistory?.versions.all.map(\.versionName) == ["V1", "V2"])
        try third.close()
    }

    @Test func typeChangesConvertStoredValuesAndRebuildTheirIndexes() throws {
        let fixture = MigrationFixture()
        try fixture.write(try Self.v1(), Self.populate)
        let person = replacing(Self.person, [
            (#"{"name": "age", "type": "Integer 16"}"#, #"{"name": "age", "type": "Double"}"#),
            (#"{"name": "score", "type": "Integer 32"}"#, #"{"name": "score", "type": "String", "indexed": true}"#),
            (#"{"name": "born", "type": "Date"}"#, #"{"name": "born", "type": "String"}"#),
            (#"{"name": "active", "type": "Boolean"}"#, #"{"name": "active", "type": "String"}"#),
        ])
        let v2 = try MigrationFixture.model("V2", "[\(person), \(Self.department)]")
        let plan = try StoreMigration.plan(storeAt: fixture.url, to: ModelVersions(v2))
        #expect(plan.rewritesData)
        let stack = try fixture.open(v2)
        let people = try stack.all("Person", sortedBy: "personID")
        #expect(try people.map { try $0.attributeValue(forKey: "age") } == [.double(31), .double(45), .double(27)])
        #expect(try people.map { try $0.attributeValue(forKey: "score") } == [.string("7"), .string("14"), .string("21")])
        #expect(try people[0].attributeValue(forKey: "born") == .string("1970-01-02T00:00:00Z"))
        #expect(try people.map { try $0.attributeValue(forKey: "active") } == [.string("true"), .string("false"), .string("true")])
        #expect(try people[2].relatedObject(forKey: "department")?.attributeValue(forKey: "name") == .string("Lab"))
        let context = stack.rootContext
        #expect(try context.count(for: FetchRequest(entityName: "Person", predicate: ObjectPredicate(format: "score == '14'"))) == 1)
        #expect(try context.count(for: FetchRequest(entityName: "Person", predicate: ObjectPredicate(format: "age > 30.5"))) == 2)
        #expect(try context.count(for: FetchRequest(entityName: "Person", predicate: ObjectPredicate(format: "personID == 3"))) == 1)
        try stack.close()
        #expect(fixture.isSound)
    }

    @Test func incompatibleChangesAreAllListedAndTheStoreIsLeftByteForByte() throws {
        let fixture = MigrationFixture()
        try fixture.write(try Self.v1(), Self.populate)
        let person = replacing(Self.person, [
            (#"{"name": "name", "type": "String"}"#, #"{"name": "name", "type": "Date"}"#),
            (#"{"name": "active", "type": "Boolean"}"#, #"{"name": "code", "type": "Integer 16", "optional": false}"#),
        ])
        let v2 = try MigrationFixture.model("V2", "[\(person), \(Self.department)]")
        let before = fixture.bytes
        let result = Result { () throws(MagicalRecordError) in try fixture.open(v2) }
        guard case .failure(.migrationRefused(_, let incompatibilities)) = result else {
            Issue.record("expected a refused migration, got \(result)")
            return
        }
        #expect(incompatibilities.count == 2, "\(incompatibilities)")
        #expect(incompatibilities.contains { $0.hasPrefix("Person.name: type changed from String to Date") })
        #expect(incompatibilities.contains { $0.hasPrefix("Person.code: added as required with no default value") })
        #expect(fixture.bytes == before)
        // The plain setup refuses too, listing the differences, and changes nothing.
        let plain = Result { () throws(MagicalRecordError) in try PersistentStack(storeAt: fixture.url, model: v2) }
        guard case .failure(.modelMismatch) = plain else {
            Issue.record("expected a model mismatch, got \(plain)")
            return
        }
        #expect(fixture.bytes == before)

        // A transform covers both.
        let transform: EntityTransform = { object in
            guard case .string(let name) = object.sourceValues["name"], case .integer(let id) = object.sourceValues["personID"] else { return }
            object.values["name"] = .date(Date(timeIntervalSince1970: Double(name.count)))
            object.values["code"] = .integer(id * 2)
        }
        let stack = try fixture.open(v2, options: MigrationOptions(transforms: ["Person": transform]))
        let people = try stack.all("Person", sortedBy: "personID")
        #expect(try people.map { try $0.attributeValue(forKey: "name") } == [3, 3, 2].map { .date(Date(timeIntervalSince1970: $0)) })
        #expect(try people.map { try $0.attributeValue(forKey: "code") } == [.integer(2), .integer(4), .integer(6)])
        #expect(try people.map { try $0.attributeValue(forKey: "age") } == [.integer(31), .integer(45), .integer(27)])
        #expect(try people[1].relatedObject(forKey: "department")?.attributeValue(forKey: "name") == .string("Sales"))
        try stack.close()
        #expect(fixture.isSound)
    }

    @Test func aTransformThatThrowsLeavesTheStoreAsItWas() throws {
        let fixture = MigrationFixture()
        try fixture.write(try Self.v1(), Self.populate)
        let v2 = try Self.nameAsDate()
        struct Refusal: Error {}
        let before = fixture.bytes
        let result = Result { () throws(MagicalRecordError) in
            try fixture.open(v2, options: MigrationOptions(transforms: ["Person": { _ in throw Refusal() }]))
        }
        guard case .failure(.migrationFailed(_, let reason)) = result else {
            Issue.record("expected a failed migration, got \(result)")
            return
        }
        #expect(reason.contains("Person"))
        #expect(fixture.bytes.count >= before.count)
        let reopened = try PersistentStack(storeAt: fixture.url)
        #expect(reopened.model.versionHash == (try Self.v1()).versionHash)
        #expect(try reopened.all("Person").count == 3)
        try reopened.close()
    }

    @Test func renamedEntitiesAndRelationshipsKeepTheirObjectsAndLinks() throws {
        let fixture = MigrationFixture()
        try fixture.write(try Self.v1(), Self.populate)
        let person = replacing(Self.person, [
            (#"{"name": "department", "destination": "Department", "inverse": "people"}"#,
             #"{"name": "team", "destination": "Team", "inverse": "members", "renamingIdentifier": "department"}"#),
        ])
        let team = #"""
            {"name": "Team", "renamingIdentifier": "Department", "attributes": [{"name": "name", "type": "String"}],
             "relationships": [{"name": "members", "destination": "Person", "inverse": "team", "toMany": true, "renamingIdentifier": "people"}]}
            """#
        let v2 = try MigrationFixture.model("V2", "[\(person), \(team)]")
        let plan = try StoreMigration.plan(storeAt: fixture.url, to: ModelVersions(v2))
        #expect(plan.isPossible && !plan.rewritesData, "\(plan)")
        let stack = try fixture.open(v2)
        let teams = try stack.all("Team", sortedBy: "name")
        #expect(try teams.map { try $0.attributeValue(forKey: "name") } == [.string("Lab"), .string("Sales")])
        #expect(try teams[1].relatedObjects(forKey: "members").count == 2)
        let cy = try stack.all("Person").first { try $0.attributeValue(forKey: "name") == .string("Cy") }
        #expect(try cy?.relatedObject(forKey: "team")?.attributeValue(forKey: "name") == .string("Lab"))
        // New objects save into the renamed trees.
        let extra = try stack.rootContext.insertObject(entityName: "Person")
        try extra.setValue(.integer(4), forKey: "personID")
        try extra.setRelatedObject(teams[0], forKey: "team")
        try stack.rootContext.save()
        #expect(try teams[0].relatedObjects(forKey: "members").count == 2)
        try stack.close()
        #expect(fixture.isSound)
    }

    @Test func aToOneBecomesAToManyAndANewInverseIsFilledFromStoredLinks() throws {
        let fixture = MigrationFixture()
        let lonePerson = replacing(Self.person, [(#", "inverse": "people"}"#, "}")])
        let loneDepartment = #"{"name": "Department", "attributes": [{"name": "name", "type": "String"}]}"#
        try fixture.write(try MigrationFixture.model("V1", "[\(lonePerson), \(loneDepartment)]")) { context in
            let sales = try context.insertObject(entityName: "Department")
            try sales.setValue(.string("Sales"), forKey: "name")
            for id in 1...3 {
                let person = try context.insertObject(entityName: "Person")
                try person.setValue(.integer(Int64(id)), forKey: "personID")
                if id != 3 { try person.setRelatedObject(sales, forKey: "department") }
            }
        }
        // V2: Department gains `people`, the inverse of the existing to-one: filled from it.
        let v2 = try MigrationFixture.model("V2", "[\(Self.person), \(Self.department)]")
        var stack = try fixture.open(v2)
        let sales = try #require(try stack.all("Department").first)
        let ids = try sales.relatedObjects(forKey: "people").map { try $0.attributeValue(forKey: "personID").integerValue ?? 0 }
        #expect(ids.sorted() == [1, 2])
        try stack.close()
        // V3: the to-one becomes a to-many (many-to-many with `people`).
        let person = replacing(Self.person, [(#"{"name": "department", "destination": "Department", "inverse": "people"}"#,
                                              #"{"name": "departments", "destination": "Department", "inverse": "people", "toMany": true, "renamingIdentifier": "department"}"#)])
        let department = replacing(Self.department, [(#""inverse": "department""#, #""inverse": "departments""#)])
        let v3 = try MigrationFixture.model("V3", "[\(person), \(department)]")
        stack = try fixture.open(v3)
        let people = try stack.all("Person", sortedBy: "personID")
        #expect(try people.map { try $0.relatedObjects(forKey: "departments").count } == [1, 1, 0])
        #expect(try stack.all("Department")[0].relatedObjects(forKey: "people").count == 2)
        try stack.close()
        #expect(fixture.isSound)
    }

    @Test func aKeyThatWouldNotBeUniqueFailsTheMigrationAndChangesNothing() throws {
        let fixture = MigrationFixture()
        try fixture.write(try Self.v1()) { context in
            try Self.populate(context)
            let twin = try context.insertObject(entityName: "Person")
            try twin.setValue(.integer(9), forKey: "personID")
            try twin.setValue(.string("Ann"), forKey: "name")
        }
        let v2 = try MigrationFixture.model("V2", "[\(replacing(Self.person, [(#""relatedByAttribute": "personID""#, #""relatedByAttribute": "name""#)])), \(Self.department)]")
        let result = Result { () throws(MagicalRecordError) in try fixture.open(v2) }
        guard case .failure(.migrationFailed(_, let reason)) = result else {
            Issue.record("expected a failed migration, got \(result)")
            return
        }
        #expect(reason.contains("Person.name"))
        let reopened = try PersistentStack(storeAt: fixture.url)
        #expect(reopened.model.versionHash == (try Self.v1()).versionHash)
        try reopened.close()
        #expect(fixture.isSound)
    }

    @Test func entitiesComeAndGoAndEmptyEntitiesTakeAnyChange() throws {
        let fixture = MigrationFixture()
        let note = #"{"name": "Note", "attributes": [{"name": "text", "type": "String"}]}"#
        try fixture.write(try MigrationFixture.model("V1", "[\(Self.person), \(Self.department), \(note)]"), Self.populate)
        // Department has objects, Note none: Note may change in any way; Tag is new; Department goes.
        let changedNote = #"{"name": "Note", "attributes": [{"name": "text", "type": "Date", "optional": false}]}"#
        let tag = #"{"name": "Tag", "attributes": [{"name": "label", "type": "String"}]}"#
        let lonePerson = replacing(Self.person, [(#"[{"name": "department", "destination": "Department", "inverse": "people"}]"#, "[]")])
        let v2 = try MigrationFixture.model("V2", "[\(lonePerson), \(changedNote), \(tag)]")
        let plan = try StoreMigration.plan(storeAt: fixture.url, to: ModelVersions(v2))
        #expect(plan.isPossible, "\(plan)")
        #expect(plan.steps.contains { $0.description == "Department: entity removed: its 2 objects and trees dropped" })
        let stack = try fixture.open(v2)
        #expect(try stack.all("Person").count == 3)
        #expect(try stack.all("Tag").isEmpty)
        try stack.close()
        #expect(fixture.isSound)
    }

    @Test func theDevelopmentOptionDeletesOnlyWhenAskedAndLogsIt() throws {
        let fixture = MigrationFixture()
        try fixture.write(try Self.v1(), Self.populate)
        let v2 = try Self.nameAsDate()
        let stack = try PersistentStack(storeAt: fixture.url, model: v2, onModelMismatch: .deleteAndRecreate)
        #expect(try stack.all("Person").isEmpty)
        #expect(stack.modelHistory == nil)
        try stack.close()
    }
}

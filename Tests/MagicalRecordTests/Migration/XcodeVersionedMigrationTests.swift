import Foundation
import Testing
@testable import MagicalRecord

/// Migrating stores along the versions of a hand-written Xcode `.xcdatamodeld`
/// (Fixtures/models/Migrating.xcdatamodeld and Incompatible.xcdatamodeld), through the
/// public API only: `ModelVersions(contentsOf:)`, `PersistentStack(storeAt:model:)` to
/// write an old version, `PersistentStack(storeAt:versions:)` to migrate on open.
///
/// Migrating: `Migrating` (v1), `Migrating 2`, `Migrating 3` (current).
/// - v1: Person {personID Integer 64 (indexed, the key), name String, age Integer 16,
///   department → Department}, Department {name String, people →> Person}.
/// - v2: Person.name renamed fullName (renamingIdentifier "name"), age Integer 32, new
///   nickname String with the default "none"; Department gains budget Double.
/// - v3: fullName renamed displayName (the same identifier "name" carried on), age
///   Integer 64, Person.department becomes the to-many departments (renamingIdentifier
///   "department"): many-to-many with Department.people.
@Suite struct XcodeVersionedMigrationTests {
    static let models = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appendingPathComponent("models")
    static let migrating = models.appendingPathComponent("Migrating.xcdatamodeld")
    static let incompatible = models.appendingPathComponent("Incompatible.xcdatamodeld")

    /// A fresh folder under the temporary directory, removed when `body` ends.
    private func withStoreFolder(_ body: (URL) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("xcode-migration-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try body(folder)
    }

    /// Every file in `folder` with its bytes: the store file and whatever lies beside it.
    private func snapshot(of folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }

    private func people(_ stack: PersistentStack, sortedBy key: String = "personID") throws -> [ManagedObject] {
        try stack.rootContext.fetch(FetchRequest(entityName: "Person", sortKeys: [SortKey(key)]))
    }

    private func departments(_ stack: PersistentStack) throws -> [ManagedObject] {
        try stack.rootContext.fetch(FetchRequest(entityName: "Department", sortKeys: [SortKey("name")]))
    }

    private func count(_ stack: PersistentStack, _ entity: String, _ format: String? = nil) throws -> Int {
        try stack.rootContext.count(for: FetchRequest(entityName: entity, predicate: format.map { try ObjectPredicate(format: $0) }))
    }

    /// The `key` values of `objects`, as text, sorted (to-many relationships have no order).
    private func names(_ objects: [ManagedObject], _ key: String) throws -> [String] {
        try objects.map { object in
            guard case .string(let text) = try object.attributeValue(forKey: key) else { return "(\(try object.attributeValue(forKey: key)))" }
            return text
        }.sorted()
    }

    // MARK: Reading the fixtures

    @Test func theFixtureReadsAsThreeVersionsWithTheirRenamingIdentifiers() throws {
        let versions = try ModelVersions(contentsOf: Self.migrating)
        #expect(versions.all.map(\.versionName) == ["Migrating", "Migrating 2", "Migrating 3"])
        #expect(versions.current.versionName == "Migrating 3")
        let (v1, v2, v3) = (versions.all[0], versions.all[1], versions.all[2])

        let person1 = try #require(v1.entity(named: "Person"))
        #expect(person1.keyAttribute == "personID")
        #expect(person1.indexedAttributes == ["personID"])
        #expect(person1.attribute(named: "age")?.type == .integer16)
        let department = try #require(person1.relationship(named: "department"))
        #expect(!department.isToMany && department.inverse == "people")

        let person2 = try #require(v2.entity(named: "Person"))
        #expect(person2.attribute(named: "fullName")?.renamingIdentifier == "name")
        #expect(person2.attribute(named: "age")?.type == .integer32)
        #expect(person2.attribute(named: "nickname")?.defaultValue == .string("none"))
        #expect(v2.entity(named: "Department")?.attribute(named: "budget")?.type == .double)

        let person3 = try #require(v3.entity(named: "Person"))
        #expect(person3.attribute(named: "displayName")?.renamingIdentifier == "name")
        #expect(person3.attribute(named: "age")?.type == .integer64)
        let departments = try #require(person3.relationship(named: "departments"))
        #expect(departments.isToMany && departments.inverse == "people" && departments.renamingIdentifier == "department")
        let people = try #require(v3.entity(named: "Department")?.relationship(named: "people"))
        #expect(people.isToMany && people.inverse == "departments")

        let incompatible = try ModelVersions(contentsOf: Self.incompatible)
        #expect(incompatible.all.map(\.versionName) == ["Incompatible", "Incompatible 2"])
        #expect(incompatible.current.versionName == "Incompatible 2")
        #expect(incompatible.current.entity(named: "Person")?.attribute(named: "name")?.type == .date)
    }

    // MARK: v1 → v3

    /// Sales {Ann, Bob}, Lab {Cy}, and Dee in no department, with ages at Integer 16's ends.
    private func writeVersion1(at url: URL, _ model: ObjectModel) throws {
        let stack = try PersistentStack(storeAt: url, model: model)
        let context = stack.rootContext
        var departments: [String: ManagedObject] = [:]
        for name in ["Sales", "Lab"] {
            let department = try context.insertObject(entityName: "Department")
            try department.setValue(.string(name), forKey: "name")
            departments[name] = department
        }
        let rows: [(Int64, String, Int64, String?)] = [
            (1, "Ann", 31, "Sales"), (2, "Bob", Int64(Int16.max), "Sales"), (3, "Cy", 27, "Lab"), (4, "Dee", Int64(Int16.min), nil),
        ]
        for (id, name, age, department) in rows {
            let person = try context.insertObject(entityName: "Person")
            try person.setValue(.integer(id), forKey: "personID")
            try person.setValue(.string(name), forKey: "name")
            try person.setValue(.integer(age), forKey: "age")
            try person.setRelatedObject(department.flatMap { departments[$0] }, forKey: "department")
        }
        try context.save()
        try stack.close()
    }

    @Test func aVersion1StoreMigratesThroughVersion2ToVersion3InOneStep() throws {
        let versions = try ModelVersions(contentsOf: Self.migrating)
        try withStoreFolder { folder in
            let url = folder.appendingPathComponent("people.store")
            try writeVersion1(at: url, versions.all[0])

            // The plan names the chain's changes against the stored v1 model.
            let plan = try StoreMigration.plan(storeAt: url, to: versions)
            #expect(plan.isPossible, "\(plan)")
            #expect(plan.source.versionName == "Migrating" && plan.target.versionName == "Migrating 3")
            let steps = plan.steps.map(\.description)
            #expect(steps.contains("Person.displayName: renamed from name: slot kept, nothing rewritten"), "\(plan)")
            #expect(steps.contains { $0.hasPrefix("Person.departments: renamed from department") }, "\(plan)")
            #expect(steps.contains { $0.hasPrefix("Person.departments: changed from to-one to to-many") }, "\(plan)")
            #expect(steps.contains { $0.hasPrefix("Person.age: type changed from Integer 16 to Integer 64") }, "\(plan)")

            let stack = try PersistentStack(storeAt: url, versions: versions)
            #expect(stack.model.versionName == "Migrating 3")
            #expect(stack.model.versionHash == versions.current.versionHash)
            #expect(stack.model.entity(named: "Person")?.attribute(named: "age")?.type == .integer64)
            #expect(stack.modelHistory?.versions.all.map(\.versionName) == ["Migrating"])

            let people = try people(stack)
            #expect(people.count == 4)
            #expect(try people.map { try $0.attributeValue(forKey: "personID") } == [1, 2, 3, 4].map { .integer($0) })
            #expect(try people.map { try $0.attributeValue(forKey: "displayName") } == ["Ann", "Bob", "Cy", "Dee"].map { .string($0) })
            #expect(try people.map { try $0.attributeValue(forKey: "age") } == [31, Int64(Int16.max), 27, Int64(Int16.min)].map { .integer($0) })
            #expect(try people.map { try $0.attributeValue(forKey: "nickname") } == [AttributeValue](repeating: .string("none"), count: 4))
            #expect(try people.map { try names($0.relatedObjects(forKey: "departments"), "name") } == [["Sales"], ["Sales"], ["Lab"], []])

            let departments = try departments(stack)
            #expect(try names(departments, "name") == ["Lab", "Sales"])
            #expect(try departments.map { try names($0.relatedObjects(forKey: "people"), "displayName") } == [["Cy"], ["Ann", "Bob"]])
            #expect(try departments.map { try $0.attributeValue(forKey: "budget") } == [.null, .null])

            // Fetches and counts on the migrated store: by the renamed attribute, by the
            // widened one, through the key's index, and across the new to-many.
            #expect(try count(stack, "Person") == 4)
            #expect(try count(stack, "Department") == 2)
            #expect(try count(stack, "Person", "displayName == 'Bob'") == 1)
            #expect(try count(stack, "Person", "age > 30") == 2)
            #expect(try count(stack, "Person", "personID == 3") == 1)
            #expect(try count(stack, "Person", "nickname == 'none'") == 4)
            #expect(try count(stack, "Person", "ANY departments.name == 'Sales'") == 2)
            #expect(try count(stack, "Department", "ANY people.displayName == 'Cy'") == 1)
            #expect(try names(try self.people(stack, sortedBy: "displayName"), "displayName") == ["Ann", "Bob", "Cy", "Dee"])
            #expect(try stack.rootContext.fetch(FetchRequest(entityName: "Person", sortKeys: [SortKey("age", ascending: false)]))
                .map { try $0.attributeValue(forKey: "displayName") } == ["Bob", "Ann", "Cy", "Dee"].map { .string($0) })

            // The migrated store takes v3's values: an age beyond Integer 32, a second
            // department for Ann (many-to-many), a budget.
            let ann = people[0]
            try ann.setValue(.integer(5_000_000_000), forKey: "age")
            try ann.addRelatedObject(departments[0], forKey: "departments")
            try departments[1].setValue(.double(1_250.5), forKey: "budget")
            try stack.rootContext.save()
            try stack.close()

            // Reopened at v3: nothing more to migrate, the history unchanged, the new values kept.
            let reopened = try PersistentStack(storeAt: url, versions: versions)
            #expect(reopened.modelHistory?.versions.all.map(\.versionName) == ["Migrating"])
            let again = try self.people(reopened)
            #expect(try again[0].attributeValue(forKey: "age") == .integer(5_000_000_000))
            #expect(try names(again[0].relatedObjects(forKey: "departments"), "name") == ["Lab", "Sales"])
            let lab = try self.departments(reopened)[0]
            #expect(try names(lab.relatedObjects(forKey: "people"), "displayName") == ["Ann", "Cy"])
            #expect(try self.departments(reopened)[1].attributeValue(forKey: "budget") == .double(1_250.5))
            #expect(try count(reopened, "Person", "age > 4000000000") == 1)
            try reopened.close()
        }
    }

    // MARK: v2 → v3

    @Test func aVersion2StoreMigratesToVersion3() throws {
        let versions = try ModelVersions(contentsOf: Self.migrating)
        try withStoreFolder { folder in
            let url = folder.appendingPathComponent("people.store")
            let writer = try PersistentStack(storeAt: url, model: versions.all[1])
            let context = writer.rootContext
            let sales = try context.insertObject(entityName: "Department")
            try sales.setValue(.string("Sales"), forKey: "name")
            try sales.setValue(.double(99.5), forKey: "budget")
            let lab = try context.insertObject(entityName: "Department")
            try lab.setValue(.string("Lab"), forKey: "name")
            let rows: [(Int64, String, Int64, String?, ManagedObject?)] = [
                (1, "Ann Smith", 31, "Annie", sales), (2, "Bob Jones", Int64(Int32.max), nil, lab), (3, "Cy Lee", Int64(Int32.min), nil, nil),
            ]
            for (id, name, age, nickname, department) in rows {
                let person = try context.insertObject(entityName: "Person")
                try person.setValue(.integer(id), forKey: "personID")
                try person.setValue(.string(name), forKey: "fullName")
                try person.setValue(.integer(age), forKey: "age")
                if let nickname { try person.setValue(.string(nickname), forKey: "nickname") }
                try person.setRelatedObject(department, forKey: "department")
            }
            try context.save()
            try writer.close()

            let stack = try PersistentStack(storeAt: url, versions: versions)
            #expect(stack.model.versionName == "Migrating 3")
            #expect(stack.modelHistory?.versions.all.map(\.versionName) == ["Migrating 2"])
            let people = try people(stack)
            #expect(try people.map { try $0.attributeValue(forKey: "displayName") } == ["Ann Smith", "Bob Jones", "Cy Lee"].map { .string($0) })
            #expect(try people.map { try $0.attributeValue(forKey: "age") } == [31, Int64(Int32.max), Int64(Int32.min)].map { .integer($0) })
            #expect(try people.map { try $0.attributeValue(forKey: "nickname") } == ["Annie", "none", "none"].map { .string($0) })
            #expect(try people.map { try names($0.relatedObjects(forKey: "departments"), "name") } == [["Sales"], ["Lab"], []])
            let departments = try departments(stack)
            #expect(try departments.map { try $0.attributeValue(forKey: "budget") } == [.null, .double(99.5)])
            #expect(try departments.map { try names($0.relatedObjects(forKey: "people"), "displayName") } == [["Bob Jones"], ["Ann Smith"]])
            #expect(try count(stack, "Person", "displayName BEGINSWITH 'Bob'") == 1)
            #expect(try count(stack, "Person", "nickname == 'Annie'") == 1)
            #expect(try count(stack, "Person", "ANY departments.budget > 50") == 1)
            try stack.close()
        }
    }

    // MARK: Refused

    @Test func anIncompatibleVersionIsRefusedNamingTheAttributeAndTheStoreIsLeftByteForByte() throws {
        let versions = try ModelVersions(contentsOf: Self.incompatible)
        try withStoreFolder { folder in
            let url = folder.appendingPathComponent("people.store")
            let writer = try PersistentStack(storeAt: url, model: versions.all[0])
            for (id, name) in [(1, "Ann"), (2, "Bob")] {
                let person = try writer.rootContext.insertObject(entityName: "Person")
                try person.setValue(.integer(Int64(id)), forKey: "personID")
                try person.setValue(.string(name), forKey: "name")
            }
            try writer.rootContext.save()
            try writer.close()

            let before = try snapshot(of: folder)
            #expect(before[url.lastPathComponent].map { !$0.isEmpty } == true)
            let result = Result { () throws(MagicalRecordError) in try PersistentStack(storeAt: url, versions: versions) }
            guard case .failure(.migrationRefused(let path, let incompatibilities)) = result else {
                Issue.record("expected a refused migration, got \(result)")
                return
            }
            #expect(path == url.path)
            #expect(incompatibilities.count == 1, "\(incompatibilities)")
            #expect(incompatibilities.contains { $0.hasPrefix("Person.name: type changed from String to Date") }, "\(incompatibilities)")
            #expect(try snapshot(of: folder) == before)

            // The explicit migration refuses alike, and its plan lists the same change.
            let plan = try StoreMigration.plan(storeAt: url, to: versions)
            #expect(!plan.isPossible)
            #expect(plan.incompatibilities.map(\.subject) == ["Person.name"])
            let explicit = Result { () throws(MagicalRecordError) in try StoreMigration.migrate(storeAt: url, to: versions) }
            guard case .failure(.migrationRefused(_, let again)) = explicit else {
                Issue.record("expected a refused migration, got \(explicit)")
                return
            }
            #expect(again == incompatibilities)
            #expect(try snapshot(of: folder) == before)

            // The store still opens with its own model and holds its data.
            let reopened = try PersistentStack(storeAt: url)
            #expect(reopened.model.versionHash == versions.all[0].versionHash)
            #expect(reopened.modelHistory == nil)
            #expect(try people(reopened).map { try $0.attributeValue(forKey: "name") } == [.string("Ann"), .string("Bob")])
            try reopened.close()
        }
    }
}

import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// What changed between two models (Spec/MODEL.md, section 4).
@Suite struct ModelDifferenceTests {
    static func differences(_ entities: [EntityDescription], from old: [EntityDescription] = ModelFingerprintTests.base) throws -> [String] {
        try ObjectModel(entities: entities).differences(from: ObjectModel(entities: old)).map(\.description)
    }

    @Test func aModelDoesNotDifferFromItself() throws {
        #expect(try Self.differences(ModelFingerprintTests.base).isEmpty)
    }

    /// M24: what the hash leaves out is not a difference either.
    @Test(arguments: ModelFingerprintTests.cosmeticChanges.keys)
    func cosmeticChangesAreNotListed(change: String) throws {
        #expect(try Self.differences(ModelFingerprintTests.cosmeticChanges[change]!).isEmpty)
    }

    @Test(arguments: ModelFingerprintTests.storageChanges.keys)
    func everyStorageChangeIsListed(change: String) throws {
        #expect(try !Self.differences(ModelFingerprintTests.storageChanges[change]!).isEmpty)
    }

    static let expected: [String: ([EntityDescription], [String])] = [
        "entity renamed": (ModelFingerprintTests.changed { $0[3].name = "Boss" }, ["entity Boss added", "entity Manager removed"]),
        "attribute type, inherited by Manager": (ModelFingerprintTests.changed { $0[2].attributes[2].type = .integer32 },
         ["Person.age: type changed from Integer 16 to Integer 32"]),
        "optionality and indexing": (ModelFingerprintTests.changed { $0[2].attributes[1].isOptional = false; $0[2].attributes[1].isIndexed = false },
         ["Person.lastName: now required", "Person.lastName: no longer indexed"]),
        "explicit key": (ModelFingerprintTests.changed { $0[1].userInfo[UserInfoKey.relatedByAttribute] = "budget" },
         ["Department: key changed from code to budget"]),
        "inverse removed on both sides": (ModelFingerprintTests.changed { $0[1].relationships[0].inverse = nil; $0[2].relationships[0].inverse = nil },
         ["Department.people: inverse changed from department to none", "Person.department: inverse changed from people to none"]),
        "parent changed": (ModelFingerprintTests.changed { $0[3].parent = "Thing" }, [
            "Manager: parent changed from Person to Thing",
            "Manager.age: attribute removed (was Integer 16)",
            "Manager.lastName: attribute removed (was String)",
            "Manager.personID: attribute removed (was Integer 64)",
            "Manager.department: relationship removed (was to-one to Department)",
        ]),
        "attribute moved to the parent": (ModelFingerprintTests.changed { $0[0].attributes.append($0[2].attributes.removeLast()) },
         ["Thing.age: attribute added (Integer 16)"]),
        "abstraction": (ModelFingerprintTests.changed { $0[0].isAbstract = false; $0[3].isAbstract = true },
         ["Manager: now abstract", "Thing: no longer abstract"]),
        "relationship shape": (ModelFingerprintTests.changed {
            $0[3].relationships[0].isOrdered = false
            $0[3].relationships[0].destination = "Manager"
            $0[2].relationships[0].isOptional = false
        }, [
            "Manager.reports: destination changed from Person to Manager",
            "Manager.reports: changed from ordered to-many to to-many",
            "Person.department: now required",
        ]),
        "relationship renamed": (ModelFingerprintTests.changed { $0[3].relationships[0].name = "team" },
         ["Manager.reports: relationship removed (was ordered to-many to Person)", "Manager.team: relationship added (ordered to-many to Person)"]),
    ]

    /// M25, M26.
    @Test(arguments: expected.keys)
    func changesAreDescribedInOrder(change: String) throws {
        let (entities, descriptions) = Self.expected[change]!
        #expect(try Self.differences(entities) == descriptions)
    }

    @Test func aChangeIsTyped() throws {
        let changed = ModelFingerprintTests.changed { $0[2].attributes[2].type = .string; $0[2].attributes[2].defaultValue = .null }
        let changes = try ObjectModel(entities: changed).differences(from: ObjectModel(entities: ModelFingerprintTests.base))
        #expect(changes == [ModelChange(entity: "Person", property: "age", .attributeTypeChanged(from: .integer16, to: .string))])
        #expect(changes.map(\.description) == ["Person.age: type changed from Integer 16 to String"])
    }

    @Test func theVersionedFixturesDifferences() throws {
        let versions = try ModelVersions(contentsOf: ModelFixtures.versioned)
        let changes = versions.all[1].differences(from: versions.all[0]).map(\.description)
        #expect(changes == [
            "Author.authorID: now indexed",
            "Author.birthDate: attribute added (Date)",
            "Author.born: attribute removed (was Date)",
            "Author.books: destination changed from Book to Work",
            "entity Book removed",
            "entity Defaults added",
            "entity Tag added",
            "entity Work added",
        ])
    }

    /// M24 over random models, each changed in up to two random ways: two models differ
    /// exactly when their hashes do, and the changes one way match those the other way in
    /// number.
    @Test func differencesAreEmptyExactlyWhenHashesAreEqual() throws {
        var outcomes = (same: 0, different: 0)
        for seed in UInt64(0)..<300 {
            var random = RandomModels(seed: 5000 + seed)
            let old = random.declarations()
            var new = old
            var generator = SplitMix64(seed: seed)
            for _ in 0..<Int.random(in: 0...2, using: &generator) {
                Self.mutate(&new, using: &generator, random: &random)
            }
            // A change may make the model invalid (a to-many inverse of a to-many, say).
            guard let oldModel = try? ObjectModel(entities: old), let newModel = try? ObjectModel(entities: new) else { continue }
            let forward = newModel.differences(from: oldModel)
            let backward = oldModel.differences(from: newModel)
            #expect(forward.isEmpty == (newModel.versionHash == oldModel.versionHash), "seed \(seed): \(forward)")
            #expect(forward.count == backward.count, "seed \(seed)")
            if forward.isEmpty { outcomes.same += 1 } else { outcomes.different += 1 }
        }
        #expect(outcomes.same > 50 && outcomes.different > 50, "both sides are exercised: \(outcomes)")
    }

    /// One random change, storage-relevant or cosmetic.
    private static func mutate(_ entities: inout [EntityDescription], using generator: inout SplitMix64, random: inout RandomModels) {
        let entity = Int.random(in: 0..<entities.count, using: &generator)
        let attributeCount = entities[entity].attributes.count
        let relationshipCount = entities[entity].relationships.count
        let attribute = attributeCount > 0 ? Int.random(in: 0..<attributeCount, using: &generator) : nil
        let relationship = relationshipCount > 0 ? Int.random(in: 0..<relationshipCount, using: &generator) : nil
        switch Int.random(in: 0..<12, using: &generator) {
        case 0: entities[entity].isAbstract.toggle()
        case 1: entities[entity].userInfo["note"] = "cosmetic"
        case 2: entities[entity].className = "Renamed"
        case 3: entities[entity].attributes.append(random.attribute(named: "added\(entity)"))
        case 4:
            guard let attribute else { return }
            entities[entity].attributes[attribute].isOptional.toggle()
        case 5:
            guard let attribute else { return }
            entities[entity].attributes[attribute].isIndexed.toggle()
        case 6:
            guard let attribute else { return }
            entities[entity].attributes[attribute].type = .string
            entities[entity].attributes[attribute].defaultValue = .null
        case 7:
            guard let attribute else { return }
            entities[entity].attributes[attribute].defaultValue = random.value(of: entities[entity].attributes[attribute].type)
        case 8:
            guard let attribute else { return }
            entities[entity].userInfo[UserInfoKey.relatedByAttribute] = entities[entity].attributes[attribute].name
        case 9:
            guard let relationship else { return }
            entities[entity].relationships[relationship].isToMany.toggle()
        case 10:
            guard let relationship else { return }
            entities[entity].relationships[relationship].deleteRule = .cascade
        default:
            guard let relationship else { return }
            entities[entity].relationships[relationship].isOptional.toggle()
        }
    }
}

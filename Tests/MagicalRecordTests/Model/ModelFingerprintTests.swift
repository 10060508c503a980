import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// The version hash (Spec/MODEL.md, section 3): what changes it and what does not.
@Suite struct ModelFingerprintTests {
    /// M18: a model touching every hashed thing: inheritance, an abstract entity, keys explicit
    /// and conventional, indexes, to-one, to-many and ordered to-many, inverses.
    static let base: [EntityDescription] = [
        EntityDescription("Thing", abstract: true) {
            AttributeDescription("createdAt", .date)
        },
        EntityDescription("Department", relatedBy: "code") {
            AttributeDescription("code", .string, optional: false)
            AttributeDescription("budget", .decimal, default: .decimal(0))
            RelationshipDescription("people", to: "Person", inverse: "department", toMany: true, deleteRule: .deny)
        },
        EntityDescription("Person", parent: "Thing") {
            AttributeDescription("personID", .integer64, optional: false)
            AttributeDescription("lastName", .string, indexed: true, userInfo: [UserInfoKey.mappedKeyName: "last_name"])
            AttributeDescription("age", .integer16, default: .integer(0))
            RelationshipDescription("department", to: "Department", inverse: "people")
        },
        EntityDescription("Manager", parent: "Person") {
            RelationshipDescription("reports", to: "Person", toMany: true, ordered: true)
        },
    ]

    static func hash(_ entities: [EntityDescription]) throws -> String {
        try ObjectModel(entities: entities).versionHash
    }

    static func changed(_ change: (inout [EntityDescription]) -> Void) -> [EntityDescription] {
        var entities = base
        change(&entities)
        return entities
    }

    // MARK: The algorithm

    /// M22: FNV-1a 128's published test vectors.
    @Test func fnv1a128MatchesItsTestVectors() {
        for (input, expected) in [
            ("", "6c62272e07bb014262b821756295c58d"),
            ("a", "d228cb696f1a8caf78912b704e4a8964"),
            ("foobar", "343e1662793c64bf6f0d3597ba446f18"),
        ] {
            var hash = FNV1a128()
            hash.add(input.utf8)
            #expect(hash.hex == expected, "\"\(input)\"")
        }
    }

    /// M21: the canonical bytes of a one-entity model, byte by byte.
    @Test func theCanonicalBytesAreAsSpecified() throws {
        let model = try ObjectModel(entities: [EntityDescription("A") { AttributeDescription("x", .string) }])
        func string(_ text: String) -> [UInt8] { [UInt8(text.utf8.count), 0, 0, 0] + Array(text.utf8) }
        let expected: [UInt8] = string("MagicalRecord model hash 1")
            + [1, 0, 0, 0] + string("A") + [0] + [0] + [0]
            + [1, 0, 0, 0] + string("x") + string("String") + [1] + [0]
            + [0, 0, 0, 0]
        #expect(ModelFingerprint.canonicalBytes(of: model) == expected)
    }

    /// M23: these never change. If one does, every store's recorded hash goes stale. The
    /// first two were also computed by an independent script written from the spec alone.
    @Test func fixedModelsHaveFixedHashes() throws {
        let versioned = try ModelVersions(contentsOf: ModelFixtures.versioned)
        let hashes = [try Self.hash(Self.base), try Self.hash([]), versioned.all[0].versionHash, versioned.all[1].versionHash]
        #expect(hashes == [
            "cee20a24feca2217f7f922833524a67d",
            "9be3347ddb66a330b18063adccb5842e",
            "ace9df1540ab1ebf310efce56ff9bc8a",
            "3e22c80807a30dfee47c6b263032333f",
        ])
    }

    @Test(arguments: 0..<20)
    func declarationOrderDoesNotCount(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var entities = Self.base.shuffled(using: &random)
        for index in entities.indices {
            entities[index].attributes.shuffle(using: &random)
            entities[index].relationships.shuffle(using: &random)
        }
        #expect(try Self.hash(entities) == Self.hash(Self.base))
    }

    // MARK: What counts

    static let storageChanges: [String: [EntityDescription]] = [
        "entity renamed": changed { $0[3].name = "Boss" },
        "entity added": changed { $0.append(EntityDescription("Room")) },
        "entity removed": changed { $0.removeLast() },
        "parent changed": changed { $0[3].parent = "Thing" },
        "parent removed": changed { $0[2].parent = nil },
        "abstract entity made concrete": changed { $0[0].isAbstract = false },
        "concrete entity made abstract": changed { $0[3].isAbstract = true },
        "attribute renamed": changed { $0[2].attributes[2].name = "years" },
        "attribute type": changed { $0[2].attributes[2].type = .integer32 },
        "attribute made required": changed { $0[2].attributes[1].isOptional = false },
        "attribute indexed": changed { $0[2].attributes[2].isIndexed = true },
        "attribute no longer indexed": changed { $0[2].attributes[1].isIndexed = false },
        "attribute added": changed { $0[1].attributes.append(AttributeDescription("floor", .integer16)) },
        "attribute removed": changed { $0[1].attributes.removeLast() },
        "inherited attribute type": changed { $0[0].attributes[0].type = .double },
        "attribute moved to the parent": changed { $0[0].attributes.append($0[2].attributes.removeLast()) },
        "explicit key": changed { $0[1].userInfo[UserInfoKey.relatedByAttribute] = "budget" },
        "explicit key removed": changed { $0[1].userInfo = [:] },
        "conventional key appears": changed { $0[1].attributes.append(AttributeDescription("departmentID", .integer32)); $0[1].userInfo = [:] },
        "relationship renamed": changed { $0[3].relationships[0].name = "team" },
        "destination": changed { $0[3].relationships[0].destination = "Manager" },
        "inverse removed": changed { $0[1].relationships[0].inverse = nil; $0[2].relationships[0].inverse = nil },
        "to-one made to-many": changed { $0[3].relationships[0].isOrdered = false; $0[3].relationships[0].isToMany = false },
        "ordered": changed { $0[1].relationships[0].isOrdered = true },
        "relationship made required": changed { $0[2].relationships[0].isOptional = false },
        "relationship added": changed { $0[0].relationships.append(RelationshipDescription("owner", to: "Person")) },
    ]

    @Test(arguments: storageChanges.keys)
    func whatDecidesStorageChangesTheHash(change: String) throws {
        #expect(try Self.hash(Self.storageChanges[change]!) != Self.hash(Self.base))
    }

    // MARK: What does not count (M19)

    static let cosmeticChanges: [String: [EntityDescription]] = [
        "attribute user info": changed { $0[2].attributes[1].userInfo = [UserInfoKey.mappedKeyName: "surname"] },
        "entity user info": changed { $0[2].userInfo["note"] = "people" },
        "relationship user info": changed { $0[2].relationships[0].userInfo[UserInfoKey.relatedByAttribute] = "code" },
        "default value": changed { $0[2].attributes[2].defaultValue = .integer(18) },
        "default removed": changed { $0[1].attributes[1].defaultValue = .null },
        "delete rule": changed { $0[1].relationships[0].deleteRule = .cascade },
        "count bounds": changed { $0[1].relationships[0].minCount = 1; $0[1].relationships[0].maxCount = 50 },
        "entity renaming identifier": changed { $0[2].renamingIdentifier = "Employee" },
        "attribute renaming identifier": changed { $0[2].attributes[1].renamingIdentifier = "surname" },
        "relationship renaming identifier": changed { $0[2].relationships[0].renamingIdentifier = "dept" },
        "class name": changed { $0[2].className = "PersonObject" },
        "ordered flag on a to-one": changed { $0[2].relationships[0].isOrdered = true },
    ]

    @Test(arguments: cosmeticChanges.keys)
    func whatDoesNotDecideStorageLeavesTheHash(change: String) throws {
        #expect(try Self.hash(Self.cosmeticChanges[change]!) == Self.hash(Self.base))
    }

    /// The key counts, not how it was chosen.
    @Test func namingTheConventionalKeyExplicitlyLeavesTheHash() throws {
        let conventional = Self.changed { $0[1].attributes.append(AttributeDescription("departmentID", .integer32)); $0[1].userInfo = [:] }
        var explicit = conventional
        explicit[1].userInfo[UserInfoKey.relatedByAttribute] = "departmentID"
        #expect(try ObjectModel(entities: conventional).entity(named: "Department")?.keyAttribute == "departmentID")
        #expect(try Self.hash(explicit) == Self.hash(conventional))
    }

    @Test func theVersionNameDoesNotCount() throws {
        #expect(try ObjectModel(entities: Self.base, versionName: "V7").versionHash == Self.hash(Self.base))
    }

    @Test func theHashIsThirtyTwoLowerCaseHexDigits() throws {
        let hash = try Self.hash(Self.base)
        #expect(hash.count == 32)
        #expect(hash.allSatisfy { "0123456789abcdef".contains($0) })
    }
}

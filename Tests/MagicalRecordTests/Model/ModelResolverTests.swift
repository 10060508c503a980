import Foundation
import Testing
@testable import MagicalRecord

/// Declaring models in Swift, and what the resolver checks and derives: inheritance,
/// inverses, keys (ModelResolver.swift).
@Suite struct ModelResolverTests {
    // MARK: The Swift builder

    @Test func theBuilderSortsMembersAndRecordsTheKey() {
        let includeAge = true
        let person = EntityDescription("Person", relatedBy: "personID", userInfo: ["note": "n"]) {
            AttributeDescription("personID", .integer64, optional: false)
            RelationshipDescription("department", to: "Department", inverse: "people")
            AttributeDescription("lastName", .string, indexed: true)
            if includeAge {
                AttributeDescription("age", .integer16, default: .integer(0))
            } else {
                AttributeDescription("birthYear", .integer16)
            }
            for tag in ["a", "b"] {
                AttributeDescription("tag_\(tag)", .string)
            }
        }
        #expect(person.attributes.map(\.name) == ["personID", "lastName", "age", "tag_a", "tag_b"])
        #expect(person.relationships.map(\.name) == ["department"])
        #expect(person.userInfo == ["note": "n", UserInfoKey.relatedByAttribute: "personID"])
        #expect(person == EntityDescription(
            "Person",
            attributes: [
                AttributeDescription("personID", .integer64, optional: false),
                AttributeDescription("lastName", .string, indexed: true),
                AttributeDescription("age", .integer16, default: .integer(0)),
                AttributeDescription("tag_a", .string),
                AttributeDescription("tag_b", .string),
            ],
            relationships: [RelationshipDescription("department", to: "Department", inverse: "people")],
            userInfo: ["note": "n", UserInfoKey.relatedByAttribute: "personID"]
        ))
    }

    @Test func anEntityResolvesItsAncestorsInheritedPropertiesAndSlots() throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Root", abstract: true) {
                AttributeDescription("createdAt", .date)
                RelationshipDescription("owner", to: "Owner", inverse: "things")
            },
            EntityDescription("Middle", parent: "Root", abstract: true) { AttributeDescription("title", .string, indexed: true) },
            EntityDescription("Leaf", parent: "Middle") { AttributeDescription("leafID", .integer32) },
            EntityDescription("Other", parent: "Root") {},
            EntityDescription("Owner") { RelationshipDescription("things", to: "Root", inverse: "owner", toMany: true) },
        ])
        let leaf = try model.requireEntity("Leaf")
        #expect(leaf.ancestors == ["Middle", "Root"])
        #expect(leaf.root == "Root")
        #expect(leaf.attributes.map(\.name) == ["createdAt", "title", "leafID"])
        #expect(leaf.relationships.map(\.name) == ["owner"])
        #expect(leaf.slot(ofAttribute: "leafID") == 2)
        #expect(leaf.slot(ofRelationship: "owner") == 0)
        #expect(leaf.slot(ofAttribute: "nothing") == nil)
        #expect(leaf.keyAttribute == "leafID")
        #expect(leaf.indexedAttributes == ["title", "leafID"])
        #expect(leaf.isKind(of: "Root") && leaf.isKind(of: "Leaf") && !leaf.isKind(of: "Other"))
        #expect(try model.requireEntity("Root").concreteEntities == ["Leaf", "Other"])
        #expect(try model.requireEntity("Middle").concreteEntities == ["Leaf"])
        #expect(model.warnings.isEmpty)
    }

    // MARK: Keys

    @Test func anExplicitKeyWins() throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Person", relatedBy: "email") {
                AttributeDescription("personID", .integer64)
                AttributeDescription("email", .string)
            },
        ])
        #expect(model.entity(named: "Person")?.keyAttribute == "email")
        #expect(model.entity(named: "Person")?.indexedAttributes == ["email"])
    }

    @Test func withoutOneTheKeyIsTheEntityNameWithALowerCaseFirstLetterAndID() throws {
        let model = try ObjectModel(entities: [
            EntityDescription("BookShelf") { AttributeDescription("bookShelfID", .integer64) },
            EntityDescription("Person") { AttributeDescription("PersonID", .integer64) },
            EntityDescription("Tag") { AttributeDescription("id", .integer64) },
        ])
        #expect(model.entities.map(\.keyAttribute) == ["bookShelfID", nil, nil])
    }

    @Test func aSubentityInheritsItsAncestorsExplicitKeyUnlessItNamesItsOwn() throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Base", abstract: true, relatedBy: "code") { AttributeDescription("code", .string) },
            EntityDescription("Plain", parent: "Base") { AttributeDescription("plainID", .integer64) },
            EntityDescription("Own", parent: "Base", relatedBy: "ownNumber") { AttributeDescription("ownNumber", .integer64) },
        ])
        #expect(model.entities.map(\.keyAttribute) == ["code", "code", "ownNumber"])
    }

    @Test func anExplicitKeyNamingNoAttributeWarnsAndLeavesNoKey() throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Person", relatedBy: "missing") { AttributeDescription("email", .string) },
        ])
        #expect(model.entity(named: "Person")?.keyAttribute == nil)
        #expect(model.warnings == [
            "entity Person: relatedByAttribute names \"missing\", which is not one of its attributes; its objects have no key, so imports always insert them",
        ])
    }

    /// Regression test: with a wrong `relatedByAttribute` and an attribute of the
    /// conventional name, the resolver warns "no key" and keeps its word: the conventional
    /// attribute is not made the key (MagicalRecord's TestModel, MappedEntity).
    @Test func anExplicitKeyNamingNoAttributeDoesNotFallBackToTheConventionalKey() throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Mapped", relatedBy: "mapped") { AttributeDescription("mappedID", .integer16) },
        ])
        #expect(model.warnings.count == 1)
        #expect(model.entity(named: "Mapped")?.keyAttribute == nil)
    }

    // MARK: Every ModelError of the resolver

    static let invalidModels: [String: ([EntityDescription], ModelError)] = [
        "duplicate entity": ([EntityDescription("A"), EntityDescription("A")], .duplicateEntity("A")),
        "invalid entity name": ([EntityDescription("1A")], .invalidName(entity: "1A", name: "1A")),
        "empty entity name": ([EntityDescription("")], .invalidName(entity: "", name: "")),
        "unknown parent": ([EntityDescription("A", parent: "Nowhere")], .unknownParent(entity: "A", parent: "Nowhere")),
        "self parent": ([EntityDescription("A", parent: "A")], .inheritanceCycle(entity: "A")),
        "two-entity cycle": ([EntityDescription("A", parent: "B"), EntityDescription("B", parent: "A")], .inheritanceCycle(entity: "A")),
        "cycle above": ([EntityDescription("A", parent: "B"), EntityDescription("B", parent: "C"), EntityDescription("C", parent: "B")],
         .inheritanceCycle(entity: "A")),
        "duplicate attribute": ([EntityDescription("A") { AttributeDescription("x", .string); AttributeDescription("x", .integer16) }],
         .duplicateProperty(entity: "A", property: "x")),
        "attribute and relationship": ([EntityDescription("A") { AttributeDescription("x", .string); RelationshipDescription("x", to: "A") }],
         .duplicateProperty(entity: "A", property: "x")),
        "inherited duplicate": ([EntityDescription("A") { AttributeDescription("x", .string) }, EntityDescription("B", parent: "A") { AttributeDescription("x", .string) }],
         .duplicateProperty(entity: "B", property: "x")),
        "invalid property name": ([EntityDescription("A") { AttributeDescription("first-name", .string) }],
         .invalidName(entity: "A", name: "first-name")),
        "unknown destination": ([EntityDescription("A") { RelationshipDescription("r", to: "B") }],
         .unknownDestination(entity: "A", relationship: "r", destination: "B")),
        "unknown inverse": ([EntityDescription("A") { RelationshipDescription("r", to: "B", inverse: "back") }, EntityDescription("B")],
         .unknownInverse(entity: "A", relationship: "r", inverse: "back")),
        "inverse points elsewhere": ([
            EntityDescription("A") { RelationshipDescription("r", to: "B", inverse: "s") },
            EntityDescription("B") { RelationshipDescription("s", to: "C") },
            EntityDescription("C"),
        ], .inverseMismatch(entity: "A", relationship: "r", inverse: "s")),
        "inverse names another": ([
            EntityDescription("A") {
                RelationshipDescription("r", to: "B", inverse: "s")
                RelationshipDescription("q", to: "B")
            },
            EntityDescription("B") { RelationshipDescription("s", to: "A", inverse: "q") },
        ], .inverseMismatch(entity: "A", relationship: "r", inverse: "s")),
        "default of another type": ([EntityDescription("A") { AttributeDescription("x", .integer32, default: .string("1")) }],
         .defaultValueMismatch(entity: "A", attribute: "x", type: .integer32)),
        "default out of range": ([EntityDescription("A") { AttributeDescription("x", .integer16, default: .integer(40_000)) }],
         .defaultValueMismatch(entity: "A", attribute: "x", type: .integer16)),
    ]

    @Test(arguments: invalidModels.keys)
    func anInvalidModelIsRefusedWithItsError(model: String) {
        let (entities, error) = Self.invalidModels[model]!
        #expect(throws: error) { try ObjectModel(entities: entities) }
    }

    @Test func anUnknownEntityIsAnError() throws {
        let model = try ObjectModel(entities: [EntityDescription("A")])
        #expect(throws: ModelError.unknownEntity("B")) { try model.requireEntity("B") }
        #expect(model.entity(named: "B") == nil)
    }

    /// Entities are found by name in small models (searched) and large ones (hashed) alike,
    /// long names and names that differ in their last character included; an entity's
    /// indexed attributes by name, with their positions.
    @Test(arguments: [1, 8, 9, 40])
    func entitiesAndIndexedAttributesAreFoundByName(entityCount: Int) throws {
        let names = (0..<entityCount).map { "AnEntityNameLongerThanFifteenBytes\($0)" }
        let model = try ObjectModel(entities: names.map { name in
            EntityDescription(name, relatedBy: "key") {
                AttributeDescription("note", .string)
                AttributeDescription("key", .integer64)
                AttributeDescription("tag", .string, indexed: true)
            }
        })
        for name in names {
            let entity = try #require(model.entity(named: name))
            #expect(entity.name == name)
            #expect(try model.requireEntity(name) === entity)
            #expect(entity.indexedSlot(ofAttribute: "key") == 1)
            #expect(entity.indexedSlot(ofAttribute: "tag") == 2)
            #expect(entity.indexedSlot(ofAttribute: "note") == nil)
            #expect(entity.indexedSlot(ofAttribute: "missing") == nil)
        }
        #expect(model.entity(named: "AnEntityNameLongerThanFifteenBytes") == nil)
        #expect(model.entity(named: names[0] + "x") == nil)
    }

    @Test func everyErrorSaysWhatIsWrong() {
        #expect(ModelError.unknownInverse(entity: "A", relationship: "r", inverse: "back").description
            == "relationship A.r names inverse back, which its destination does not have")
        #expect(ModelError.unreadable(source: "m.json", reason: "no such file").description == "cannot read model m.json: no such file")
    }

    // MARK: What the resolver accepts

    @Test func anInverseMayPointAtAnAncestorAndMayBeOneSided() throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Item", abstract: true) { RelationshipDescription("box", to: "Box", inverse: "items") },
            EntityDescription("Pen", parent: "Item") { RelationshipDescription("chosenBy", to: "Box") },
            EntityDescription("Box") {
                RelationshipDescription("items", to: "Item", inverse: "box", toMany: true)
                RelationshipDescription("favourite", to: "Pen", inverse: "chosenBy")
            },
        ])
        #expect(model.entity(named: "Pen")?.relationship(named: "box")?.inverse == "items")
        #expect(model.entity(named: "Pen")?.relationship(named: "chosenBy")?.inverse == nil)
    }

    @Test func namesMayUseLettersOfAnyScriptDigitsAndUnderscores() throws {
        let model = try ObjectModel(entities: [EntityDescription("Époque_2") { AttributeDescription("名前", .string); AttributeDescription("_x1", .string) }])
        #expect(model.entities.map(\.name) == ["Époque_2"])
    }
}

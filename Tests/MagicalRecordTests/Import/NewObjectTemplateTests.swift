import Testing
@testable import MagicalRecord

/// A template makes the same new object as the entity's own defaults do, from storage the
/// entity does not share.
@Suite struct NewObjectTemplateTests {
    static let model = try! ObjectModel(entities: [
        EntityDescription("Note", relatedBy: "noteID") {
            AttributeDescription("noteID", .integer64, optional: false)
            AttributeDescription("title", .string, default: .string("untitled"))
            AttributeDescription("rating", .double, default: .double(2.5))
            RelationshipDescription("author", to: "Author", inverse: "notes")
            RelationshipDescription("tags", to: "Author", toMany: true)
        },
        EntityDescription("Author", relatedBy: "authorID") {
            AttributeDescription("authorID", .integer64, optional: false)
            RelationshipDescription("notes", to: "Note", inverse: "author", toMany: true)
        },
    ])

    @Test func makesTheEntitysNewObject() throws {
        let entity = try #require(Self.model.entity(named: "Note"))
        let template = NewObjectTemplate(entity)
        let id = ObjectID(entityName: template.internedName, number: 7)
        #expect(id.entityName == "Note")
        #expect(template.state(id) == ObjectState(id: id, entity: entity))
    }

    @Test func sharesNoStorageWithTheEntity() throws {
        let entity = try #require(Self.model.entity(named: "Note"))
        let state = NewObjectTemplate(entity).state(ObjectID(entityName: "Note", number: 1))
        #expect(Self.storage(of: state.attributes) != Self.storage(of: entity.defaultAttributes))
        #expect(Self.storage(of: state.relationships) != Self.storage(of: entity.emptyRelationships))
    }

    private static func storage<Elements: Collection>(of elements: Elements) -> UnsafeRawPointer? {
        elements.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
    }
}

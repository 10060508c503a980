import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// The model the import suites share (entity names of their own: the class registry is
/// process-wide):
/// - Label: key `labelID` (relatedByAttribute); `name` from `title`, else `label_name`,
///   else `meta.name`; `city` from `location.city`; `rating` set to its default when absent;
///   an ordered to-many `artists`.
/// - Artist: key by MagicalRecord's `<entity>ID` rule (`artistID`); a to-one `label`, a
///   to-many `tags` imported with the replace policy, a to-many `notes` to an entity
///   without a key.
/// - Tag: key `slug`, a String. Note: no key at all.
enum ImportModel {
    static let model: ObjectModel = {
        do {
            return try ObjectModel(entities: [
                EntityDescription("Label", relatedBy: "labelID") {
                    AttributeDescription("labelID", .integer32, optional: false)
                    AttributeDescription("name", .string, userInfo: [
                        "mappedKeyName": "title", "mappedKeyName.1": "label_name", "mappedKeyName.2": "meta.name",
                    ])
                    AttributeDescription("city", .string, userInfo: ["mappedKeyName": "location.city"])
                    AttributeDescription("founded", .date)
                    AttributeDescription("rating", .double, default: .double(5), userInfo: ["useDefaultValueWhenNotPresent": "YES"])
                    AttributeDescription("motto", .string, default: .string("none"))
                    RelationshipDescription("artists", to: "Artist", inverse: "label", toMany: true, ordered: true)
                },
                EntityDescription("Artist") {
                    AttributeDescription("artistID", .integer64, optional: false)
                    AttributeDescription("name", .string)
                    AttributeDescription("active", .boolean)
                    RelationshipDescription("label", to: "Label", inverse: "artists")
                    RelationshipDescription("tags", to: "Tag", toMany: true, userInfo: ["relationshipImportPolicy": "replace"])
                    RelationshipDescription("notes", to: "Note", toMany: true)
                },
                EntityDescription("Tag", relatedBy: "slug") {
                    AttributeDescription("slug", .string, optional: false)
                    AttributeDescription("weight", .integer16)
                },
                EntityDescription("Note") {
                    AttributeDescription("text", .string)
                },
            ])
        } catch {
            fatalError("the import test model does not resolve: \(error)")
        }
    }()
}

/// An in-memory store with its root and main contexts.
struct ImportStack {
    let root: ManagedObjectContext
    let main: ManagedObjectContext

    init(model: ObjectModel = ImportModel.model) throws {
        let options = StoreOptions(durability: .none, fileSystem: MemoryFileSystem(tracksDurability: false))
        let store = try ObjectStore(path: "/import.store", model: model, options: options)
        (root, main) = ObjectStack(store: store).makeContexts()
    }

    /// Imports JSON text into the main context.
    @discardableResult
    func importJSON(_ text: String, into entity: String, options: ImportOptions = ImportOptions()) throws(MagicalRecordError) -> ImportResult {
        try main.importRecords(from: Data(text.utf8), entityName: entity, options: options)
    }

    /// The only object of `entity` whose `attribute` is `value`, as `context` sees it.
    func object(_ entity: String, _ attribute: String, _ value: AttributeValue, in context: ManagedObjectContext? = nil) throws -> ManagedObject {
        let objects = try (context ?? main).fetch(FetchRequest(entityName: entity)).filter { $0[attribute] == value }
        try #require(objects.count == 1, "\(objects.count) objects of \(entity) with \(attribute) = \(value)")
        return objects[0]
    }

    func count(_ entity: String, in context: ManagedObjectContext? = nil) throws -> Int {
        try (context ?? main).count(for: FetchRequest(entityName: entity))
    }

    /// Everything `context` sees, as text: every object of every entity with its
    /// attributes and its relationships' targets, in a stable order. Two dumps are equal
    /// exactly when the contents are.
    func dump(_ context: ManagedObjectContext? = nil) throws -> String {
        let context = context ?? main
        var lines: [String] = []
        for entity in ImportModel.model.entities {
            let objects = try context.fetch(FetchRequest(entityName: entity.name))
            var rendered: [String] = []
            for object in objects {
                var fields = entity.attributes.map { "\($0.name)=\(object[$0.name])" }
                for relationship in entity.relationships {
                    let targets = relationship.isToMany
                        ? try object.relatedObjects(forKey: relationship.name)
                        : [try object.relatedObject(forKey: relationship.name)].compactMap { $0 }
                    fields.append("\(relationship.name)->[\(targets.map(\.objectID.uriRepresentation).joined(separator: ","))]")
                }
                rendered.append("\(object.objectID.uriRepresentation) " + fields.joined(separator: " "))
            }
            lines += rendered.sorted()
        }
        return lines.joined(separator: "\n")
    }
}

/// The import error an import threw, or nil when it succeeded (recorded as an issue).
func importFailure(_ body: () throws(MagicalRecordError) -> Void) -> ImportError? {
    do {
        try body()
    } catch {
        guard case .importFailed(let failure) = error else {
            Issue.record("expected an import failure, got \(error)")
            return nil
        }
        return failure
    }
    Issue.record("the import succeeded")
    return nil
}

import Foundation
import MagicalStore
@testable import MagicalRecord

/// Shared by the libFuzzer target (Fuzz/) and the corpus replay in `make test`.
///
/// Differential: arbitrary bytes imported as JSON records with `commitsEachBatch` into two
/// copies of one store, once on the path without objects (Spec/IMPORT.md I27) and once on
/// the object path only, with options picked by the first byte. Both must end the same
/// way (the same result, or the same error) and leave the same store.
func fuzzDirectImport(_ input: UnsafeRawBufferPointer) {
    guard let flags = input.first else { return }
    var options = ImportOptions(
        nullAsAbsent: flags & 1 != 0, skipInvalid: flags & 2 != 0, insertsRecordsWithoutKey: flags & 4 != 0,
        batchSize: Int(flags >> 3) + 1, commitsEachBatch: true
    )
    let json = Data(input.dropFirst())
    do {
        let direct = try directImportOutcome(json, options)
        options.importsWithoutObjects = false
        let objects = try directImportOutcome(json, options)
        precondition(direct.result == objects.result, "the paths ended differently: \(direct.result) / \(objects.result)")
        precondition(direct.store == objects.store, "the paths left different stores")
    } catch {
        preconditionFailure("unexpected error: \(error)")
    }
}

/// How one import ended, as text (ids left out: the object path spends a number on a
/// record it then skips), and the store it left.
private func directImportOutcome(_ json: Data, _ options: ImportOptions) throws -> (result: String, store: [KeyedDump]) {
    let fileSystem = MemoryFileSystem(tracksDurability: false)
    fileSystem.setContents(directStoreBytes, of: directStorePath)
    let store = try ObjectStore(path: directStorePath, model: directModel, options: directStoreOptions(fileSystem))
    let (root, _) = ObjectStack(store: store).makeContexts()
    let result: String
    do {
        let imported = try root.importRecords(from: json, entityName: "Staff", options: options)
        result = "\(imported.recordsRead) \(imported.created) \(imported.updated) \(imported.unchanged) \(imported.skipped.map(\.description))"
    } catch {
        result = withoutObjectNumbers("\(error)")
    }
    precondition(!root.hasChanges, "an import committing each batch left unsaved changes")
    return (result, try keyedDump(root))
}

/// `text` with every object id's number replaced by `#`.
private func withoutObjectNumbers(_ text: String) -> String {
    var output = ""
    var rest = Substring(text)
    while let range = rest.range(of: "/p") {
        output += rest[..<range.upperBound] + "#"
        rest = rest[range.upperBound...].drop { $0.isNumber }
    }
    return output + rest
}

/// One object by its key: its values and its relationships' targets' keys.
private struct KeyedDump: Equatable {
    let entity: String
    let attributes: [AttributeValue]
    let targets: [[AttributeValue]]
}

/// Every stored object, ordered by entity and key.
private func keyedDump(_ context: ManagedObjectContext) throws -> [KeyedDump] {
    var objects: [KeyedDump] = []
    for entity in directModel.entities {
        for object in try context.fetch(FetchRequest(entityName: entity.name)) {
            let targets = try entity.relationships.map { relationship in
                let related = relationship.isToMany
                    ? try object.relatedObjects(forKey: relationship.name)
                    : [try object.relatedObject(forKey: relationship.name)].compactMap { $0 }
                return related.map { $0[$0.entity.keyAttribute ?? ""] }.sorted { AttributeValue.compare($0, $1) == .orderedAscending }
            }
            objects.append(KeyedDump(entity: entity.name, attributes: entity.attributes.map { object[$0.name] }, targets: targets))
        }
    }
    return objects.sorted {
        ($0.entity, $0.attributes.first.map { "\($0)" } ?? "") < ($1.entity, $1.attributes.first.map { "\($0)" } ?? "")
    }
}

/// Staff with a department (an unordered inverse), a mentor (no inverse), a to-many of
/// badges (object path only) and a keyed pet (a one-to-one inverse: object path only).
private let directModel: ObjectModel = {
    do {
        return try ObjectModel(entities: [
            EntityDescription("Dept", relatedBy: "deptID") {
                AttributeDescription("deptID", .integer32, optional: false)
                AttributeDescription("title", .string)
                RelationshipDescription("staff", to: "Staff", inverse: "dept", toMany: true)
            },
            EntityDescription("Staff", relatedBy: "staffID") {
                AttributeDescription("staffID", .integer64, optional: false)
                AttributeDescription("name", .string, userInfo: ["mappedKeyName": "name", "mappedKeyName.1": "info.name"])
                AttributeDescription("age", .integer16, default: .integer(18), userInfo: ["useDefaultValueWhenNotPresent": "YES"])
                AttributeDescription("since", .date, userInfo: ["dateFormat": "yyyy-MM-dd"])
                AttributeDescription("rate", .decimal)
                RelationshipDescription("dept", to: "Dept", inverse: "staff", userInfo: ["mappedKeyName": "deptID"])
                RelationshipDescription("mentor", to: "Staff", userInfo: ["mappedKeyName": "mentorID"])
                RelationshipDescription("badges", to: "Badge", toMany: true)
                RelationshipDescription("pet", to: "Pet", inverse: "owner", userInfo: ["mappedKeyName": "petID"])
            },
            EntityDescription("Badge", relatedBy: "code") {
                AttributeDescription("code", .string, optional: false)
            },
            EntityDescription("Pet", relatedBy: "petID") {
                AttributeDescription("petID", .integer32, optional: false)
                RelationshipDescription("owner", to: "Staff", inverse: "pet")
            },
        ])
    } catch {
        preconditionFailure("the fuzz model does not resolve: \(error)")
    }
}()

/// A store holding a few staff in departments, made once; each import opens a copy.
private let directStoreBytes: [UInt8] = {
    do {
        let fileSystem = MemoryFileSystem(tracksDurability: false)
        let store = try ObjectStore(path: directStorePath, model: directModel, options: directStoreOptions(fileSystem))
        let (root, _) = ObjectStack(store: store).makeContexts()
        try root.importRecords(from: Data(#"""
            [{"staffID": 1, "name": "a", "deptID": 1, "petID": 1}, {"staffID": 2, "deptID": 1, "mentorID": 1},
             {"staffID": 3, "deptID": 2, "badges": ["x"]}, {"staffID": 4, "age": 40}]
            """#.utf8), entityName: "Staff")
        try root.save()
        try store.close()
        guard let bytes = fileSystem.contents(of: directStorePath) else { preconditionFailure("the fuzz store was not written") }
        return bytes
    } catch {
        preconditionFailure("the fuzz store cannot be made: \(error)")
    }
}()

private let directStorePath = "/direct.store"

private func directStoreOptions(_ fileSystem: MemoryFileSystem) -> StoreOptions {
    StoreOptions(durability: .none, cacheBytes: 64 << 10, fileSystem: fileSystem)
}

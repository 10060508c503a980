import Foundation
import MagicalStore
import Synchronization
@testable import MagicalRecord

/// Shared by the libFuzzer target (Fuzz/) and the corpus replay in `make test`.
///
/// Arbitrary bytes imported as JSON records into a store that already holds objects, with
/// options picked by the first byte. The import succeeds, or fails with a typed import
/// error leaving the context and the store exactly as they were; after a success the
/// context saves, and what the store then holds reads back.
func fuzzImport(_ input: UnsafeRawBufferPointer) {
    guard let flags = input.first else { return }
    let options = ImportOptions(
        nullAsAbsent: flags & 1 != 0, skipInvalid: flags & 2 != 0,
        relationshipPolicy: flags & 4 != 0 ? .replace : nil, allowsTrailingCommas: flags & 8 != 0,
        batchSize: Int(flags >> 4) + 1
    )
    let json = Data(input.dropFirst())
    do {
        let (root, main) = try reusableStack.withLock { $0.take() } ?? makeStack()
        let before = startingContextDump
        let committed = try root.stack.store.snapshot().transaction.transactionID
        do {
            try main.importRecords(from: json, entityName: "Band", options: options)
        } catch {
            guard case .importFailed = error else { preconditionFailure("not an import error: \(error)") }
            let (context, lastCommit) = (try dump(main), try root.stack.store.snapshot().transaction.transactionID)
            precondition(context == before, "a failed import changed the context")
            // Only a commit changes the store, and the root had nothing to lose.
            precondition(!root.hasChanges, "a failed import changed the root context")
            precondition(lastCommit == committed, "a failed import committed")
            reusableStack.withLock { $0 = (root, main) }
            return
        }
        do {
            try main.saveToPersistentStore()
        } catch {
            // Validation may refuse what was imported (a required value left nil, a key too
            // long to index): then nothing reached the store, though the root context may
            // hold what the main context handed it.
            guard case .validation = error else { preconditionFailure("save failed: \(error)") }
            let lastCommit = try root.stack.store.snapshot().transaction.transactionID
            precondition(lastCommit == committed, "a refused save committed")
            return
        }
        let (store, context) = (try dump(root), try dump(main))
        precondition(store == context, "the store does not hold what was saved")
    } catch {
        preconditionFailure("unexpected error: \(error)")
    }
}

private let importModel: ObjectModel = {
    do {
        return try ObjectModel(entities: [
            EntityDescription("Band", relatedBy: "bandID") {
                AttributeDescription("bandID", .integer32, optional: false)
                AttributeDescription("name", .string, userInfo: ["mappedKeyName": "title", "mappedKeyName.1": "meta.name"])
                AttributeDescription("formed", .date, userInfo: ["dateFormat": "yyyy-MM-dd"])
                AttributeDescription("score", .decimal)
                AttributeDescription("active", .boolean, default: .bool(true), userInfo: ["useDefaultValueWhenNotPresent": "YES"])
                AttributeDescription("logo", .binary, userInfo: ["attributeValueClassName": "UIColor"])
                RelationshipDescription("members", to: "Musician", inverse: "band", toMany: true, ordered: true)
                RelationshipDescription("genres", to: "Genre", toMany: true)
                RelationshipDescription("notes", to: "Note", toMany: true)
            },
            EntityDescription("Musician") {
                AttributeDescription("musicianID", .integer64, optional: false)
                AttributeDescription("name", .string)
                AttributeDescription("born", .date, userInfo: ["dateFormat": "UnixTime"])
                RelationshipDescription("band", to: "Band", inverse: "members")
            },
            EntityDescription("Genre", relatedBy: "slug") {
                AttributeDescription("slug", .string, optional: false)
            },
            EntityDescription("Note") {
                AttributeDescription("text", .string)
            },
        ])
    } catch {
        preconditionFailure("the fuzz model does not resolve: \(error)")
    }
}()

/// What every fresh stack's main context holds before the import (the same each time,
/// so dumped once).
private let startingContextDump: [ObjectDump] = {
    do {
        return try dump(makeStack().1)
    } catch {
        preconditionFailure("the fuzz stack cannot be made: \(error)")
    }
}()

/// The bytes of a store holding a few saved objects, made once: each input opens its own
/// copy (creating and filling a store per input took half the fuzzing time).
private let savedStoreBytes: [UInt8] = {
    do {
        let fileSystem = MemoryFileSystem(tracksDurability: false)
        let store = try ObjectStore(path: storePath, model: importModel, options: storeOptions(fileSystem))
        let (_, main) = ObjectStack(store: store).makeContexts()
        try main.importRecords(from: Data(#"[{"bandID": 1, "title": "a", "members": [1, 2], "genres": ["x"]}, {"bandID": 2}]"#.utf8), entityName: "Band")
        try main.saveToPersistentStore()
        try store.close()
        guard let bytes = fileSystem.contents(of: storePath) else { preconditionFailure("the fuzz store was not written") }
        return bytes
    } catch {
        preconditionFailure("the fuzz store cannot be made: \(error)")
    }
}()

private let storePath = "/fuzz.store"

private func storeOptions(_ fileSystem: MemoryFileSystem) -> StoreOptions {
    StoreOptions(durability: .none, cacheBytes: 64 << 10, fileSystem: fileSystem)
}

/// The stack the next input starts from when the last one left it as it was made (a
/// failed import, checked above), so most inputs skip opening a store: making one per
/// input took a quarter of the fuzzing time.
private let reusableStack = Mutex<(root: ManagedObjectContext, main: ManagedObjectContext)?>(nil)

/// A store with a few saved objects and a few unsaved ones on top.
private func makeStack() throws -> (ManagedObjectContext, ManagedObjectContext) {
    let fileSystem = MemoryFileSystem(tracksDurability: false)
    fileSystem.setContents(savedStoreBytes, of: storePath)
    let store = try ObjectStore(path: storePath, model: importModel, options: storeOptions(fileSystem))
    let (root, main) = ObjectStack(store: store).makeContexts()
    try main.importRecords(from: Data(#"[{"bandID": 3, "members": [{"musicianID": 2, "name": "moved"}]}]"#.utf8), entityName: "Band")
    return (root, main)
}

/// One object as a context sees it: its values and its relationships' target numbers.
/// Compared as values: printing each value (reflection) took half the fuzzing time.
private struct ObjectDump: Equatable {
    let id: ObjectID
    let attributes: [AttributeValue]
    let relationships: [[Int64]]
}

/// Every object a context sees, in id order.
private func dump(_ context: ManagedObjectContext) throws -> [ObjectDump] {
    var objects: [ObjectDump] = []
    for entity in importModel.entities {
        for object in try context.fetch(FetchRequest(entityName: entity.name)) {
            let relationships = try entity.relationships.map { relationship in
                relationship.isToMany
                    ? try object.relatedObjects(forKey: relationship.name).map(\.objectID.number)
                    : [try object.relatedObject(forKey: relationship.name)?.objectID.number].compactMap { $0 }
            }
            objects.append(ObjectDump(id: object.objectID, attributes: entity.attributes.map { object[$0.name] }, relationships: relationships))
        }
    }
    return objects.sorted { $0.id < $1.id }
}

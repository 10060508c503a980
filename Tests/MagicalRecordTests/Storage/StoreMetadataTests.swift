import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// What a store records about its model (Spec/OBJECT-STORE.md, "Metadata"), and how a
/// damaged record of it is reported.
@Suite struct StoreMetadataTests {
    let fileSystem = MemoryFileSystem(tracksDurability: false)
    var options: StoreOptions { StoreOptions(durability: .none, fileSystem: fileSystem) }

    private func makeStore() throws {
        let store = try ObjectStore(path: "/m.store", model: ContextSavingTests.model, options: options)
        let (root, _) = ObjectStack(store: store).makeContexts()
        let person = try root.insertObject(entityName: "Person")
        try person.setValue(.integer(1), forKey: "personID")
        try root.save()
        try store.store.close()
    }

    private func tamper(_ key: String, _ value: [UInt8]) throws {
        let engine = try Store(path: "/m.store", options: options)
        try engine.write { try $0.tree(StoreLayout.metadataTree).put(Array(key.utf8), value) }
        try engine.close()
    }

    private func open(model: ObjectModel?) -> Result<ObjectStore, MagicalRecordError> {
        Result { () throws(MagicalRecordError) in try ObjectStore(path: "/m.store", model: model, options: options) }
    }

    @Test func aStoreOpensWithoutAModelAsTheModelItWasWrittenWith() throws {
        try makeStore()
        let store = try open(model: nil).get()
        #expect(store.model.versionHash == ContextSavingTests.model.versionHash)
        #expect(store.model.declarations == ContextSavingTests.model.declarations)
        #expect(try store.snapshot().count(of: store.model.entity(named: "Person")!) == 1)
    }

    @Test func aRecordedHashThatDoesNotMatchTheModelIsDamage() throws {
        try makeStore()
        try tamper("versionHash", Array("0123".utf8))
        guard case .failure(.damagedMetadata(let reason)) = open(model: ContextSavingTests.model) else {
            Issue.record("expected damaged metadata")
            return
        }
        #expect(reason.contains("0123"))
    }

    @Test func aStoredModelThatDoesNotReadIsDamage() throws {
        try makeStore()
        try tamper("model", Array("{\"format\": 3}".utf8))
        guard case .failure(.damagedMetadata(let reason)) = open(model: nil) else {
            Issue.record("expected damaged metadata")
            return
        }
        #expect(reason.contains("stored model"))
    }

    @Test func anEngineStoreWithoutAModelIsNotAnObjectStore() throws {
        let engine = try Store(path: "/m.store", options: options)
        try engine.write { try $0.createTree("other").put([1], [2]) }
        try engine.close()
        guard case .failure(.notAnObjectStore(let path)) = open(model: nil) else {
            Issue.record("expected notAnObjectStore")
            return
        }
        #expect(path == "/m.store")
    }
}

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

    /// Slots that number two properties of one entity alike: a record could not say whose
    /// value it holds, and reading it might index outside its buffers.
    @Test func storedSlotsThatShareANumberAreDamage() throws {
        try makeStore()
        let engine = try Store(path: "/m.store", options: options)
        let stored = try #require(try engine.read().tree(StoreLayout.metadataTree).get(Array("model".utf8)))
        try engine.close()
        var document = try #require(try JSONSerialization.jsonObject(with: Data(stored)) as? [String: Any])
        var versions = try #require(document["versions"] as? [[String: Any]])
        var slots = try #require(versions[0]["slots"] as? [String: Int])
        let properties = slots.keys.filter { $0.hasPrefix("Person.") }.sorted()
        try #require(properties.count >= 2)
        slots[properties[1]] = slots[properties[0]]
        versions[0]["slots"] = slots
        document["versions"] = versions
        try tamper("model", Array(try JSONSerialization.data(withJSONObject: document)))
        guard case .failure(.damagedMetadata(let reason)) = open(model: nil) else {
            Issue.record("expected damaged metadata")
            return
        }
        #expect(reason.contains("\(properties[0]) and \(properties[1]) have the same number"))
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

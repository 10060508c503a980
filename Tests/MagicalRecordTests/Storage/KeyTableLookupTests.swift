import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// An import's look-up of an entity's integer key through its complete key table
/// (`StoreSnapshot.statesByIndexedValue` on `Employee.employeeID`), against a reference of
/// what was saved: through inserts, key changes, deletions, keys whose hashes share a
/// slot, and a store reopened, whose table the look-ups fill from the index.
@Suite struct KeyTableLookupTests {
    /// A key whose hint shares `key`'s 32-bit hash (the table keeps one of the two): the
    /// hash is the key times an odd constant, so adding the constant's inverse modulo 2^64
    /// adds one to the product.
    static func collidingKey(_ key: Int64) -> Int64 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var inverse = multiplier
        for _ in 0..<5 { inverse = inverse &* (2 &- multiplier &* inverse) }
        return key &+ Int64(bitPattern: inverse)
    }

    private static func openStore(_ fileSystem: MemoryFileSystem, readOnly: Bool = false) throws -> ObjectStore {
        try ObjectStore(path: "/keys.store", model: FetchModel.model, options: StoreOptions(durability: .none, readOnly: readOnly, fileSystem: fileSystem))
    }

    /// Looks `keys` up and checks the answer against `saved` (key -> object number): each
    /// saved key's object found once, holding the key, and every other key absent once.
    private static func expectLookUp(_ keys: [Int64], in store: ObjectStore, matches saved: [Int64: Int64]) throws {
        let position = try #require(FetchModel.model.entity(named: "Employee")?.slot(ofAttribute: "employeeID"))
        var found: [Int64: Int64] = [:]
        var absent: [Int64] = []
        try store.snapshot().statesByIndexedValue("Employee", "employeeID", keys.map(AttributeValue.integer)) { value in
            guard case .integer(let key) = value else {
                Issue.record("not a key: \(value)")
                return
            }
            absent.append(key)
        } found: { state in
            guard case .integer(let key) = state.attributes[position] else {
                Issue.record("a state without its key")
                return
            }
            #expect(found.updateValue(state.id.number, forKey: key) == nil, "key \(key) found twice")
        }
        let distinct = Set(keys)
        #expect(found == saved.filter { distinct.contains($0.key) })
        #expect(absent.count == Set(absent).count, "a key called absent twice")
        #expect(Set(absent) == distinct.filter { saved[$0] == nil })
    }

    private static func keyTable(_ store: ObjectStore) throws -> KeyHints {
        try #require(try store.coder(for: "Employee").keyHints)
    }

    @Test func lookUpsThroughTheTableAnswerAsTheStoreHolds() throws {
        let store = try Self.openStore(MemoryFileSystem(tracksDurability: false))
        defer { try? store.close() }
        let (_, main) = ObjectStack(store: store).makeContexts()
        var random = SplitMix64(seed: 5)
        // Asked while the entity holds no key: the table answers from then on.
        try Self.expectLookUp([1, 2, 3], in: store, matches: [:])
        #expect(try Self.keyTable(store).isComplete(asOf: store.snapshot().transaction.transactionID))

        var saved: [Int64: Int64] = [:]
        var objects: [Int64: ManagedObject] = [:]
        func unusedKey() -> Int64 {
            while true {
                var key = Int64(random.next() % 3_000)
                // Every third key shares its hash with a key saved before.
                if random.next() % 3 == 0, let other = saved.keys.randomElement(using: &random) { key = Self.collidingKey(other) }
                if saved[key] == nil { return key }
            }
        }
        for _ in 0..<(25 * testScale) {
            for _ in 0..<40 {
                switch random.next() % 6 {
                case 0 where !saved.isEmpty:
                    // A key changed: its hint goes stale.
                    let old = saved.keys.randomElement(using: &random)!
                    let new = unusedKey()
                    let object = objects.removeValue(forKey: old)!
                    try object.setValue(.integer(new), forKey: "employeeID")
                    saved[new] = saved.removeValue(forKey: old)
                    objects[new] = object
                case 1 where !saved.isEmpty:
                    let key = saved.keys.randomElement(using: &random)!
                    try main.delete(objects.removeValue(forKey: key)!)
                    saved[key] = nil
                default:
                    let key = unusedKey()
                    let object = try main.insert("Employee", ["employeeID": .integer(key)])
                    saved[key] = object.objectID.number
                    objects[key] = object
                }
            }
            try main.saveToPersistentStore()
            var asked = (0..<50).map { _ in Int64(random.next() % 3_000) }
            asked += saved.keys.shuffled(using: &random).prefix(30)
            asked += saved.keys.shuffled(using: &random).prefix(20).map(Self.collidingKey)
            asked += asked.prefix(10)
            try Self.expectLookUp(asked.shuffled(using: &random), in: store, matches: saved)
        }
    }

    /// A store opened with keys: its table is filled from the index once the look-ups
    /// have wanted half as many keys as it holds; before, the index answers them. A store
    /// open read-only never answers from its table (another process may write it).
    @Test func aReopenedStoreFillsItsTableFromTheIndex() throws {
        let fileSystem = MemoryFileSystem(tracksDurability: false)
        var saved: [Int64: Int64] = [:]
        do {
            let store = try Self.openStore(fileSystem)
            defer { try? store.close() }
            let (_, main) = ObjectStack(store: store).makeContexts()
            for key in stride(from: Int64(10), through: 3_000, by: 10) {
                saved[key] = try main.insert("Employee", ["employeeID": .integer(key)]).objectID.number
            }
            try main.saveToPersistentStore()
        }
        do {
            let store = try Self.openStore(fileSystem, readOnly: true)
            defer { try? store.close() }
            try Self.expectLookUp(Array(0..<1_000), in: store, matches: saved)
            #expect(try !Self.keyTable(store).isComplete(asOf: store.snapshot().transaction.transactionID))
        }
        let store = try Self.openStore(fileSystem)
        defer { try? store.close() }
        let (_, main) = ObjectStack(store: store).makeContexts()
        let table = try Self.keyTable(store)
        try Self.expectLookUp(Array(0..<100), in: store, matches: saved)
        #expect(try !table.isComplete(asOf: store.snapshot().transaction.transactionID), "100 of 300 keys wanted")
        try Self.expectLookUp(Array(100..<160), in: store, matches: saved)
        #expect(try table.isComplete(asOf: store.snapshot().transaction.transactionID), "160 of 300 keys wanted")
        try Self.expectLookUp(Array(0..<3_010), in: store, matches: saved)
        // Saves after the fill keep it complete.
        let moved = try main.existingObject(with: ObjectID(entityName: "Employee", number: saved[20]!))
        try moved.setValue(.integer(25), forKey: "employeeID")
        saved[25] = saved.removeValue(forKey: 20)
        saved[7] = try main.insert("Employee", ["employeeID": .integer(7)]).objectID.number
        try main.saveToPersistentStore()
        try Self.expectLookUp(Array(0..<40), in: store, matches: saved)
    }
}

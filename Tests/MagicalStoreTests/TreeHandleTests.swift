import Testing
@testable import MagicalStore

@Suite struct TreeHandleTests {
    @Test func aHandleFindsWhatItsNameFindsInEveryCommit() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none))
        let handle = TreeHandle("people")
        #expect(try store.read().treeIfPresent(handle) == nil)
        #expect(throws: StoreError.treeNotFound("people")) { try store.read().tree(handle) }

        try store.write { transaction in
            let tree = try transaction.createTree("people")
            for number in 0..<300 { try tree.put(numberKey(number), numberKey(number + 1)) }
        }
        let first = try store.read()
        // Asked twice: the second answer comes from the commit's directory by place.
        for _ in 0..<2 {
            let tree = try first.tree(handle)
            #expect(tree.count == 300)
            #expect(try tree.get(numberKey(7)) == numberKey(8))
        }

        try store.write { transaction in try transaction.renameTree("people", to: "staff") }
        let second = try store.read()
        #expect(try second.treeIfPresent(handle) == nil)
        #expect(try second.tree(TreeHandle("staff")).count == 300)
        // The older snapshot still sees its own commit.
        #expect(try first.tree(handle).count == 300)

        try store.write { transaction in try transaction.createTree("people").put(numberKey(1), [1]) }
        #expect(try store.read().tree(handle).count == 1)
        try store.close()
    }

    @Test func oneHandleServesStoresWithDifferentTrees() throws {
        let directory = TemporaryDirectory()
        let stores = try ["a.store", "b.store"].map { try Store(path: directory.file($0), options: StoreOptions(durability: .none)) }
        try stores[0].write { transaction in try transaction.createTree("only in the first").put(numberKey(1), [1]) }
        try stores[1].write { transaction in
            let tree = try transaction.createTree("shared")
            for number in 0..<5 { try tree.put(numberKey(number), [2]) }
        }
        try stores[0].write { transaction in try transaction.createTree("shared").put(numberKey(1), [1]) }
        let shared = TreeHandle("shared")
        #expect(try stores[0].read().tree(shared).count == 1)
        #expect(try stores[1].read().tree(shared).count == 5)
        #expect(try stores[1].read().treeIfPresent(TreeHandle("only in the first")) == nil)
        #expect(try stores[0].read().tree(shared).get(numberKey(1)) == [1])
        for store in stores { try store.close() }
    }

    @Test func handlesOfOneNameAreEqual() {
        #expect(TreeHandle("a") == TreeHandle("a"))
        #expect(TreeHandle("a") != TreeHandle("b"))
        #expect(Set([TreeHandle("a"), TreeHandle("a"), TreeHandle("b")]).count == 2)
        #expect(TreeHandle("a").description == "a")
    }
}

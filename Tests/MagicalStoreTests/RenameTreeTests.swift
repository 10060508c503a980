import Testing
@testable import MagicalStore

@Suite struct RenameTreeTests {
    @Test func aRenamedTreeKeepsItsEntriesUnderTheNewNameAcrossReopening() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        do {
            let store = try Store(path: path, options: StoreOptions(durability: .none, pageSize: 1024))
            try store.write { transaction in
                let tree = try transaction.createTree("old")
                for number in 0..<500 { try tree.put(numberKey(number), numberKey(number * 2)) }
            }
            // Committed and untouched in this transaction: the catalog entry moves as it is.
            try store.write { transaction in try transaction.renameTree("old", to: "new") }
            try store.close()
        }
        let store = try Store(path: path, options: StoreOptions(durability: .none))
        let snapshot = try store.read()
        #expect(try snapshot.treeIfPresent("old") == nil)
        let tree = try snapshot.tree("new")
        #expect(tree.count == 500)
        #expect(try tree.get(numberKey(499)) == numberKey(998))
        try store.close()
        #expect(try StoreChecker(path: path).run().isSound)
    }

    @Test func aTreeChangedInTheSameTransactionIsRenamedWithItsChanges() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none))
        try store.write { transaction in try transaction.createTree("a").put(numberKey(1), [1]) }
        try store.write { transaction in
            try transaction.tree("a").put(numberKey(2), [2])
            try transaction.renameTree("a", to: "b")
            try transaction.tree("b").put(numberKey(3), [3])
            try transaction.createTree("fresh").put(numberKey(1), [9])
            try transaction.renameTree("fresh", to: "a")
        }
        let snapshot = try store.read()
        #expect(try snapshot.tree("b").count == 3)
        #expect(try snapshot.tree("a").get(numberKey(1)) == [9])
        #expect(try snapshot.treeNames() == ["a", "b"])
    }

    @Test func renamingRefusesAMissingSourceAndATakenName() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none))
        try store.write { transaction in
            try transaction.createTree("a")
            try transaction.createTree("b")
        }
        try store.write { transaction in
            #expect(throws: StoreError.treeNotFound("missing")) { try transaction.renameTree("missing", to: "c") }
            #expect(throws: StoreError.treeExists("b")) { try transaction.renameTree("a", to: "b") }
        }
        #expect(try store.read().treeNames() == ["a", "b"])
    }
}

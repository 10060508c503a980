import Testing
@testable import MagicalStore

@Suite struct TreeLoaderTests {
    @Test func aLoadedTreeHoldsItsEntriesInOrderAcrossReopening() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        do {
            let store = try Store(path: path, options: StoreOptions(durability: .none, pageSize: 1024))
            try store.write { transaction in
                let loader = try transaction.makeLoader(forNewTree: "loaded")
                // Large values go to overflow pages, as with put.
                for number in 0..<3000 { try loader.append(numberKey(number), number % 500 == 0 ? [UInt8](repeating: 7, count: 3000) : numberKey(number)) }
                try loader.finish()
                #expect(loader.count == 3000)
                #expect(try transaction.tree("loaded").get(numberKey(2999)) == numberKey(2999))
            }
            try store.close()
        }
        let store = try Store(path: path, options: StoreOptions(durability: .none))
        let tree = try store.read().tree("loaded")
        #expect(tree.count == 3000)
        #expect(try tree.get(numberKey(1000)) == [UInt8](repeating: 7, count: 3000))
        var previous: [UInt8]?
        var seen = 0
        try tree.scan { key, _ in
            if let previous { #expect(previous.lexicographicallyPrecedes(key)) }
            previous = key
            seen += 1
            return true
        }
        #expect(seen == 3000)
        try store.close()
        #expect(try StoreChecker(path: path).run().isSound)
    }

    @Test func keysOutOfOrderAreRefusedAndAnUnfinishedLoadLeavesTheTreeEmpty() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none))
        try store.write { transaction in
            let loader = try transaction.makeLoader(forNewTree: "loaded")
            try loader.append(numberKey(2), [2])
            #expect(throws: StoreError.keysOutOfOrder(tree: "loaded")) { try loader.append(numberKey(2), [3]) }
            #expect(throws: StoreError.keysOutOfOrder(tree: "loaded")) { try loader.append(numberKey(1), [3]) }
            #expect(throws: StoreError.treeExists("loaded")) { try transaction.makeLoader(forNewTree: "loaded") }
        }
        #expect(try store.read().tree("loaded").count == 0)
    }
}

import Foundation
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

    // MARK: Pages written before the commit

    static func fileSize(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
    }

    /// Loads `count` entries into `name`, each value `fill` repeated (every 97th large
    /// enough for an overflow frame), reading them back before returning.
    static func load(_ transaction: WriteTransaction, _ name: String, count: Int, fill: UInt8) throws {
        let loader = try transaction.makeLoader(forNewTree: name)
        for number in 0..<count {
            try loader.append(numberKey(number), [UInt8](repeating: fill, count: number % 97 == 0 ? 2000 : 20))
        }
        try loader.finish()
        let tree = try transaction.tree(name)
        #expect(try tree.get(numberKey(0)) == [UInt8](repeating: fill, count: 2000))
        #expect(try tree.get(numberKey(count - 1))?.first == fill)
    }

    @Test func aRolledBackLoadLeavesTheFileAsItWasAndItsOffsetsServeTheNextTransaction() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let store = try Store(path: path, options: StoreOptions(durability: .full, pageSize: 1024))
        try store.write { try $0.createTree("kept").put([1], [1]) }
        let before = try Self.fileSize(path)
        let transaction = try store.beginWrite()
        try Self.load(transaction, "loaded", count: 5000, fill: 1)
        #expect(try Self.fileSize(path) > before, "the pages went to the file before the commit")
        transaction.rollback()
        #expect(try Self.fileSize(path) == before)
        // The next transaction writes other pages at the same offsets: nothing of the
        // rolled-back ones may be served from a cache.
        try store.write { try Self.load($0, "loaded", count: 5000, fill: 2) }
        let tree = try store.read().tree("loaded")
        try tree.scan { _, value in
            #expect(value.first == 2)
            return true
        }
        #expect(try store.read().tree("kept").get([1]) == [1])
        try store.close()
        #expect(try StoreChecker(path: path).run().isSound)
    }

    @Test func aLoaderDroppedUnfinishedOrALoadedTreeChangedAgainKeepsTheLiveBytesExact() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let store = try Store(path: path, options: StoreOptions(durability: .none, pageSize: 1024))
        try store.write { transaction in
            do {
                let loader = try transaction.makeLoader(forNewTree: "abandoned")
                for number in 0..<3000 { try loader.append(numberKey(number), [UInt8](repeating: 3, count: 40)) }
            }
            try Self.load(transaction, "changed", count: 3000, fill: 4)
            let changed = try transaction.tree("changed")
            try changed.put(numberKey(10), [9])
            _ = try changed.delete(numberKey(20))
            try Self.load(transaction, "dropped", count: 3000, fill: 5)
            try transaction.dropTree("dropped")
        }
        let snapshot = try store.read()
        #expect(try snapshot.tree("abandoned").count == 0)
        #expect(try snapshot.tree("changed").get(numberKey(10)) == [9])
        #expect(try snapshot.tree("changed").get(numberKey(20)) == nil)
        #expect(try snapshot.tree("changed").count == 2999)
        #expect(throws: StoreError.treeNotFound("dropped")) { try snapshot.tree("dropped") }
        try store.close()
        let report = try StoreChecker(path: path).run()
        #expect(report.isSound, "\(report.problems)")
    }

    @Test func aLoaderReleasedAfterTheCommitStillLeavesItsPagesOutOfTheLiveBytes() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let store = try Store(path: path, options: StoreOptions(durability: .none, pageSize: 1024))
        let transaction = try store.beginWrite()
        let loader = try transaction.makeLoader(forNewTree: "abandoned")
        for number in 0..<3000 { try loader.append(numberKey(number), [UInt8](repeating: 3, count: 40)) }
        try transaction.openTree("other").put([1], [1])
        try transaction.commit()
        withExtendedLifetime(loader) {}
        #expect(try store.read().tree("abandoned").count == 0)
        try store.close()
        let report = try StoreChecker(path: path).run()
        #expect(report.isSound, "\(report.problems)")
    }

    @Test func aTreeDroppedBeforeItsLoaderFinishesGetsNothingAndTheLiveBytesStayExact() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let store = try Store(path: path, options: StoreOptions(durability: .none, pageSize: 1024))
        try store.write { transaction in
            let loader = try transaction.makeLoader(forNewTree: "dropped")
            for number in 0..<3000 { try loader.append(numberKey(number), [UInt8](repeating: 4, count: 40)) }
            try transaction.dropTree("dropped")
            #expect(throws: StoreError.treeNotFound("dropped")) { try loader.finish() }
            try transaction.openTree("other").put([1], [1])
        }
        #expect(throws: StoreError.treeNotFound("dropped")) { try store.read().tree("dropped") }
        try store.close()
        let report = try StoreChecker(path: path).run()
        #expect(report.isSound, "\(report.problems)")
    }

    @Test func aCursorOnARolledBackLoadIsClosedRatherThanReadingTheNextTransactionsPages() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none, pageSize: 1024))
        let transaction = try store.beginWrite()
        try Self.load(transaction, "loaded", count: 3000, fill: 1)
        var cursor = try transaction.tree("loaded").makeCursor()
        transaction.rollback()
        try store.write { try Self.load($0, "loaded", count: 3000, fill: 2) }
        #expect(throws: StoreError.closed) { try cursor.first() }
        try store.close()
    }

    @Test func aPageWriteThatFailsMidLoadIsCountedAndTheTransactionCanStillCommit() throws {
        let faulty = FaultInjectingFileSystem()
        let path = "/store/loader.store"
        let store = try Store(path: path, options: StoreOptions(durability: .full, pageSize: 1024, fileSystem: faulty))
        try store.write { try $0.createTree("kept").put([1], [1]) }
        let transaction = try store.beginWrite()
        let loader = try transaction.makeLoader(forNewTree: "loaded")
        for number in 0..<3000 { try loader.append(numberKey(number), [UInt8](repeating: 5, count: 40)) }
        // The pages wait in the writer's buffer; finishing flushes them, and that write fails once.
        faulty.inject(InjectedFault(kinds: [.write, .grow], atOperation: 1, errno: EIO, tornWriteBytes: 700))
        #expect(throws: StoreError.self) { try loader.finish() }
        try transaction.tree("kept").put([2], [2])
        try transaction.commit()
        #expect(try allEntries(store.read().tree("kept")) == [[1]: [1], [2]: [2]])
        #expect(try store.read().tree("loaded").count == 0)
        try store.close()
        let report = try StoreChecker(path: path, fileSystem: faulty).run()
        #expect(report.isSound, "\(report.problems)")
    }
}

import Foundation
import Testing
@testable import MagicalStore

/// What `check` reports of each tree: its entries and the bytes of its frames, which with
/// the catalog's and the commit's make up the store's live bytes.
@Suite struct StoreCheckerUsageTests {
    @Test func eachTreeIsListedWithItsEntriesAndBytes() throws {
        let fileSystem = MemoryFileSystem(tracksDurability: false)
        let path = "/usage.store"
        let store = try Store(path: path, options: StoreOptions(durability: .none, pageSize: 512, fileSystem: fileSystem))
        var random = SeededGenerator(seed: 5)
        try store.write { transaction in
            let small = try transaction.createTree("small")
            try small.put([1], [1])
            let large = try transaction.createTree("large")
            for number in 0..<300 { try large.put([UInt8(number / 256), UInt8(number % 256)], random.bytes(count: number == 7 ? 2_000 : 20)) }
            _ = try transaction.createTree("empty")
        }
        let live = try store.info().liveBytes
        try store.close()

        let report = try StoreChecker(path: path, fileSystem: fileSystem).run()
        #expect(report.isSound)
        #expect(report.trees.map(\.name) == ["empty", "large", "small"])
        #expect(report.trees.map(\.entries) == [0, 300, 1])
        let bytes = report.trees.map(\.bytes)
        #expect(bytes[0] == 0)
        // 300 entries of 20 bytes and one overflow value of 2,000 take pages of their own.
        #expect(bytes[1] > 2_000 && bytes[1] > 10 * bytes[2])
        #expect(bytes[2] > 0)
        #expect(bytes.reduce(0, +) < live)
    }
}

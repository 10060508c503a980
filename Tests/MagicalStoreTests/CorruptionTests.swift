import Foundation
import Testing
@testable import MagicalStore

/// F25 and section 9: any flipped bit is caught by `check`, and reads either return the
/// committed bytes or throw a typed error: never wrong data, never a crash.
@Suite struct CorruptionTests {
    @Test func everySingleBitFlipIsDetected() throws {
        // In memory: the file system is not under test, and each flip is a fresh file.
        let fileSystem = MemoryFileSystem(tracksDurability: false)
        let path = "/original.store"
        var expected: [[UInt8]: [UInt8]] = [:]
        do {
            let store = try Store(path: path, options: StoreOptions(durability: .none, pageSize: 512, fileSystem: fileSystem))
            var random = SeededGenerator(seed: 3)
            for round in 0..<3 {
                try store.write { transaction in
                    let tree = try transaction.openTree("tree")
                    for number in 0..<(round == 0 ? 30 : 5) {
                        let value = random.bytes(count: number == 2 ? 400 : 10)
                        try tree.put(numberKey(number), value)
                        expected[numberKey(number)] = value
                    }
                }
            }
            try store.close()
        }
        let original = try #require(fileSystem.contents(of: path))
        #expect(try StoreChecker(path: path, fileSystem: fileSystem).run().problems == [])
        let damaged = "/damaged.store"
        var missed: [Int] = []
        for byte in original.indices {
            for bit in 0..<8 {
                var bytes = original
                bytes[byte] ^= 1 << bit
                fileSystem.setContents(bytes, of: damaged)
                let report = try? StoreChecker(path: damaged, fileSystem: fileSystem).run()
                if report?.isSound == true {
                    missed.append(byte * 8 + bit)
                }
                expectReadsAreRightOrTyped(path: damaged, fileSystem: fileSystem, expected: expected, flipped: byte)
            }
        }
        #expect(missed.isEmpty, "bit flips check did not catch: \(missed.prefix(10))")
        print("bit flips: \(original.count * 8) of a \(original.count)-byte store, \(missed.count) missed by check")
    }

    /// Every read returns the committed value or a typed error that locates the damage.
    func expectReadsAreRightOrTyped(path: String, fileSystem: MemoryFileSystem, expected: [[UInt8]: [UInt8]], flipped byte: Int) {
        do {
            let store = try Store(path: path, options: StoreOptions(readOnly: true, cacheBytes: 64 << 10, fileSystem: fileSystem))
            let tree = try store.read().tree("tree")
            for (key, value) in expected {
                do {
                    let read = try tree.get(key)
                    #expect(read == value, "wrong data returned for a damaged store (byte \(byte))")
                } catch {
                    expectLocated(error, flipped: byte)
                }
            }
        } catch {
            expectLocated(error, flipped: byte)
        }
    }

    /// Damage is reported as corruption at an offset, or as a header that is not a store's.
    func expectLocated(_ error: any Error, flipped byte: Int) {
        switch error as? StoreError {
        case .corrupt?, .notAStore?, .truncatedFile?, .unsupportedVersion?, .treeNotFound?:
            break
        default:
            Issue.record("flipping a bit of byte \(byte) gave \(error), not a located corruption error")
        }
    }
}

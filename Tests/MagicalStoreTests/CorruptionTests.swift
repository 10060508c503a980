import Foundation
import Testing
@testable import MagicalStore

/// F25 and section 9: any flipped bit is caught by `check`, and reads either return the
/// committed bytes or throw a typed error: never wrong data, never a crash.
@Suite struct CorruptionTests {
    @Test func everySingleBitFlipIsDetected() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("original.store")
        var expected: [[UInt8]: [UInt8]] = [:]
        do {
            let store = try Store(path: path, options: StoreOptions(durability: .none, pageSize: 512))
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
        let original = readFile(path)
        #expect(try StoreChecker(path: path).run().problems == [])
        let damaged = directory.file("damaged.store")
        var missed: [Int] = []
        // Every bit of every byte; at scale 1 every third byte, to keep the suite quick.
        let stride = testScale >= 3 ? 1 : 3
        for byte in Swift.stride(from: 0, to: original.count, by: stride) {
            for bit in 0..<8 {
                var bytes = original
                bytes[byte] ^= 1 << bit
                writeFile(damaged, bytes)
                if (try? StoreChecker(path: damaged).run().isSound) == true {
                    missed.append(byte * 8 + bit)
                }
                expectReadsAreRightOrTyped(path: damaged, expected: expected)
            }
        }
        #expect(missed.isEmpty, "bit flips check did not catch: \(missed.prefix(10))")
    }

    func expectReadsAreRightOrTyped(path: String, expected: [[UInt8]: [UInt8]]) {
        do {
            let store = try Store(path: path, options: StoreOptions(readOnly: true))
            let tree = try store.read().tree("tree")
            for (key, value) in expected {
                do {
                    let read = try tree.get(key)
                    #expect(read == value, "wrong data returned for a damaged store")
                } catch {
                    #expect(error is StoreError)
                }
            }
        } catch {
            #expect(error is StoreError)
        }
    }
}

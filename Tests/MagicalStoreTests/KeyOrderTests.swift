import Testing
@testable import MagicalStore

/// A batch's key order against the reference: byte-wise comparison of whole keys, equal
/// keys by index. Keys share long prefixes and differ past the first eight bytes, are
/// shorter than eight, and repeat.
@Suite struct KeyOrderTests {
    private func randomKey(_ random: inout SplitMix64) -> [UInt8] {
        let shared: [UInt8] = [0x15, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]
        let length = Int.random(in: 0...12, using: &random)
        let sharing = Int.random(in: 0...min(length, shared.count), using: &random)
        return Array(shared[..<sharing]) + (sharing..<length).map { _ in UInt8.random(in: 0...3, using: &random) * 0x55 }
    }

    /// Small batches take a comparison sort, large ones the radix sort by prefix.
    @Test(arguments: 0..<UInt64(8))
    func ascendingIsByteOrderThenIndex(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let count = seed % 2 == 0 ? Int.random(in: 0..<KeyOrder.radixSortMinimum, using: &random) : Int.random(in: 128...3_000, using: &random)
        let keys = (0..<count).map { _ in
            // Some keys random over all eight prefix bytes, most crowded onto few values.
            Int.random(in: 0..<4, using: &random) == 0 ? (0..<Int.random(in: 1...10, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) } : randomKey(&random)
        }
        let expected = keys.indices.sorted { left, right in
            keys[left].lexicographicallyPrecedes(keys[right]) || (keys[left] == keys[right] && left < right)
        }
        #expect(KeyOrder.ascending(count: keys.count) { keys[$0] } == expected)
    }

    /// Numbers, negative and positive, extreme and repeated, in small and large batches:
    /// numeric order, equal numbers by index.
    @Test(arguments: 0..<UInt64(6))
    func numbersAscendInOrderThenIndex(seed: UInt64) {
        var random = SplitMix64(seed: seed + 100)
        let count = seed % 2 == 0 ? Int.random(in: 0..<KeyOrder.radixSortMinimum, using: &random) : Int.random(in: 128...3_000, using: &random)
        let numbers: [Int64] = (0..<count).map { _ in
            switch Int.random(in: 0..<4, using: &random) {
            case 0: return [Int64.min, Int64.max, -1, 0, 1].randomElement(using: &random)!
            case 1: return Int64.random(in: Int64.min...Int64.max, using: &random)
            default: return Int64.random(in: -40...40, using: &random) * 1_000_003
            }
        }
        let expected = numbers.indices.sorted { ($0 < $1 && numbers[$0] == numbers[$1]) || numbers[$0] < numbers[$1] }
        #expect(KeyOrder.ascending(numbers) == expected)
    }

    /// A stored key against a key by prefixes (and lengths, when both fit in 8 bytes)
    /// orders as their bytes do: zero bytes at the end of short keys included.
    @Test func storedKeysCompareAsTheirBytes() {
        var random = SplitMix64(seed: 0x434D_5053)
        for _ in 0..<(5_000 * testScale) {
            var stored = randomKey(&random)
            var key = Int.random(in: 0..<3, using: &random) == 0 ? stored : randomKey(&random)
            if Int.random(in: 0..<4, using: &random) == 0 { key.append(0) }
            if Int.random(in: 0..<4, using: &random) == 0 { stored.append(0) }
            let page = [UInt8](repeating: 0xEE, count: 3) + stored
            let order = page.withUnsafeBytes { bytes in
                key.withUnsafeBytes { probe in
                    compareStoredKey(
                        prefix: stored.withUnsafeBytes { keyPrefix($0) }, start: 3, length: stored.count, in: bytes,
                        with: probe, prefix: keyPrefix(probe)
                    )
                }
            }
            let expected = stored.lexicographicallyPrecedes(key) ? -1 : (stored == key ? 0 : 1)
            #expect(order.signum() == expected, "\(stored) against \(key)")
        }
    }
}

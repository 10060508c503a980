import Foundation
import Testing
@testable import MagicalStore

/// The guessed search against a linear scan: evenly spread, clustered, repeated and equal
/// prefixes, keys below, inside and past their span, both kinds of bound a page searches
/// for; uneven keys cost at most about twice a binary search's probes.
@Suite struct InterpolatedSearchTests {
    private func prefixes(_ count: Int, _ random: inout SplitMix64) -> [UInt64] {
        switch Int.random(in: 0..<5, using: &random) {
        case 0: return (0..<count).map { UInt64($0) * 3 + 1_000 }
        case 1: return (0..<count).map { _ in random.next() }.sorted()
        case 2: return (0..<count).map { _ in UInt64.random(in: 0...4, using: &random) }.sorted()
        case 3: return [UInt64](repeating: 42, count: count)
        default:
            // Clustered: most keys in a narrow band, a few far out.
            return (0..<count).map { _ in
                Int.random(in: 0..<10, using: &random) == 0 ? random.next() : UInt64.random(in: 1 << 40...(1 << 40) + 64, using: &random)
            }.sorted()
        }
    }

    @Test(arguments: 0..<UInt64(6))
    func findsWhatALinearScanFinds(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        for _ in 0..<(400 * testScale) {
            let count = Int.random(in: 0...300, using: &random)
            let keys = prefixes(count, &random)
            let candidates = keys + [0, .max, random.next()] + keys.map { $0 &+ 1 } + keys.map { $0 &- 1 }
            let query = candidates.randomElement(using: &random)!
            for orEqual in [false, true] {
                let isBefore = { (index: Int) in orEqual ? keys[index] <= query : keys[index] < query }
                let expected = keys.indices.first { !isBefore($0) } ?? count
                var probes = 0
                let found = interpolatedSearch(count: count, prefix: query, first: keys.first ?? 0, last: keys.last ?? 0) { index in
                    probes += 1
                    return isBefore(index)
                }
                #expect(found == expected, "\(query) in \(keys)")
                let binaryProbes = count == 0 ? 0 : Int(log2(Double(count)).rounded(.up)) + 1
                #expect(probes <= 2 * binaryProbes + 2, "\(probes) probes for \(count) keys")
            }
        }
    }

    @Test func evenlySpreadKeysTakeAFewProbes() {
        let keys = (0..<200).map { UInt64($0) * 1_000 }
        for query in stride(from: UInt64(1), to: 199_000, by: 997) {
            var probes = 0
            _ = interpolatedSearch(count: keys.count, prefix: query, first: keys[0], last: keys[199]) { index in
                probes += 1
                return keys[index] < query
            }
            #expect(probes <= 3, "\(probes) probes for \(query)")
        }
    }
}

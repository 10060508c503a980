import MagicalStore
import Testing
@testable import MagicalRecord

/// A repeat is only ever claimed for a value noted before, and values that come back
/// among few are mostly recognised.
@Suite struct RecentIntegersTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func claimsOnlyValuesNotedBefore(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var recent = RecentIntegers()
        var noted = Set<Int64>()
        var repeats = 0
        for step in 0..<(20_000 * testScale) {
            // Mostly a few values (a batch's departments), sometimes any.
            let value = step % 7 == 0 ? Int64.random(in: .min ... .max, using: &random) : Int64.random(in: -50...50, using: &random)
            if recent.noteIsRepeat(value) {
                #expect(noted.contains(value), "\(value) claimed before it was noted")
                repeats += 1
            }
            noted.insert(value)
        }
        #expect(repeats > 10_000 * testScale)
    }
}

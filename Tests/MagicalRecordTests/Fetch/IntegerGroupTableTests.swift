import Testing
@testable import MagicalRecord

/// The grouped aggregates' integer table against a dictionary: the same group for the
/// same key, a new group number per new key, across growth and extreme keys.
@Suite struct IntegerGroupTableTests {
    @Test(arguments: 0..<UInt64(4))
    func groupsAsADictionaryDoes(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        var table = IntegerGroupTable()
        var reference: [Int64: Int] = [:]
        let spread = [Int64(3), 100, 5_000, Int64.max][Int(seed)]
        for _ in 0..<(5_000 * testScale) {
            let key: Int64 = generator.next() % 50 == 0
                ? generator.pick([Int64.min, Int64.max, 0, -1])
                : Int64.random(in: -spread...spread, using: &generator)
            let expected = reference[key] ?? reference.count
            reference[key] = expected
            #expect(table.group(of: key) == expected)
        }
        #expect(table.count == reference.count)
        #expect(Dictionary(uniqueKeysWithValues: table.entries.map { ($0.key, $0.group) }) == reference)
    }
}

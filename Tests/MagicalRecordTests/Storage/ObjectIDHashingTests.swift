import Testing
@testable import MagicalRecord

/// Ids hash by their number alone (mixed, not SipHash), removals by their numbers: equal
/// ids hash alike under any seed, and sets and dictionaries keep every id and removal
/// apart, whatever the numbers' pattern (consecutive, strided by powers of two, the same
/// number under two entities).
@Suite struct ObjectIDHashingTests {
    @Test func equalIDsHashAlikeUnderEverySeed() {
        for seed in [0, 1, -1, 12_345, Int.max, Int.min] {
            for number in [0, 1, 2, 1 << 32, Int64.max, -7] as [Int64] {
                let id = ObjectID(entityName: "Person", number: number)
                #expect(id._rawHashValue(seed: seed) == ObjectID(entityName: "Person", number: number)._rawHashValue(seed: seed))
            }
        }
    }

    @Test(arguments: [1, 2, 1 << 8, 1 << 16, 1 << 32, 1 << 44] as [Int64])
    func setsAndDictionariesKeepEveryIDApart(stride: Int64) {
        let ids = (0..<20_000 as Range<Int64>).flatMap { index in
            [ObjectID(entityName: "Person", number: index * stride), ObjectID(entityName: "Department", number: index * stride)]
        }
        let set = Set(ids)
        #expect(set.count == ids.count)
        var places: [ObjectID: Int] = [:]
        for (place, id) in ids.enumerated() { places[id] = place }
        for (place, id) in ids.enumerated() where place % 97 == 0 {
            #expect(places[id] == place)
            #expect(set.contains(id))
        }
        #expect(!set.contains(ObjectID(entityName: "Note", number: stride)))
    }

    /// A removal hashes its two ids' numbers and its position: removals differing in any
    /// of the three are apart in a set.
    @Test func removalsDifferingInAnyPartAreApart() {
        var removals: [RemovedTarget] = []
        for owner in 0..<30 as Range<Int64> {
            for target in 0..<300 as Range<Int64> {
                for position in 0..<2 {
                    removals.append(RemovedTarget(
                        owner: ObjectID(entityName: "Department", number: owner),
                        position: position,
                        target: ObjectID(entityName: "Person", number: target)
                    ))
                }
            }
        }
        var set = Set(removals)
        #expect(set.count == removals.count)
        for removal in removals where removal.target.number % 7 == 0 { #expect(set.remove(removal) != nil) }
        #expect(set.count == removals.count - removals.filter { $0.target.number % 7 == 0 }.count)
    }
}

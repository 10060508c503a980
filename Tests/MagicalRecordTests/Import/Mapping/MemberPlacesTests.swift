import MagicalStore
import Testing
@testable import MagicalRecord

/// Lookups through places worked out once per list of names give what looking each name
/// up in every object gives: for objects sharing names, objects whose names change from
/// one to the next, one-name and dotted key paths with alternates, nulls absent or not.
@Suite struct MemberPlacesTests {
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func matchLookingUpEachName(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let pool = ["id", "name", "age", "a", "b", "location", "x", "nest"]
        let lookups: [[EntityImportMapping.KeyPath]] = (0..<12).map { _ in
            (0..<Int.random(in: 1...3, using: &random)).map { _ in
                let depth = Int.random(in: 0..<4, using: &random) == 0 ? 2 : 1
                return EntityImportMapping.KeyPath((0..<depth).map { _ in pool.randomElement(using: &random)! }.joined(separator: "."))
            }
        }
        var places = MemberPlaces(lookups)
        // Texts read by one reader, so consecutive objects of the same names share them.
        let reader = JSONReader()
        var shapes: [[String]] = (0..<4).map { _ in Array(pool.shuffled(using: &random).prefix(Int.random(in: 0...pool.count, using: &random))) }
        for step in 0..<(400 * testScale) {
            if Int.random(in: 0..<10, using: &random) == 0 {
                shapes[Int.random(in: 0..<shapes.count, using: &random)] = Array(pool.shuffled(using: &random).prefix(Int.random(in: 0...pool.count, using: &random)))
            }
            let names = shapes[Int.random(in: 0..<shapes.count, using: &random)]
            let members = names.map { name -> String in
                let value = switch Int.random(in: 0..<4, using: &random) {
                case 0: "null"
                case 1: #"{"x": \#(step), "a": null}"#
                default: "\(step)"
                }
                return "\"\(name)\": \(value)"
            }
            let text = "[" + (0..<3).map { _ in "{" + members.joined(separator: ",") + "}" }.joined(separator: ",") + "]"
            guard case .array(let objects) = try reader.read(text) else {
                Issue.record("not an array")
                return
            }
            for case .object(let object) in objects {
                for index in lookups.indices {
                    let nullAsAbsent = Bool.random(using: &random)
                    let expected = Self.describe(object.value(at: lookups[index], nullAsAbsent: nullAsAbsent))
                    #expect(Self.describe(places.value(of: index, in: object, nullAsAbsent: nullAsAbsent)) == expected, "lookup \(lookups[index]) in \(text)")
                }
            }
        }
    }

    private static func describe(_ lookedUp: LookedUp) -> String {
        switch lookedUp {
        case .absent: "absent"
        case .found(let value, let keyPath): "\(keyPath) = \(value)"
        }
    }
}

import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// A sorted page's bounded list against a reference that sorts every match: first values
/// whose leading bytes tie (so the integers standing for them decide nothing), integers
/// at the ends of their range, nils and doubles (which have no such integer), either
/// direction, and candidates turned away by the list's bound before they are offered, as
/// a scan turns them away.
@Suite struct TopMatchesTests {
    private static let texts = ["", "S", "Smith", "Smith\u{0}", "Smithers", "Smithson", "Smithsonian", "Smithsonians", "smith", "Sé", "Søren", "Ṡ"]
    private static let integers: [Int64] = [.min, .min + 1, -300, -1, 0, 1, 255, 256, 1 << 40, .max - 1, .max]

    private static func referenceOrder(_ directions: [Bool]) -> (SortedMatch, SortedMatch) -> Bool {
        { left, right in
            for (index, ascending) in directions.enumerated() {
                switch AttributeValue.compare(left.values[index], right.values[index]) {
                case .orderedAscending?: return ascending
                case .orderedDescending?: return !ascending
                default: continue
                }
            }
            return left.id < right.id
        }
    }

    private static func firstValue(_ kind: Int, _ random: inout SplitMix64) -> AttributeValue {
        switch kind {
        case 0: return .string(texts.randomElement(using: &random)! + String(repeating: "x", count: Int.random(in: 0...1, using: &random)))
        case 1: return .integer(integers.randomElement(using: &random)!)
        default: return Bool.random(using: &random) ? .null : .double(Double(Int.random(in: -3...3, using: &random)) / 2)
        }
    }

    @Test func keepsTheSameMatchesAsASortOfThemAll() {
        var random = SplitMix64(seed: 0x70_9A6E)
        for trial in 0..<300 * testScale {
            let directions = (0..<Int.random(in: 1...2, using: &random)).map { _ in Bool.random(using: &random) }
            let capacity = Int.random(in: 1...40, using: &random)
            let kind = trial % 3
            var top = TopMatches(capacity: capacity, directions: directions)
            var offered: [SortedMatch] = []
            for number in 1...Int64.random(in: 1...400, using: &random) {
                var values = [Self.firstValue(kind, &random)]
                if directions.count > 1 { values.append(.integer(Int64.random(in: 0...3, using: &random))) }
                let match = SortedMatch(values: values, id: ObjectID(entityName: "Person", number: number))
                offered.append(match)
                guard !top.rejects(values[0]) else { continue }
                top.offer(match)
            }
            let expected = offered.sorted(by: Self.referenceOrder(directions)).prefix(capacity).map(\.id)
            #expect(top.matches.map(\.id) == expected, "trial \(trial): capacity \(capacity), directions \(directions)")
        }
    }

    @Test func aListWithNoPlacesKeepsNothing() {
        var top = TopMatches(capacity: 0, directions: [true])
        top.offer(SortedMatch(values: [.integer(1)], id: ObjectID(entityName: "Person", number: 1)))
        #expect(top.matches.isEmpty)
        #expect(top.bound == nil)
    }
}

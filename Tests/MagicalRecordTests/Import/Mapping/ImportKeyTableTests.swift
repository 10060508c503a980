import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// The import's key table against a dictionary: the same answers through random sets,
/// slot updates and removals, with keys of every kind (integers crowded onto few values,
/// strings, doubles equal in value to integers, null), answers of any entity, locations
/// kept with their keys through moves and growth, and a table reserved or grown (and
/// prefetched from, which changes nothing).
@Suite struct ImportKeyTableTests {
    private func randomKey(_ random: inout SplitMix64, spread: Int64) -> AttributeValue {
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<6: return .integer(Int64.random(in: -spread...spread, using: &random))
        case 6, 7: return .string("k\(Int.random(in: 0...Int(spread), using: &random))")
        case 8: return .double(Double(Int.random(in: 0...9, using: &random)))
        default: return .null
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func matchesADictionary(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var table = ImportKeyTable()
        var model: [AttributeValue: IndexedKey] = [:]
        // A key's location: set with its answer or apart, back to none when the answer is set.
        var locations: [AttributeValue: Int32] = [:]
        let spread = Int64.random(in: 4...2_000, using: &random)
        if Bool.random(using: &random) { table.reserveCapacity(Int(spread)) }
        for step in 0..<(4_000 * testScale) {
            let key = randomKey(&random, spread: spread)
            // A batch's loops prefetch keys ahead of their probes: a hint, which must leave
            // the table as it was whatever the key and the table's size.
            if Bool.random(using: &random) { table.prefetch(forKey: randomKey(&random, spread: spread)) }
            // Now and then an id of another entity, or numbered 0 (the table keeps an
            // entity's numbers alone, and these apart).
            let entity = Int.random(in: 0..<8, using: &random) == 0 ? "Robot" : "Person"
            let answer: IndexedKey = Bool.random(using: &random) ? .absent : .object(ObjectID(entityName: entity, number: Int64(step)))
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<35:
                table[key] = answer
                model[key] = answer
                locations[key] = nil
            case 35..<45:
                let location = Int32.random(in: -9...9, using: &random)
                table.set(key, answer, location: location)
                model[key] = answer
                locations[key] = location
            case 45..<60:
                if let slot = table.slot(forKey: key) {
                    if Bool.random(using: &random) {
                        table[slot: slot] = answer
                        model[key] = answer
                        locations[key] = nil
                    } else {
                        let location = Int32.random(in: -9...9, using: &random)
                        table[locationAt: slot] = location
                        locations[key] = location
                    }
                } else {
                    #expect(model[key] == nil)
                }
            case 60..<85:
                #expect(table.removeValue(forKey: key) == model.removeValue(forKey: key))
                locations[key] = nil
            case 85..<88:
                table[key] = nil
                model[key] = nil
                locations[key] = nil
            default:
                #expect(table[key] == model[key])
                var probed = table
                let found = probed.slotAnswerAndLocation(forKey: key)
                #expect(found?.answer == model[key])
                #expect(found.map { $0.location } == model[key].map { _ in locations[key] ?? ImportKeyTable.noLocation })
            }
            guard table.count == model.count else {
                Issue.record("\(table.count) keys in the table, \(model.count) in the model")
                return
            }
        }
        for (key, answer) in model {
            #expect(table[key] == answer)
            #expect(table.slot(forKey: key).map { table[locationAt: $0] } == locations[key] ?? ImportKeyTable.noLocation)
        }
        var seen: [AttributeValue: IndexedKey] = [:]
        for (key, answer) in table { #expect(seen.updateValue(answer, forKey: key) == nil, "\(key) twice") }
        #expect(seen == model)
        #expect(table.isEmpty == model.isEmpty)
    }

    @Test func aLiteralAndAnEmptyTable() {
        let table: ImportKeyTable = [.integer(1): .absent, .string("a"): .absent]
        #expect(table.count == 2)
        #expect(table[.integer(1)] == .absent)
        #expect(table[.double(1)] == nil, "a double is another key than the integer")
        #expect(ImportKeyTable().isEmpty)
    }
}

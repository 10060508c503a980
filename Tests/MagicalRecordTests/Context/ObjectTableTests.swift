import MagicalStore
import Testing
@testable import MagicalRecord

/// The registry's table against a dictionary: the same objects by id through random
/// inserts, replacements, removals and sweeps, with ids crowded onto few numbers and the
/// same numbers under two entities.
@Suite struct ObjectTableTests {
    final class Entry: ObjectIdentified {
        let objectID: ObjectID
        init(_ objectID: ObjectID) { self.objectID = objectID }
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func matchesADictionary(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var table = ObjectTable<Entry>()
        // The table's objects by identity (a reference here would keep them alive).
        var model: [ObjectID: ObjectIdentifier] = [:]
        // Objects someone besides the table holds: a sweep keeps exactly these.
        var held: [ObjectID: Entry] = [:]
        let numbers = Int64.random(in: 8...3_000, using: &random)
        func randomID() -> ObjectID {
            ObjectID(entityName: Bool.random(using: &random) ? "Person" : "Department", number: Int64.random(in: 1...numbers, using: &random))
        }

        for _ in 0..<(4_000 * testScale) {
            let id = randomID()
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<50:
                let entry = Entry(id)
                table.insert(entry)
                model[id] = ObjectIdentifier(entry)
                if Bool.random(using: &random) { held[id] = entry } else { held[id] = nil }
            case 50..<75:
                #expect(table.remove(id).map(ObjectIdentifier.init) == model.removeValue(forKey: id))
                held[id] = nil
            case 75..<98:
                #expect(table.referencedObject(for: id) === held[id])
            case 98:
                table.removeUnreferenced()
                model = model.filter { held[$0.key] != nil }
            default:
                table.shrink(toHold: Int.random(in: 0...model.count, using: &random))
            }
            guard table.count == model.count else {
                Issue.record("\(table.count) objects in the table, \(model.count) in the model")
                return
            }
        }
        for (id, entry) in model { #expect(table[id].map(ObjectIdentifier.init) == entry) }
        for _ in 0..<200 {
            let id = randomID()
            #expect(table[id].map(ObjectIdentifier.init) == model[id])
        }
        #expect(Set(table.objects.map(ObjectIdentifier.init)) == Set(model.values))
    }

    @Test func aSweepReleasesWhatOnlyTheTableHeld() {
        var table = ObjectTable<Entry>()
        let kept = Entry(ObjectID(entityName: "Person", number: 1))
        table.insert(kept)
        weak var dropped: Entry?
        do {
            let entry = Entry(ObjectID(entityName: "Person", number: 2))
            dropped = entry
            table.insert(entry)
        }
        #expect(dropped != nil, "the table holds it")
        table.removeUnreferenced()
        #expect(dropped == nil)
        #expect(table.count == 1)
        #expect(table.referencedObject(for: kept.objectID) === kept)
    }

    @Test func aTableThatGrewGivesItsRoomBack() {
        var table = ObjectTable<Entry>()
        var entries = (1...5_000).map { Entry(ObjectID(entityName: "Person", number: Int64($0))) }
        entries.forEach { table.insert($0) }
        entries.removeLast(4_990)
        table.removeUnreferenced()
        table.shrink(toHold: 20)
        #expect(table.count == 10)
        for entry in entries { #expect(table[entry.objectID] === entry) }
    }
}

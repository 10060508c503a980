import MagicalStore
import Testing
@testable import MagicalRecord

/// A batch's places by object id answer as a dictionary of them does: objects made with
/// ascending numbers (some given elsewhere between, a few runs far apart), and objects
/// found with numbers anywhere, some entered twice.
@Suite struct EntryPlacesTests {
    @Test func placesAnswerAsADictionary() {
        var generator = SplitMix64(seed: 0x5EED_0007)
        for round in 0..<60 {
            // Numbers are the store's, whatever the entity: one name a round.
            let entity = round % 2 == 0 ? "Person" : "Department"
            var places = EntryPlaces(capacity: 16)
            var reference: [ObjectID: Int] = [:]
            var nextNumber = Int64(generator.next() % 1_000) + 500
            var found: [ObjectID] = []
            for place in 0..<Int(generator.next() % 400) {
                switch generator.next() % 10 {
                case 0..<6:
                    // Made: numbers given elsewhere meanwhile, rarely a great many.
                    nextNumber += generator.next() % 20 == 0 ? Int64(generator.next() % 10_000) : Int64(generator.next() % 3)
                    let id = ObjectID(entityName: entity, number: nextNumber)
                    nextNumber += 1
                    places.noteMade(id, at: place)
                    reference[id] = place
                case 6..<9:
                    // Found: numbered before the batch's own, or once more.
                    let id = found.isEmpty || generator.next() % 4 != 0
                        ? ObjectID(entityName: entity, number: Int64(generator.next() % 500))
                        : found[Int(generator.next() % UInt64(found.count))]
                    found.append(id)
                    let entered = places.noteFound(id, at: place)
                    #expect(entered == reference[id])
                    if reference[id] == nil { reference[id] = place }
                default:
                    let id = ObjectID(entityName: entity, number: Int64(generator.next() % UInt64(nextNumber + 10)))
                    #expect(places[id] == reference[id])
                }
            }
            for (id, place) in reference { #expect(places[id] == place) }
            #expect(places[ObjectID(entityName: entity, number: nextNumber + 1)] == nil)
        }
    }
}

import Dispatch
import Foundation
import Synchronization
import Testing
@testable import MagicalRecord

/// An id holds its entity's name interned (``InternedName``): ids of one name are equal
/// however the name's string was made, on whatever thread, and the name reads back as
/// given; ids of two names are apart even with one number.
@Suite struct ObjectIDNameTests {
    @Test func idsOfOneNameAreEqualHoweverTheNameWasMade() {
        // Longer than a small string: two separately allocated strings of one text.
        let literal = "AnEntityWithAVeryLongName"
        let built = ["AnEntity", "WithAVery", "LongName"].joined()
        let sliced = String("xAnEntityWithAVeryLongNamex".dropFirst().dropLast())
        let ids = [literal, built, sliced].map { ObjectID(entityName: $0, number: 7) }
        #expect(ids.allSatisfy { $0 == ids[0] })
        #expect(Set(ids).count == 1)
        #expect(ids.allSatisfy { $0.entityName == literal })
        // Strings are equal by canonical equivalence, and so are the ids they name.
        #expect(ObjectID(entityName: "Caf\u{E9}", number: 1) == ObjectID(entityName: "Cafe\u{301}", number: 1))
    }

    @Test func idsOfTwoNamesAreApartWithOneNumber() {
        let person = ObjectID(entityName: "Person", number: 3)
        let department = ObjectID(entityName: "Department", number: 3)
        #expect(person != department)
        #expect(Set([person, department]).count == 2)
        #expect(person.entityName == "Person")
        #expect(department.entityName == "Department")
        #expect(ObjectID(entityName: "", number: 3) != person)
    }

    @Test func idsMadeOnManyThreadsAtOnceAgree() {
        // Names no other test interns, so every thread races to intern them first.
        let prefix = "Raced\(UUID().uuidString.prefix(8))"
        let names = (0..<64).map { "\(prefix)Entity\($0)" }
        let made = Mutex<[[ObjectID]]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let ids = names.map { ObjectID(entityName: $0, number: 1) }
            made.withLock { $0.append(ids) }
        }
        let rounds = made.withLock { $0 }
        #expect(rounds.count == 8)
        for round in rounds { #expect(round == rounds[0]) }
        #expect(Set(rounds[0]).count == names.count)
        #expect(rounds[0].map(\.entityName) == names)
    }

    @Test func anEntitysIDsEqualIDsMadeFromItsName() throws {
        let model = try ObjectModel(entities: [EntityDescription("Gadget") { AttributeDescription("gadgetID", .integer64) }])
        let entity = try #require(model.entity(named: "Gadget"))
        let fromEntity = ObjectID(entityName: entity.internedName, number: 9)
        #expect(fromEntity == ObjectID(entityName: "Gadget", number: 9))
        #expect(fromEntity.isOf(entity.internedName))
        #expect(!ObjectID(entityName: "Widget", number: 9).isOf(entity.internedName))
    }
}

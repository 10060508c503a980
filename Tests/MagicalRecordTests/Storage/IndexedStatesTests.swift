import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// An import's look-up of a batch of keys (`StoreSnapshot.statesByIndexedValue`): every
/// stored state holding one of the values, once each and in number order, and each value
/// no object holds, against a reference of what was saved. Ages repeat, so values with
/// several objects and values with none come up in every round.
@Suite struct IndexedStatesTests {
    @Test func everyStateHoldingAValueAndEveryAbsentValue() throws {
        let stack = try FetchStack()
        var random = SystemRandomNumberGenerator()
        var ageByNumber: [Int64: Int64] = [:]
        for id in 1...300 {
            let age = Int64.random(in: 20...80, using: &random)
            let object = try stack.main.insert("Employee", ["employeeID": .integer(Int64(id)), "age": .integer(age)])
            ageByNumber[object.objectID.number] = age
        }
        try stack.main.saveToPersistentStore()
        let snapshot = try stack.store.snapshot()
        let agePosition = try #require(FetchModel.model.entity(named: "Employee")?.slot(ofAttribute: "age"))
        for _ in 0..<20 {
            let ages = Set((0..<Int.random(in: 0...40, using: &random)).map { _ in Int64.random(in: 10...90, using: &random) })
            var absent: [Int64] = []
            var found: [(number: Int64, age: AttributeValue)] = []
            try snapshot.statesByIndexedValue("Employee", "age", ages.shuffled().map(AttributeValue.integer)) { value in
                guard case .integer(let age) = value else {
                    Issue.record("not an age: \(value)")
                    return
                }
                absent.append(age)
            } found: { state in
                found.append((state.id.number, state.attributes[agePosition]))
            }
            let holding = ageByNumber.filter { ages.contains($0.value) }
            #expect(found.map(\.number) == holding.keys.sorted())
            #expect(found.allSatisfy { $0.age == .integer(ageByNumber[$0.number] ?? -1) })
            #expect(absent.sorted() == ages.filter { age in !ageByNumber.values.contains(age) }.sorted())
        }
    }

    /// Values may repeat (a batch's keys are collected without a set): each distinct value
    /// is reported absent once, and each state found once. Text values take the look-up's
    /// byte-ordered path, integers its numeric one.
    @Test(arguments: [false, true]) func repeatedValuesAreLookedUpOnce(asText: Bool) throws {
        let stack = try FetchStack()
        let attribute = asText ? "lastName" : "age"
        func value(_ age: Int) -> AttributeValue { asText ? .string("n\(age)") : .integer(Int64(age)) }
        var numbers: [Int64] = []
        for (index, age) in [30, 31, 31, 45].enumerated() {
            let object = try stack.main.insert("Employee", ["employeeID": .integer(Int64(index + 1)), attribute: value(age)])
            numbers.append(object.objectID.number)
        }
        try stack.main.saveToPersistentStore()
        var absent: [AttributeValue] = []
        var found: [Int64] = []
        let values = [31, 50, 30, 31, 50, 50, 45, 31, 99, 30].map(value)
        try stack.store.snapshot().statesByIndexedValue("Employee", attribute, values) { absent.append($0) } found: { found.append($0.id.number) }
        #expect(absent.count == 2 && Set(absent) == [value(50), value(99)])
        #expect(found == numbers)
    }
}

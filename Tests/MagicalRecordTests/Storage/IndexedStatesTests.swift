import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// An import's look-up of a batch of keys (`StoreSnapshot.statesByIndexedValue`): each
/// value gets every stored state holding it, in number order, and whether the index has it
/// at all, against a reference grouping of what was saved. Ages repeat, so values with
/// several objects and values with none come up in every round.
@Suite struct IndexedStatesTests {
    @Test func eachValueGetsEveryStateHoldingIt() throws {
        let stack = try FetchStack()
        var random = SystemRandomNumberGenerator()
        var numbersByAge: [Int64: [Int64]] = [:]
        for id in 1...300 {
            let age = Int64.random(in: 20...80, using: &random)
            let object = try stack.main.insert("Employee", ["employeeID": .integer(Int64(id)), "age": .integer(age)])
            numbersByAge[age, default: []].append(object.objectID.number)
        }
        try stack.main.saveToPersistentStore()
        let snapshot = try stack.store.snapshot()
        let agePosition = try #require(FetchModel.model.entity(named: "Employee")?.slot(ofAttribute: "age"))
        for _ in 0..<20 {
            let ages = Set((0..<Int.random(in: 0...40, using: &random)).map { _ in Int64.random(in: 10...90, using: &random) }).sorted()
            var seen: [Int64] = []
            try snapshot.statesByIndexedValue("Employee", "age", ages.map(AttributeValue.integer)) { value, states, isIndexed in
                guard case .integer(let age) = value else {
                    Issue.record("not an age: \(value)")
                    return
                }
                seen.append(age)
                let expected = numbersByAge[age]?.sorted() ?? []
                #expect(states.map(\.id.number) == expected, "age \(age)")
                #expect(states.allSatisfy { $0.attributes[agePosition] == value })
                #expect(isIndexed == !expected.isEmpty)
            }
            #expect(seen == ages)
        }
    }
}

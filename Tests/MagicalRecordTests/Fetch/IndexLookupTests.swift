import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// `findFirst(byAttribute:withValue:)`'s short way through an index: the same answer as
/// the general fetch for every attribute, value and state of unsaved changes, and the
/// general fetch whenever the short way cannot be sure.
@Suite struct IndexLookupTests {
    final class IndexedSample: ManagedObject {
        override class var entityName: String { "Sample" }
    }

    private static let days = ["2020-01-01", "2021-06-15", "2022-12-31"].map(utcDay)

    /// A random Sample: small value domains, so lookups find duplicates and misses.
    private static func randomValues(_ id: Int64, _ random: inout SplitMix64) -> [String: AttributeValue] {
        func maybe(_ value: AttributeValue) -> AttributeValue { random.next() % 5 == 0 ? .null : value }
        return [
            "sampleID": .integer(id),
            "small": maybe(.integer(Int64(random.next() % 7) - 3)),
            "big": maybe(.integer(Int64(random.next() % 5) * 1_000_000_007)),
            "name": maybe(.string(["a", "b", "c", "", "é"][Int(random.next() % 5)])),
            "day": maybe(days[Int(random.next() % 3)]),
            "ratio": maybe(.double([0.5, -0.0, 0.0][Int(random.next() % 3)])),
            "flag": maybe(.bool(random.next() % 2 == 0)),
        ]
    }

    /// Values a lookup may be given: of the attribute's type or not, in range or not.
    private static func randomArgument(_ random: inout SplitMix64) -> (any PredicateArgumentConvertible)? {
        let choices: [(any PredicateArgumentConvertible)?] = [
            nil, 0, 1, -3, 3, 4, 40_000, Int64(1_000_000_007), Int64(4_000_000_028), 2.0, 2.5, 0.5, -0.0,
            "a", "b", "", "e\u{301}", "é", "zz", true, false,
            Date(timeIntervalSince1970: 1_577_836_800), Date(timeIntervalSince1970: 1),
        ]
        return choices[Int(random.next() % UInt64(choices.count))]
    }

    private static let attributes = ["sampleID", "small", "big", "name", "day", "ratio", "flag", "note"]

    /// Saved samples, then a random mix of unsaved changes in the main context and in a
    /// child: every lookup through `findFirst` equals the general fetch's first object.
    @Test(arguments: 0..<12) func findFirstAnswersAsTheGeneralFetchDoes(seed: UInt64) throws {
        ObjectClassRegistry.register(IndexedSample.self)
        var random = SplitMix64(seed: seed &* 7919 &+ 1)
        let stack = try FetchStack()
        for id in 0..<Int64(60) {
            try stack.main.insert("Sample", Self.randomValues(id, &random))
        }
        try stack.main.saveToPersistentStore()
        let child = stack.child()
        let changing = [nil, stack.main, child][Int(seed % 3)]
        if let changing {
            let existing = try changing.fetch(FetchRequest(entityName: "Sample"))
            for _ in 0..<3 {
                let object = existing[Int(random.next() % UInt64(existing.count))]
                switch random.next() % 3 {
                case 0: try changing.delete(object)
                case 1: for (key, value) in Self.randomValues(Int64(random.next() % 80), &random) { try object.setValue(value, forKey: key) }
                default: try changing.insert("Sample", Self.randomValues(Int64(60 + random.next() % 20), &random))
                }
            }
        }
        var shortWays = 0
        for context in [stack.root, stack.main, child] {
            for _ in 0..<150 {
                let attribute = Self.attributes[Int(random.next() % UInt64(Self.attributes.count))]
                let value = Self.randomArgument(&random)
                // A type mismatch is the general fetch's error, which the short way must leave to it.
                let general = Result { () throws(MagicalRecordError) in
                    try context.fetch(try IndexedSample.requestFirst(byAttribute: attribute, withValue: value)).first
                }
                if try context.firstObjectThroughIndex(entityName: "Sample", attribute: attribute, value: value) != nil { shortWays += 1 }
                let found = Result { () throws(MagicalRecordError) in try IndexedSample.findFirst(byAttribute: attribute, withValue: value, in: context) }
                let lookup = "\(attribute) == \(String(describing: value)) in \(context === stack.root ? "root" : context === stack.main ? "main" : "child")"
                switch (found, general) {
                case (.success(let found), .success(let general)):
                    #expect(found?.objectID == general?.objectID, "\(lookup)")
                    #expect(found === general, "the registered object, not a copy: \(lookup)")
                case (.failure(let found), .failure(let general)):
                    #expect("\(found)" == "\(general)", "\(lookup)")
                default:
                    Issue.record("\(lookup): findFirst \(found), general fetch \(general)")
                }
            }
        }
        #expect(shortWays > 20, "the short way was taken \(shortWays) times")
    }

    @Test func theShortWayTakesTheLowestNumberAmongEqualValuesAndTheRegisteredObject() throws {
        ObjectClassRegistry.register(IndexedSample.self)
        let stack = try FetchStack()
        let first = try stack.main.insert("Sample", ["sampleID": .integer(1), "name": .string("same")])
        try stack.main.insert("Sample", ["sampleID": .integer(2), "name": .string("same")])
        try stack.main.saveToPersistentStore()

        let answer = try stack.main.firstObjectThroughIndex(entityName: "Sample", attribute: "name", value: "same")
        #expect(answer??.objectID == first.objectID)
        #expect(answer! === first)
        let missing = try stack.main.firstObjectThroughIndex(entityName: "Sample", attribute: "name", value: "other")
        #expect(missing != nil && missing! == nil, "a miss is an answer, not a decline")

        let fresh = try #require(try IndexedSample.findFirst(byAttribute: "sampleID", withValue: 2, in: stack.root))
        #expect(fresh["name"] == .string("same"))
        #expect(try IndexedSample.findFirst(byAttribute: "sampleID", withValue: 2, in: stack.root) === fresh)
        // A context given as an optional takes the overload that resolves it: the same answer.
        let optional: ManagedObjectContext? = stack.root
        #expect(try IndexedSample.findFirst(byAttribute: "sampleID", withValue: 2, in: optional) === fresh)
        #expect(try IndexedSample.findFirst(byAttribute: "sampleID", withValue: 3, in: optional) == nil)
    }

    @Test func unsavedChangesAnywhereInTheChainTakeTheGeneralFetch() throws {
        let stack = try FetchStack()
        try stack.main.insert("Sample", ["sampleID": .integer(1), "name": .string("kept")])
        try stack.main.saveToPersistentStore()
        let child = stack.child()
        #expect(try child.firstObjectThroughIndex(entityName: "Sample", attribute: "name", value: "kept") != nil)

        let added = try stack.main.insert("Sample", ["sampleID": .integer(2), "name": .string("new")])
        #expect(try child.firstObjectThroughIndex(entityName: "Sample", attribute: "name", value: "new") == nil)
        #expect(try child.fetch(try IndexedSample.requestFirst(byAttribute: "name", withValue: "new")).first?.objectID == added.objectID)
        // Changes of another entity leave the short way open.
        #expect(try child.firstObjectThroughIndex(entityName: "Department", attribute: "name", value: "x") != nil)
    }

    @Test func declinesWhatOnlyTheGeneralFetchAnswersExactly() throws {
        let stack = try FetchStack()
        try stack.main.insert("Sample", ["sampleID": .integer(1), "small": .integer(2), "ratio": .double(0)])
        try stack.main.saveToPersistentStore()
        let main = stack.main
        #expect(try main.firstObjectThroughIndex(entityName: "Sample", attribute: "small", value: 2.0) == nil, "a double for an integer")
        #expect(try main.firstObjectThroughIndex(entityName: "Sample", attribute: "small", value: 40_000) == nil, "out of Integer 16's range")
        #expect(try main.firstObjectThroughIndex(entityName: "Sample", attribute: "ratio", value: -0.0) == nil, "-0.0 and 0.0 index apart")
        #expect(try main.firstObjectThroughIndex(entityName: "Sample", attribute: "note", value: "x") == nil, "not indexed")
        #expect(try main.firstObjectThroughIndex(entityName: "Animal", attribute: "legs", value: 4) == nil, "subentities")
        #expect(try main.firstObjectThroughIndex(entityName: "Sample", attribute: "small", value: [1, 2]) == nil, "a list")
        #expect(try main.firstObjectThroughIndex(entityName: "Nothing", attribute: "small", value: 2) == nil)
    }
}

import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// The planner: which index a fetch reads (equality, IN, ranges and BETWEEN on indexed
/// attributes and the entity's key), when it reads an index in order and stops early, and
/// that whatever it chooses, fetches return what a plain reference model says.
@Suite struct FetchPlannerTests {
    /// A stack with a few saved Samples, so every index exists and has entries.
    private func sampleStack() throws -> FetchStack {
        let stack = try FetchStack()
        for number in 1...5 {
            try stack.main.insert("Sample", ["sampleID": .integer(Int64(number)), "small": .integer(Int64(number)), "note": .string("x")])
        }
        try stack.main.saveToPersistentStore()
        return stack
    }

    private func plan(
        _ context: ManagedObjectContext, _ entity: String = "Sample", _ format: String? = nil,
        _ arguments: (any PredicateArgumentConvertible)?..., sortedBy sortString: String = "", limit: Int = 0
    ) throws -> String {
        var request = try fetchRequest(entity, sortedBy: sortString, limit: limit)
        request.predicate = try format.map { try ObjectPredicate(format: $0, argumentArray: arguments) }
        return try context.plan(for: request)
    }

    // MARK: Which index

    @Test(arguments: [
        ("small == 5", "index small (1 range)"),
        ("sampleID == 7", "index sampleID (1 range)"),
        ("small IN {1, 2, 2, 3}", "index small (3 ranges)"),
        ("small IN {1, 2.5}", "index small (1 range)"),
        ("small IN {}", "index small (0 ranges)"),
        ("small == nil", "index small (1 range)"),
        ("small > 5", "index small (1 range)"),
        ("small <= 5.5", "index small (1 range)"),
        ("5 < small", "index small (1 range)"),
        ("small BETWEEN {1, 5}", "index small (1 range)"),
        ("small BETWEEN {5, 1}", "index small (1 range)"),
        ("small > 1 AND small < 9", "index small (1 range)"),
        ("small < 70000", "index small (1 range)"),
        ("big >= 9007199254740993", "index big (1 range)"),
        ("name == 'a'", "index name (1 range)"),
        ("name < 'b'", "index name (1 range)"),
        ("day >= '2024-01-05'", "index day (1 range)"),
        ("ratio < 0.5", "index ratio (1 range)"),
        ("amount == 1.25", "index amount (1 range)"),
        ("flag == YES", "index flag (1 range)"),
        ("flag == 1", "index flag (1 range)"),
    ])
    func aComparisonWithAConstantReadsTheIndex(format: String, expected: String) throws {
        let stack = try sampleStack()
        #expect(try plan(stack.main, "Sample", format) == expected)
    }

    @Test(arguments: [
        "TRUEPREDICATE", "small != 5", "small > 5 OR big > 5", "NOT small == 5", "note == 'x'", "name ==[c] 'a'",
        "name BEGINSWITH 'a'", "small > big", "small == 70000", "small == 5 OR small == 6", "NOT (small > 5 AND big > 5)",
        "small > nil", "small == sampleID", "name == 'a' OR name == 'b'",
    ])
    func aComparisonTheIndexCannotAnswerScans(format: String) throws {
        let stack = try sampleStack()
        #expect(try plan(stack.main, "Sample", format) == "scan")
    }

    @Test func keyPathsAndModifiersScan() throws {
        let stack = try FetchStack()
        _ = try Company(in: stack.main)
        try stack.main.saveToPersistentStore()
        #expect(try plan(stack.main, "Employee", "department.name == 'Sales'") == "scan")
        #expect(try plan(stack.main, "Department", "ANY employees.age == 41") == "scan")
        #expect(try plan(stack.main, "Department", "name == 'Sales'") == "index name (1 range)")
        #expect(try plan(stack.main, "Employee", "department == nil") == "scan")
    }

    @Test func theCheapestConjunctIsChosen() throws {
        let stack = try sampleStack()
        let cases: [(String, String)] = [
            ("small > 5 AND name == 'a'", "index name (1 range)"),
            ("small IN {1, 2} AND big > 3", "index small (2 ranges)"),
            ("small > 1 AND big > 1 AND big < 9", "index big (1 range)"),
            ("big > 1 AND small BETWEEN {1, 3}", "index small (1 range)"),
            ("small == 1 AND big == 2", "index small (1 range)"),
            ("big == 2 AND small == 1", "index big (1 range)"),
            ("small IN {1, 2, 3} AND big IN {4}", "index small (3 ranges)"),
            ("note == 'x' AND small > 3", "index small (1 range)"),
            ("(small > 5 AND (big == 3 AND note == 'y')) AND name > 'a'", "index big (1 range)"),
            ("small > 5 AND (big == 3 OR name == 'a')", "index small (1 range)"),
            ("small == 40.5 AND big == 1", "nothing"),
            ("big == 1 AND sampleID == 2.5", "nothing"),
        ]
        for (format, expected) in cases {
            #expect(try plan(stack.main, "Sample", format) == expected, "\(format)")
        }
    }

    @Test func anEqualityNoValueOfTheTypeMeetsFindsNothing() throws {
        let stack = try sampleStack()
        for format in ["small == 40.5", "sampleID == 0.5", "big == -3.25"] {
            let request = try fetchRequest("Sample", format)
            #expect(try stack.main.plan(for: request) == "nothing")
            #expect(try stack.main.fetchObjectIDs(request) == [])
            #expect(try stack.main.count(for: request) == 0)
        }
        let fraction = try fetchRequest("Sample", "small > 3.5 AND small < 4.5")
        #expect(try stack.main.plan(for: fraction) == "index small (1 range)")
        #expect(try stack.main.fetch(fraction).map { $0["small"] } == [.integer(4)])
    }

    @Test func anIndexSpansTheSubentitiesOfTheFetchedEntity() throws {
        let stack = try FetchStack()
        let rex = try stack.main.insert("Dog", ["legs": .integer(4)])
        _ = try stack.main.insert("Dog", ["legs": .integer(3)])
        let tom = try stack.main.insert("Cat", ["legs": .integer(4)])
        try stack.main.saveToPersistentStore()
        let fourLegs = try fetchRequest("Animal", "legs == 4")
        #expect(try stack.main.plan(for: fourLegs) == "index legs (1 range)")
        #expect(try stack.main.fetchObjectIDs(fourLegs) == [rex.objectID, tom.objectID])
        #expect(try stack.main.fetchObjectIDs(fetchRequest("Cat", "legs > 3")) == [tom.objectID])
    }

    /// The index prefix of "a" is a prefix of the entries of "a\0" and "a\0b" (NUL is
    /// escaped as 00 FF after the terminator 00), so reading the ranges of an IN list
    /// holding both finds those objects once per range.
    @Test func inListsOfStringsThatPrefixEachOtherFindEachObjectOnce() throws {
        let stack = try FetchStack()
        let names = ["a", "a\u{0}", "a\u{0}b", "b"]
        let samples = try names.enumerated().map { index, name in
            try stack.main.insert("Sample", ["sampleID": .integer(Int64(index + 1)), "name": .string(name)])
        }
        try stack.main.saveToPersistentStore()
        let request = try fetchRequest("Sample", "name IN %@", ["a", "a\u{0}", "a\u{0}b"])
        #expect(try stack.main.plan(for: request) == "index name (3 ranges)")
        let fetched = try stack.main.fetchObjectIDs(request)
        let counted = try stack.main.count(for: request)
        #expect(fetched == samples[0..<3].map(\.objectID))
        #expect(counted == 3)
        #expect(try stack.main.fetchObjectIDs(fetchRequest("Sample", "name == %@", "a")) == [samples[0].objectID])
    }

    // MARK: Reading in index order

    @Test func aLimitedFetchSortedByAnIndexedAttributeReadsItsIndexInOrder() throws {
        let stack = try sampleStack()
        let cases: [(format: String?, sortString: String, limit: Int, expected: String)] = [
            (nil, "small", 5, "scan, in index order of small"),
            (nil, "small:NO,name", 5, "scan, in index order of small"),
            (nil, "name", 1, "scan, in index order of name"),
            (nil, "day:NO", 1, "scan, in index order of day"),
            (nil, "big", 1, "scan, in index order of big"),
            (nil, "flag", 1, "scan, in index order of flag"),
            (nil, "sampleID:NO", 1, "scan, in index order of sampleID"),
            ("note == 'x'", "small", 5, "scan, in index order of small"),
            (nil, "small", 0, "scan"),
            (nil, "note,small", 5, "scan"),
            (nil, "ratio", 5, "scan"),
            (nil, "amount", 5, "scan"),
            ("big > 3", "small", 5, "index big (1 range)"),
        ]
        for (format, sortString, limit, expected) in cases {
            #expect(try plan(stack.main, "Sample", format, sortedBy: sortString, limit: limit) == expected, "\(format ?? "-") \(sortString) \(limit)")
        }

        var distinct = try fetchRequest("Sample", sortedBy: "small", limit: 2)
        distinct.resultType = .dictionaries
        distinct.returnsDistinctResults = true
        #expect(try stack.main.plan(for: distinct) == "scan")
    }

    @Test func onlyUnsavedChangesOfTheFetchedEntityRuleOutAnOrderedRead() throws {
        let stack = try sampleStack()
        try stack.main.insert("Employee", ["employeeID": .integer(1)])
        #expect(try plan(stack.main, sortedBy: "small", limit: 2) == "scan, in index order of small")
        let child = stack.child()
        try child.insert("Sample", ["sampleID": .integer(99)])
        #expect(try plan(child, sortedBy: "small", limit: 2) == "scan")
        #expect(try plan(stack.main, sortedBy: "small", limit: 2) == "scan, in index order of small")
    }

    @Test func anEntityWithSubentitiesIsNotReadInIndexOrder() throws {
        let stack = try FetchStack()
        let rex = try stack.main.insert("Dog", ["legs": .integer(4)])
        let tom = try stack.main.insert("Cat", ["legs": .integer(3)])
        try stack.main.saveToPersistentStore()
        #expect(try plan(stack.main, "Animal", sortedBy: "legs", limit: 1) == "scan")
        #expect(try stack.main.fetchObjectIDs(fetchRequest("Animal", sortedBy: "legs", limit: 1)) == [tom.objectID])
        #expect(try plan(stack.main, "Dog", sortedBy: "legs", limit: 1) == "scan, in index order of legs")
        #expect(try stack.main.fetchObjectIDs(fetchRequest("Dog", sortedBy: "legs", limit: 1)) == [rex.objectID])
    }

    /// Ties on the first sort key at the limit's edge: the ordered read must see the whole
    /// group, since later keys (and ids) decide which of them make the cut. Each case is
    /// checked against the same fetch without a limit, fully sorted and sliced.
    @Test func anIndexOrderedReadKeepsEveryTieAtTheLimitsEdge() throws {
        let stack = try FetchStack()
        // small: 1 1 1 2 2 2 2 2 3 3 nil nil; names rise with the object number in each group,
        // so a descending second key wants the group's last entries in the index.
        let smalls: [Int64?] = [2, 1, 2, nil, 3, 2, 1, 2, 3, nil, 1, 2]
        for (index, small) in smalls.enumerated() {
            try stack.main.insert("Sample", [
                "sampleID": .integer(Int64(index + 1)), "small": small.map(AttributeValue.integer) ?? .null,
                "name": .string(String(UnicodeScalar(UInt8(97 + index)))), "note": .string(index % 3 == 0 ? "y" : "x"),
            ])
        }
        try stack.main.saveToPersistentStore()

        for sortString in ["small,name:NO", "small:NO,name:NO", "small,name", "small:NO,sampleID", "small", "small:NO"] {
            for format in [nil, "note == 'x'"] {
                var full = try fetchRequest("Sample", sortedBy: sortString)
                full.predicate = try format.map { try ObjectPredicate(format: $0) }
                let everything = try stack.main.fetchObjectIDs(full)
                for limit in 1...6 {
                    for offset in [0, 1, 3, 7] {
                        var limited = full
                        limited.fetchLimit = limit
                        limited.fetchOffset = offset
                        #expect(try stack.main.plan(for: limited) == "scan, in index order of small")
                        let expected = Array(everything.dropFirst(offset).prefix(limit))
                        #expect(try stack.main.fetchObjectIDs(limited) == expected, "\(sortString) \(format ?? "") limit \(limit) offset \(offset)")
                    }
                }
            }
        }
    }

    // MARK: Against the reference model

    /// Random Samples (nils and duplicates), random predicates (==, !=, <, <=, >, >=, IN,
    /// BETWEEN, AND, OR, NOT; constants of other numeric kinds, past the type's range, nil;
    /// dates given as strings), random sort keys, limits and offsets: every fetch, count and
    /// plan must give what the reference model gives, in the same order. In the store, with
    /// unsaved changes in the main context, with more in a child, and without pending
    /// changes; each seed with scans on one thread and in parts on three. Seeds 1 through
    /// MAGICALRECORD_TEST_SCALE replay exactly.
    @Test func fetchesEqualTheReferenceModelWhateverThePlan() throws {
        var coverage = PlanCoverage()
        for seed in 1...UInt64(testScale) {
            for inParts in [false, true] {
                var run = try RandomFetchRun(seed: seed, scansInParts: inParts)
                try run.check(&coverage)
            }
        }
        #expect(coverage.index > 0 && coverage.ordered > 0 && coverage.nothing > 0 && coverage.scan > 0, "\(coverage)")
    }
}

/// How often each kind of plan came up in the property test: each must.
private struct PlanCoverage {
    var scan = 0
    var index = 0
    var ordered = 0
    var nothing = 0

    mutating func note(_ plan: String) {
        if plan.hasPrefix("index") { index += 1 }
        if plan.hasPrefix("nothing") { nothing += 1 }
        if plan.contains("in index order") { ordered += 1 } else if plan == "scan" { scan += 1 }
    }
}

/// One seed of the property test: a store of random Samples, then rounds of random
/// fetches, each checked against the rows the context should see.
private struct RandomFetchRun {
    static let objects = 150
    static let queries = 50

    let seed: UInt64
    let scansInParts: Bool
    let stack: FetchStack
    var samples: RandomSamples
    var usedIDs: Set<Int64> = []
    var failures = 0

    init(seed: UInt64, scansInParts: Bool) throws {
        self.seed = seed
        self.scansInParts = scansInParts
        stack = scansInParts ? try FetchStack(scanThreads: 3, entriesPerThread: 10) : try FetchStack()
        samples = RandomSamples(seed: seed)
    }

    mutating func check(_ coverage: inout PlanCoverage) throws {
        var saved: [ObjectID: SampleRow] = [:]
        for _ in 0..<Self.objects { try insert(into: &saved, in: stack.main) }
        try stack.main.saveToPersistentStore()
        try fetch(in: stack.main, seeing: saved, "saved, main context", Self.queries, &coverage)
        try fetch(in: stack.root, seeing: saved, "saved, root context", Self.queries / 2, &coverage)

        var inMain = saved
        try change(&inMain, in: stack.main)
        try fetch(in: stack.main, seeing: inMain, "unsaved in the main context", Self.queries, &coverage)
        try fetch(in: stack.main, seeing: saved, "without pending changes", Self.queries / 2, &coverage, includesPendingChanges: false)

        let child = stack.child()
        var inChild = inMain
        try change(&inChild, in: child)
        try fetch(in: child, seeing: inChild, "unsaved in a child and its parent", Self.queries, &coverage)
        try fetch(in: stack.main, seeing: inMain, "the parent of a changed child", Self.queries / 2, &coverage)
        try fetch(in: child, seeing: saved, "a child without pending changes", Self.queries / 4, &coverage, includesPendingChanges: false)
    }

    private mutating func fetch(
        in context: ManagedObjectContext, seeing rows: [ObjectID: SampleRow], _ phase: String, _ count: Int,
        _ coverage: inout PlanCoverage, includesPendingChanges: Bool = true
    ) throws {
        for number in 0..<count where failures < 5 {
            let query = samples.query()
            var request = try query.request()
            request.includesPendingChanges = includesPendingChanges
            let expected = query.expected(in: rows.values)
            let label = "seed \(seed)\(scansInParts ? " (scans in parts)" : ""), \(phase), query \(number): \(query)"
            do {
                let plan = try context.plan(for: request)
                coverage.note(plan)
                let fetched = number.isMultiple(of: 4) ? try context.fetch(request).map(\.objectID) : try context.fetchObjectIDs(request)
                let counted: Int? = number.isMultiple(of: 2) ? try context.count(for: request) : nil
                guard fetched != expected || (counted ?? expected.count) != expected.count else { continue }
                let report = """
                    \(label); plan \(plan)
                    expected \(expected.map(\.number))
                    fetched  \(fetched.map(\.number)), counted \(counted.map(String.init) ?? "-")
                    """
                failures += 1
                Issue.record(Comment(rawValue: report))
            } catch {
                failures += 1
                Issue.record("\(label): \(error)")
            }
        }
    }

    private mutating func insert(into rows: inout [ObjectID: SampleRow], in context: ManagedObjectContext) throws {
        var sampleID: Int64
        repeat { sampleID = Int64.random(in: 1...RandomSamples.sampleIDs, using: &samples.random) } while usedIDs.contains(sampleID)
        usedIDs.insert(sampleID)
        var values = samples.values()
        values[.sampleID] = .integer(sampleID)
        let object = try context.insert("Sample", Dictionary(uniqueKeysWithValues: values.map { ($0.key.rawValue, $0.value) }))
        rows[object.objectID] = SampleRow(id: object.objectID, values: values)
    }

    /// Unsaved changes in `context`: updates to about one object in seven, deletes of
    /// about one in twelve, and a few inserts.
    private mutating func change(_ rows: inout [ObjectID: SampleRow], in context: ManagedObjectContext) throws {
        for id in rows.keys.sorted() {
            switch Int.random(in: 0..<84, using: &samples.random) {
            case 0..<12:
                let object = try context.existingObject(with: id)
                for _ in 0..<Int.random(in: 1...3, using: &samples.random) {
                    let column = samples.pick(SampleColumn.allCases.filter { $0 != .sampleID })
                    let value = samples.value(for: column)
                    try object.setValue(value, forKey: column.rawValue)
                    rows[id]?.values[column] = value
                }
            case 12..<19:
                try context.delete(context.existingObject(with: id))
                rows[id] = nil
            default:
                continue
            }
        }
        for _ in 0..<15 { try insert(into: &rows, in: context) }
    }
}

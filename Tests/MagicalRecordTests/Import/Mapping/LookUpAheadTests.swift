import Foundation
import Testing
@testable import MagicalRecord

/// A direct import batch's keys are looked up on the reading thread while the batch
/// before commits: brought up to that commit (the keys it wrote, and those of objects it
/// changed, looked up again), the batch imports as if looked up in turn; after any other
/// commit in between, its keys are looked up afresh.
@Suite struct LookUpAheadTests {
    static let first = [
        #"{"staffID": 1, "name": "Ada", "deptID": 1}"#, #"{"staffID": 2, "name": "Bo", "deptID": 1, "mentorID": 1}"#,
        #"{"staffID": 3, "name": "Cy", "deptID": 2}"#, #"{"staffID": 4, "name": "Di"}"#,
    ]
    /// Renames one of the first batch, moves one, makes new ones naming both old and new.
    static let second = [
        #"{"staffID": 1, "name": "Ada L"}"#, #"{"staffID": 3, "deptID": 3, "mentorID": 6}"#,
        #"{"staffID": 5, "name": "Ed", "deptID": 2, "mentorID": 2}"#, #"{"staffID": 6, "name": "Fa", "deptID": 1}"#,
        #"{"staffID": 4, "name": "Di"}"#,
    ]

    private func records(_ texts: [String]) throws -> [ImportRecord] {
        try texts.enumerated().map { ImportRecord(index: $0, value: try JSONReader().read($1)) }
    }

    private func importer(_ stack: ImportStack) throws -> DirectImporter {
        let entity = try #require(DirectImportTests.model.entity(named: "DirectStaff"))
        return try #require(DirectImporter(
            context: stack.root, options: ImportOptions(commitsEachBatch: true), entity: entity, mappings: ImportMappings(model: DirectImportTests.model)
        ))
    }

    private func summary(_ result: ImportResult) -> String {
        "read \(result.recordsRead) created \(result.created) updated \(result.updated) unchanged \(result.unchanged)"
    }

    /// The two batches imported in turn, each looked up at its own turn.
    private func inTurn() throws -> (ImportStack, String) {
        let stack = try ImportStack(model: DirectImportTests.model)
        let direct = try importer(stack)
        var result = ImportResult()
        try direct.importBatch(records(Self.first), result: &result)
        try direct.importBatch(records(Self.second), result: &result)
        return (stack, summary(result))
    }

    /// The second batch planned and looked up, then the first committed: as the reading
    /// thread and the committing thread may take turns.
    private struct AheadOfFirst {
        let stack: ImportStack
        let direct: DirectImporter
        var result = ImportResult()
        let second: DirectImporter.PlannedBatch
        /// The commit the second batch's look-up was made at.
        let lookedUpAt: UInt64
        let firstCommit: ImportCommit

        init(_ test: LookUpAheadTests) throws {
            stack = try ImportStack(model: DirectImportTests.model)
            direct = try test.importer(stack)
            var second = direct.plan(try test.records(LookUpAheadTests.second))
            direct.lookUpAhead(&second)
            self.second = second
            lookedUpAt = try #require(second.lookup?.transactionID)
            firstCommit = try direct.importBatch(direct.plan(try test.records(LookUpAheadTests.first)), after: nil, result: &result)
        }

        mutating func importSecond() throws {
            _ = try direct.importBatch(second, after: firstCommit, result: &result)
        }
    }

    @Test func aLookUpMadeBeforeTheCommitBeforeIsBroughtUpToIt() throws {
        let (expectedStack, expectedResult) = try inTurn()
        var ahead = try AheadOfFirst(self)
        try ahead.importSecond()
        #expect(ahead.second.lookup?.transactionID == ahead.lookedUpAt + 1, "brought up, not looked up afresh")
        #expect(summary(ahead.result) == expectedResult)
        #expect(try DirectImportTests.dump(ahead.stack) == DirectImportTests.dump(expectedStack))
    }

    @Test func anotherCommitInBetweenMeansAFreshLookUp() throws {
        var ahead = try AheadOfFirst(self)
        // Staff 5 made and saved elsewhere: the second batch must find it, not make another.
        _ = try ahead.stack.main.insert("DirectStaff", ["staffID": .integer(5), "name": .string("elsewhere")])
        try ahead.stack.main.saveToPersistentStore()
        try ahead.importSecond()
        #expect(ahead.second.lookup?.transactionID == ahead.lookedUpAt, "not brought up")
        let fives = try ahead.stack.root.fetch(FetchRequest(entityName: "DirectStaff", predicate: ObjectPredicate(format: "staffID == 5")))
        #expect(fives.map { $0["name"] } == [.string("Ed")])
    }
}

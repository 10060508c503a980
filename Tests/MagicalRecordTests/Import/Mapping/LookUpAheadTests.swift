import Foundation
import Testing
@testable import MagicalRecord

/// A direct import batch's keys are looked up on the reading thread while the batch
/// before commits: brought up to that commit (the keys it wrote, and those of objects it
/// changed, looked up again), the batch imports as if looked up in turn; after any other
/// commit in between, its keys are looked up afresh.
@Suite struct LookUpAheadTests {
    private static let first = [
        #"{"staffID": 1, "name": "Ada", "deptID": 1}"#, #"{"staffID": 2, "name": "Bo", "deptID": 1, "mentorID": 1}"#,
        #"{"staffID": 3, "name": "Cy", "deptID": 2}"#, #"{"staffID": 4, "name": "Di"}"#,
    ]
    /// Renames one of the first batch, moves one, makes new ones naming both old and new.
    private static let second = [
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

    @Test func aLookUpMadeBeforeTheCommitBeforeIsBroughtUpToIt() throws {
        let (expectedStack, expectedResult) = try inTurn()
        let stack = try ImportStack(model: DirectImportTests.model)
        let direct = try importer(stack)
        var result = ImportResult()
        var second = direct.plan(try records(Self.second))
        direct.lookUpAhead(&second)
        let before = try #require(second.lookup?.transactionID)
        let firstCommit = try direct.importBatch(direct.plan(try records(Self.first)), after: nil, result: &result)
        _ = try direct.importBatch(second, after: firstCommit, result: &result)
        #expect(second.lookup?.transactionID == before + 1, "brought up, not looked up afresh")
        #expect(summary(result) == expectedResult)
        #expect(try DirectImportTests.dump(stack) == DirectImportTests.dump(expectedStack))
    }

    @Test func anotherCommitInBetweenMeansAFreshLookUp() throws {
        let stack = try ImportStack(model: DirectImportTests.model)
        let direct = try importer(stack)
        var result = ImportResult()
        var second = direct.plan(try records(Self.second))
        direct.lookUpAhead(&second)
        let before = try #require(second.lookup?.transactionID)
        let firstCommit = try direct.importBatch(direct.plan(try records(Self.first)), after: nil, result: &result)
        // Staff 5 made and saved elsewhere: the second batch must find it, not make another.
        _ = try stack.main.insert("DirectStaff", ["staffID": .integer(5), "name": .string("elsewhere")])
        try stack.main.saveToPersistentStore()
        _ = try direct.importBatch(second, after: firstCommit, result: &result)
        #expect(second.lookup?.transactionID == before, "not brought up")
        let fives = try stack.root.fetch(FetchRequest(entityName: "DirectStaff", predicate: ObjectPredicate(format: "staffID == 5")))
        #expect(fives.map { $0["name"] } == [.string("Ed")])
    }
}

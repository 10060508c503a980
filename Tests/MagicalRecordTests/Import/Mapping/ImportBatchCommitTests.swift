import Foundation
import Testing
@testable import MagicalRecord

/// commitsEachBatch: each batch is its own committed transaction, for inputs too large to
/// hold as unsaved changes; an error undoes only its batch and says what was committed.
@Suite struct ImportBatchCommitTests {
    private func records(_ count: Int, badAt bad: Int? = nil) -> String {
        "[" + (0..<count).map { index in
            index == bad ? #"{"labelID": \#(index), "rating": "bad"}"# : #"{"labelID": \#(index), "title": "L\#(index)"}"#
        }.joined(separator: ",") + "]"
    }

    @Test func eachBatchIsCommittedAsItIsImported() throws {
        let stack = try ImportStack()
        var committedCounts: [Int] = []
        let options = ImportOptions(batchSize: 100, commitsEachBatch: true)
        var committedOnly = FetchRequest(entityName: "Label")
        committedOnly.includesPendingChanges = false
        let result = try stack.root.importRecords(from: Data(records(250).utf8), entityName: "Label", options: options) { _ in
            committedCounts.append((try? stack.root.count(for: committedOnly)) ?? -1)
        }
        #expect(result.created == 250)
        #expect(committedCounts == [100, 200, 250])
        #expect(stack.root.hasChanges == false)
        #expect(try stack.count("Label", in: stack.main) == 250)
    }

    @Test func anErrorUndoesItsBatchOnlyAndSaysWhatWasCommitted() throws {
        let stack = try ImportStack()
        let failure = importFailure { () throws(MagicalRecordError) in
            try stack.root.importRecords(
                from: Data(records(250, badAt: 230).utf8), entityName: "Label", options: ImportOptions(batchSize: 100, commitsEachBatch: true)
            )
        }
        #expect(failure?.recordIndex == 230 && failure?.recordsCommitted == 200)
        #expect(failure?.description.hasSuffix("(the 200 records before its batch were committed)") == true)
        #expect(stack.root.hasChanges == false)
        #expect(try stack.count("Label", in: stack.root) == 200)
    }

    @Test func onlyAnUnchangedRootContextCanCommitEachBatch() throws {
        let stack = try ImportStack()
        let options = ImportOptions(commitsEachBatch: true)
        let child = importFailure { () throws(MagicalRecordError) in
            try stack.main.importRecords(from: Data(records(3).utf8), entityName: "Label", options: options)
        }
        #expect(child?.description.contains("root saving context") == true)
        _ = try stack.root.insertObject(entityName: "Note")
        let busy = importFailure { () throws(MagicalRecordError) in
            try stack.root.importRecords(from: Data(records(3).utf8), entityName: "Label", options: options)
        }
        #expect(busy?.description.contains("without unsaved changes") == true)
        #expect(try stack.count("Label", in: stack.root) == 0)
    }
}

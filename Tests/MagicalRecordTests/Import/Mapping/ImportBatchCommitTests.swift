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

    /// While the next batch is read on a thread of its own, a commit leaves that thread
    /// its core: its records and leaves are encoded on the other cores (on the committing
    /// thread alone with two), and on every core again once the import is over.
    @Test func commitsLeaveACoreToTheThreadReadingAhead() throws {
        let stack = try ImportStack()
        let store = stack.root.stack.store
        let cores = ProcessInfo.processInfo.activeProcessorCount
        #expect(store.commitEncodingThreads == cores)
        var duringCommits: [Int] = []
        try stack.root.importRecords(
            from: Data(records(250).utf8), entityName: "Label", options: ImportOptions(batchSize: 100, commitsEachBatch: true)
        ) { _ in duringCommits.append(store.commitEncodingThreads) }
        #expect(duringCommits == [Int](repeating: max(1, cores - 1), count: 3))
        #expect(store.commitEncodingThreads == cores)
    }

    @Test func laterBatchesFindWhatEarlierOnesCommitted() throws {
        let stack = try ImportStack()
        let text = "[" + (0..<30).map { #"{"labelID": \#($0 % 10), "title": "T\#($0)", "artists": [\#($0 % 4)]}"# }.joined(separator: ",") + "]"
        let result = try stack.root.importRecords(
            from: Data(text.utf8), entityName: "Label", options: ImportOptions(batchSize: 7, commitsEachBatch: true)
        )
        #expect(result.created == 14, "10 labels and 4 artists, each made once")
        #expect(result.objectIDs.isEmpty)
        #expect(try stack.count("Label", in: stack.root) == 10)
        #expect(try stack.count("Artist", in: stack.root) == 4)
        #expect(try stack.object("Label", "labelID", .integer(3), in: stack.root)["name"] == .string("T23"))
        // An artist has one label: the last record naming it wins, across batches.
        for (artist, label) in [(0, 8), (1, 9), (2, 6), (3, 7)] {
            let owner = try stack.object("Artist", "artistID", .integer(Int64(artist)), in: stack.root).relatedObject(forKey: "label")
            #expect(owner?["labelID"] == .integer(Int64(label)), "artist \(artist)")
        }
        let nine = try stack.object("Label", "labelID", .integer(9), in: stack.root)
        #expect(try nine.relatedObjects(forKey: "artists").map { $0["artistID"] } == [.integer(1)])
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

    /// The next batch is read while one commits: a JSON error read ahead is reported after
    /// the batches before it are committed, as if read in turn, and progress tells how far
    /// into the input each committed batch reached.
    @Test func aJSONErrorReadAheadComesAfterTheBatchesBeforeIt() throws {
        let (stack, text, failure, progress) = try importBreakingJSON(atRecord: 230, of: 250, batchSize: 100)
        #expect(failure?.recordsCommitted == 200)
        #expect(try stack.count("Label", in: stack.root) == 200)
        #expect(progress.map(\.recordsRead) == [100, 200])
        let offsets = progress.compactMap(\.bytesRead)
        // The input is ASCII: characters are bytes.
        let ends = [99, 199].compactMap { text.range(of: #""title": "L\#($0)"}"#)?.upperBound.utf16Offset(in: text) }
        #expect(offsets.count == 2 && offsets == offsets.sorted() && offsets.allSatisfy { $0 < text.utf8.count })
        #expect(zip(offsets, ends).allSatisfy { $0 >= $1 }, "\(offsets) past the batches' last records at \(ends)")
        // Not as far as the batch read ahead.
        #expect(offsets.first.map { $0 < ends[1] } == true, "\(offsets) against \(ends)")
    }

    /// The second batch is read while the first is built (``EarlyRead``): a JSON error in
    /// it still comes after the first batch is committed, as if read in turn.
    @Test func aJSONErrorInTheSecondBatchComesAfterTheFirstIsCommitted() throws {
        let batch = EarlyRead<Int>.minimumBatch
        let (stack, _, failure, progress) = try importBreakingJSON(atRecord: batch + batch / 3, of: batch * 2 + 10, batchSize: batch)
        #expect(failure?.recordsCommitted == batch)
        #expect(try stack.count("Label", in: stack.root) == batch)
        #expect(progress.map(\.recordsRead) == [batch])
    }

    /// Imports `count` records in batches of `batchSize` whose JSON breaks at record
    /// `index`; the failure is expected to be a JSON error.
    private func importBreakingJSON(
        atRecord index: Int, of count: Int, batchSize: Int
    ) throws -> (stack: ImportStack, text: String, failure: ImportError?, progress: [ImportProgress]) {
        let stack = try ImportStack()
        let text = records(count).replacingOccurrences(of: #"{"labelID": \#(index),"#, with: #"{"labelID": \#(index),,"#)
        var progress: [ImportProgress] = []
        let failure = importFailure { () throws(MagicalRecordError) in
            try stack.root.importRecords(
                from: Data(text.utf8), entityName: "Label", options: ImportOptions(batchSize: batchSize, commitsEachBatch: true)
            ) { progress.append($0) }
        }
        if case .json? = failure?.reason {} else { Issue.record("expected a JSON error, got \(String(describing: failure))") }
        return (stack, text, failure, progress)
    }

    /// A first batch that fails stops the import while the second is being read: nothing
    /// is committed, and a second import on the same context runs as usual.
    @Test func aFailingFirstBatchStopsTheImportWhileTheSecondIsRead() throws {
        let stack = try ImportStack()
        let batch = EarlyRead<Int>.minimumBatch
        let options = ImportOptions(batchSize: batch, commitsEachBatch: true)
        let failure = importFailure { () throws(MagicalRecordError) in
            try stack.root.importRecords(from: Data(records(batch * 2 + 10, badAt: 30).utf8), entityName: "Label", options: options)
        }
        #expect(failure?.recordIndex == 30 && failure?.recordsCommitted == 0)
        #expect(try stack.count("Label", in: stack.root) == 0)
        let result = try stack.root.importRecords(from: Data(records(batch * 2 + 10).utf8), entityName: "Label", options: options)
        #expect(result.created == batch * 2 + 10)
        #expect(try stack.count("Label", in: stack.root) == batch * 2 + 10)
    }

    /// Many small commits of scattered keys rewrite most tree pages each time: the
    /// import compacts once the superseded pages outweigh the live ones.
    @Test func anImportThatLeftMostlyDeadPagesCompactsTheStore() throws {
        let stack = try ImportStack()
        var random = SeededGenerator(seed: 5)
        let keys = (0..<3_000).shuffled(using: &random)
        let text = "[" + keys.map { #"{"labelID": \#($0), "title": "label \#($0) with a longer title"}"# }.joined(separator: ",") + "]"
        let store = stack.root.stack.store.store
        let compactedBefore = try store.info().fileBytes
        let result = try stack.root.importRecords(from: Data(text.utf8), entityName: "Label", options: ImportOptions(batchSize: 100, commitsEachBatch: true))
        let info = try store.info()
        #expect(info.deadBytes <= info.liveBytes, "\(info.deadBytes) dead bytes, \(info.liveBytes) live")
        #expect(info.fileBytes > compactedBefore)
        // The result says what the compaction did, and how long it took.
        let compaction = try #require(result.compaction)
        #expect(compaction.bytesAfter == info.fileBytes)
        #expect(compaction.bytesBefore > compaction.bytesAfter)
        #expect(compaction.duration > .zero)
        #expect(try stack.count("Label", in: stack.root) == 3_000)
        #expect(try stack.object("Label", "labelID", .integer(2_999), in: stack.root)["name"] == .string("label 2999 with a longer title"))
    }

    /// An import whose commits left more live pages than dead ones runs no compaction.
    @Test func anImportThatLeftMostlyLivePagesReportsNoCompaction() throws {
        let stack = try ImportStack()
        let result = try stack.root.importRecords(from: Data(records(300).utf8), entityName: "Label", options: ImportOptions(batchSize: 100, commitsEachBatch: true))
        #expect(result.recordsRead == 300)
        #expect(result.compaction == nil)
        let info = try stack.root.stack.store.store.info()
        #expect(info.deadBytes <= info.liveBytes)
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

import Foundation

/// Where an import stands, for progress reports: records read so far and, for bytes and
/// files, how far into the input.
public struct ImportProgress: Sendable {
    public let recordsRead: Int
    public let bytesRead: Int?
}

/// JSON import into a context by entity name (Spec/IMPORT.md): the engine under the
/// class-level `importFromArray`/`importFromObject` and `mrstore import`.
///
/// An import is all or nothing: on any error the context is as it was before, and the
/// error (``MagicalRecordError/importFailed(_:)``) names the record, entity, attribute, key
/// and value. With ``ImportOptions/skipInvalid`` records that do not convert are left out
/// whole and listed in ``ImportResult/skipped`` instead. The imported objects are unsaved
/// changes of the context: save it to keep them. With ``ImportOptions/commitsEachBatch``
/// (root saving context only) each batch is committed as it is imported instead, so
/// memory stays bounded whatever the input's size; an error then undoes only its batch.
extension ManagedObjectContext {
    /// Imports `records`, each a JSON object, as objects of `entityName`.
    @discardableResult
    public func importRecords(
        _ records: [JSONValue], entityName: String, options: ImportOptions = ImportOptions()
    ) throws(MagicalRecordError) -> ImportResult {
        var start = 0
        let batchSize = max(1, options.batchSize)
        return try importBatches(entityName: entityName, options: options, progress: nil, bytesRead: { nil }) { () -> [ImportRecord]? in
            guard start < records.count else { return nil }
            let end = min(records.count, start + batchSize)
            defer { start = end }
            return (start..<end).map { ImportRecord(index: $0, value: records[$0]) }
        }
    }

    /// Imports the records of JSON text: an array of objects, or one object.
    @discardableResult
    public func importRecords(
        from data: Data, entityName: String, options: ImportOptions = ImportOptions(),
        progress: ((ImportProgress) -> Void)? = nil
    ) throws(MagicalRecordError) -> ImportResult {
        try importRecords(from: JSONArrayStream(data: data, reader: options.reader), entityName: entityName, options: options, progress: progress)
    }

    /// Imports the records of the JSON file at `url` (an array of objects, or one object),
    /// reading it a batch at a time.
    @discardableResult
    public func importRecords(
        contentsOf url: URL, entityName: String, options: ImportOptions = ImportOptions(),
        progress: ((ImportProgress) -> Void)? = nil
    ) throws(MagicalRecordError) -> ImportResult {
        let stream: JSONArrayStream
        do {
            stream = try JSONArrayStream(contentsOf: url, reader: options.reader)
        } catch {
            throw .importFailed(ImportError(entity: entityName, recordIndex: nil, reason: .json(error)))
        }
        return try importRecords(from: stream, entityName: entityName, options: options, progress: progress)
    }

    /// Imports the records `stream` reads, `options.batchSize` at a time; `progress` is
    /// called after each batch.
    @discardableResult
    public func importRecords(
        from stream: JSONArrayStream, entityName: String, options: ImportOptions = ImportOptions(),
        progress: ((ImportProgress) -> Void)? = nil
    ) throws(MagicalRecordError) -> ImportResult {
        let batchSize = max(1, options.batchSize)
        let jsonFailure = { (error: JSONError) in MagicalRecordError.importFailed(ImportError(entity: entityName, recordIndex: nil, reason: .json(error))) }
        return try importBatches(entityName: entityName, options: options, progress: progress, bytesRead: { stream.offset }) {
            (direct) throws(MagicalRecordError) -> DirectImporter.PlannedBatch? in
            do throws(JSONError) {
                return try direct.plan(from: stream, upTo: batchSize)
            } catch {
                throw jsonFailure(error)
            }
        } nextBatch: { () throws(MagicalRecordError) -> [ImportRecord]? in
            var batch: [ImportRecord] = []
            batch.reserveCapacity(min(batchSize, 65_536))
            do throws(JSONError) {
                _ = try stream.next(upTo: batchSize) { batch.append(ImportRecord(index: $0.index, value: $0.value)) }
            } catch {
                throw jsonFailure(error)
            }
            return batch.isEmpty ? nil : batch
        }
    }

    // MARK: Internals

    /// Imports the batches `nextBatch` gives until it gives nil, under the context's lock:
    /// in one savepoint (all or nothing), or with `commitsEachBatch` one committed
    /// transaction per batch. A batch of the import without objects is taken from
    /// `planBatch` when it gives one (planned straight from the input: no records planned
    /// when the input is at its end), else from `nextBatch`.
    private func importBatches(
        entityName: String, options: ImportOptions, progress: ((ImportProgress) -> Void)?, bytesRead: () -> Int?,
        planBatch: PlanBatch? = nil, nextBatch: () throws(MagicalRecordError) -> [ImportRecord]?
    ) throws(MagicalRecordError) -> ImportResult {
        let entity = try importableEntity(entityName)
        if options.commitsEachBatch {
            let problem = parent != nil
                ? "commitsEachBatch needs the root saving context: a child context's saves do not reach the store"
                : (hasChanges ? "commitsEachBatch needs a context without unsaved changes: they would be committed with the first batch" : nil)
            if let problem {
                throw .importFailed(ImportError(entity: entityName, recordIndex: nil, reason: .unusableOptions(problem)))
            }
        }
        var read = 0
        guard options.commitsEachBatch else {
            return try runImport(options) { (importer) throws(MagicalRecordError) in
                while let batch = try nextBatch() {
                    try importer.importBatch(batch, entity: entity)
                    read += batch.count
                    progress?(ImportProgress(recordsRead: read, bytesRead: bytesRead()))
                }
            }
        }
        return try withLock { () throws(MagicalRecordError) in
            var importer = Importer(context: self, options: options)
            let direct = options.importsWithoutObjects
                ? DirectImporter(context: self, options: options, entity: entity, mappings: importer.mappings) : nil
            let builder = direct.map { AheadBuilder($0, store: stack.store) }
            do throws(MagicalRecordError) {
                try readingAhead(
                    direct, builder, batchSize: max(1, options.batchSize), bytesRead: bytesRead, planBatch: planBatch, nextBatch: nextBatch
                ) { (batches) throws(MagicalRecordError) in
                    // What the last direct batch committed: a look-up made ahead of it is
                    // brought up to date from this.
                    var previous: ImportCommit?
                    while let batch = batches.next() {
                        switch batch.content {
                        case .failed(let error):
                            throw error
                        case .built(let ahead):
                            // A batch looked up ahead of this one is built too, or looked
                            // up afresh (after another writer's commit).
                            previous = nil
                            try builder?.commit(ahead, result: &importer.result)
                        case .planned(let planned):
                            previous = try direct?.importBatch(planned, after: previous, result: &importer.result)
                        case .records(let records):
                            previous = nil
                            try withSavepoint { () throws(MagicalRecordError) in
                                try importer.importBatch(records, entity: entity)
                                importer.countUpdates()
                                try save()
                            }
                            importer.forgetCommitted()
                        }
                        read += batch.count
                        progress?(ImportProgress(recordsRead: read, bytesRead: batch.bytesRead))
                        batches.recycle(batch)
                    }
                }
            } catch {
                throw Self.noting(committed: read, in: error)
            }
            if read > 0 { importer.result.compaction = reclaimSpaceIfMostlyDead() }
            return importer.result
        }
    }

    /// A batch read ahead: its records, or for the direct path their plan, built when it
    /// could be.
    private struct ReadBatch {
        enum Content {
            case records([ImportRecord])
            case planned(DirectImporter.PlannedBatch)
            case built(AheadBatch)
            /// Reading failed: the import stops here, after the batches before.
            case failed(MagicalRecordError)
        }

        let content: Content
        let count: Int
        let bytesRead: Int?
    }

    /// Plans the next batch straight from the input for the import without objects (see
    /// ``DirectImporter/plan(from:upTo:)``): nil to read it as records instead.
    private typealias PlanBatch = (DirectImporter) throws(MagicalRecordError) -> DirectImporter.PlannedBatch?

    /// Runs `body` with the batches of `nextBatch` (or `planBatch`, see
    /// ``importBatches(entityName:options:progress:bytesRead:planBatch:nextBatch:)``) read on
    /// another thread, one ahead: the next batch's JSON is parsed, and a batch `direct`
    /// takes converted and built by `builder` (else its keys looked up in the store), while
    /// `body` commits the one before. The batch sources and `bytesRead` run on that thread
    /// (the second batch's on one beside it, see ``EarlyRead``), one call at a time, and not
    /// after this returns.
    private func readingAhead(
        _ direct: DirectImporter?, _ builder: AheadBuilder?, batchSize: Int, bytesRead: () -> Int?, planBatch: PlanBatch?,
        nextBatch: () throws(MagicalRecordError) -> [ImportRecord]?,
        _ body: (ReadAhead<ReadBatch>) throws(MagicalRecordError) -> Void
    ) throws(MagicalRecordError) {
        try withoutActuallyEscaping(nextBatch) { (nextBatch) throws(MagicalRecordError) in
            try withoutActuallyEscaping(bytesRead) { (bytesRead) throws(MagicalRecordError) in
                // Reads the next batch: records, or for the direct path their plan, not built.
                let read = { () throws(MagicalRecordError) -> ReadBatch? in
                    if let direct, let planned = try planBatch?(direct) {
                        guard planned.recordCount > 0 else { return nil }
                        return ReadBatch(content: .planned(planned), count: planned.recordCount, bytesRead: bytesRead())
                    }
                    guard let records = try nextBatch() else { return nil }
                    guard let direct, direct.accepts(records) else {
                        // The object path's commit is not one a batch can be built on.
                        builder?.stop()
                        return ReadBatch(content: .records(records), count: records.count, bytesRead: bytesRead())
                    }
                    let planned = direct.plan(records)
                    return ReadBatch(content: .planned(planned), count: planned.recordCount, bytesRead: bytesRead())
                }
                // A planned batch built by `builder`, or else its keys looked up.
                let build = { (batch: ReadBatch) -> ReadBatch in
                    guard case .planned(var planned) = batch.content else { return batch }
                    if let ahead = builder?.build(&planned) {
                        return ReadBatch(content: .built(ahead), count: batch.count, bytesRead: batch.bytesRead)
                    }
                    if planned.lookup == nil { direct?.lookUpAhead(&planned) }
                    return ReadBatch(content: .planned(planned), count: batch.count, bytesRead: batch.bytesRead)
                }
                var hasFailed = false
                var isFirst = true
                let store = stack.store
                // The second batch, read while the first builds (see ``EarlyRead``).
                var second: EarlyRead<ReadBatch>?
                let batches = ReadAhead<ReadBatch> {
                    guard !hasFailed else { return nil }
                    do throws(MagicalRecordError) {
                        let batch: ReadBatch?
                        if let early = second {
                            second = nil
                            batch = try early.take()
                        } else {
                            batch = try read()
                        }
                        guard let batch else { return nil }
                        if isFirst, Self.readsSecondEarly(after: batch, building: builder != nil, batchSize: batchSize) { second = EarlyRead(read) }
                        isFirst = false
                        return build(batch)
                    } catch {
                        hasFailed = true
                        return ReadBatch(content: .failed(error), count: 0, bytesRead: nil)
                    }
                } whileConsumerBusy: { batch, isWanted in
                    // A built batch's records, encoded while the batch before commits.
                    guard case .built(let ahead) = batch.content, case .success(let built) = ahead.outcome else { return }
                    built.encodeRecords(in: store, until: isWanted)
                } whenDone: {
                    second?.wait()
                }
                defer { batches.finish() }
                try stack.store.readingAhead { () throws(MagicalRecordError) in try body(batches) }
            }
        }
    }

    /// Whether the batch after `first` is read beside it (``EarlyRead``): when `first` is
    /// planned to be built, and the input may hold more.
    private static func readsSecondEarly(after first: ReadBatch, building: Bool, batchSize: Int) -> Bool {
        guard building, case .planned = first.content else { return false }
        return EarlyRead<ReadBatch>.isWorthReading(afterFirstBatchOf: first.count, batchSize: batchSize)
    }

    /// Compacts the store when superseded pages outweigh live ones: each batch's commit
    /// rewrote the tree pages it touched, and an import of random keys touches most of
    /// them every batch. Compaction costs a copy of the live bytes, which the import's
    /// garbage at least equals, so the file stays within twice its live size. The import
    /// is committed either way: a compaction that fails is logged, and leaves the old file.
    /// Returns the compaction it ran, if any.
    private func reclaimSpaceIfMostlyDead() -> ImportCompaction? {
        let path = stack.store.path
        do {
            let info = try stack.store.store.info()
            guard info.deadBytes > info.liveBytes else { return nil }
            let started = ContinuousClock.now
            let result = try stack.compact()
            let compaction = ImportCompaction(bytesBefore: result.bytesBefore, bytesAfter: result.bytesAfter, duration: ContinuousClock.now - started)
            Log.log(.info, "import reclaimed space: compacted \(path) from \(result.bytesBefore) to \(result.bytesAfter) bytes in \(compaction.duration)")
            return compaction
        } catch {
            Log.log(.error, "import committed; compacting \(path) afterwards failed, the file keeps its dead pages: \(error)")
            return nil
        }
    }

    /// `error` saying that the first `count` records were committed before it.
    private static func noting(committed count: Int, in error: MagicalRecordError) -> MagicalRecordError {
        guard count > 0 else { return error }
        guard case .importFailed(var failure) = error else {
            return .importFailed(ImportError(entity: "", recordIndex: nil, reason: .afterCommitting(records: count, error.description)))
        }
        failure.recordsCommitted = count
        return .importFailed(failure)
    }

    /// Runs one import under the context's lock, in a savepoint: all or nothing.
    func runImport(
        _ options: ImportOptions, _ body: (inout Importer) throws(MagicalRecordError) -> Void
    ) throws(MagicalRecordError) -> ImportResult {
        try withLock { () throws(MagicalRecordError) in
            var importer = Importer(context: self, options: options)
            try withSavepoint { () throws(MagicalRecordError) in
                try body(&importer)
                importer.countUpdates()
            }
            return importer.result
        }
    }

    /// The entity records of `name` become: itself, or an abstract entity's only concrete
    /// subentity (Spec/IMPORT.md I25).
    func importableEntity(_ name: String) throws(MagicalRecordError) -> Entity {
        let entity = try entityNamed(name)
        guard let target = model.importTarget(for: entity) else {
            throw .importFailed(ImportError(entity: name, recordIndex: nil, reason: .shape(
                "entity \(name) is abstract with subentities \(entity.concreteEntities.joined(separator: ", ")): import into one of them"
            )))
        }
        return target
    }
}

/// One top-level record and its position in the input.
struct ImportRecord {
    let index: Int
    let value: JSONValue
}

extension ImportOptions {
    var reader: JSONReader { JSONReader(allowsTrailingCommas: allowsTrailingCommas) }
}

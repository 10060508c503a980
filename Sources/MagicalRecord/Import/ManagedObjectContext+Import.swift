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
/// Every import is all or nothing: on any error the context is as it was before, and the
/// error (``MagicalRecordError/importFailed(_:)``) names the record, entity, attribute, key
/// and value. With ``ImportOptions/skipInvalid`` records that do not convert are left out
/// whole and listed in ``ImportResult/skipped`` instead. The imported objects are unsaved
/// changes of the context: save it to keep them.
extension ManagedObjectContext {
    /// Imports `records`, each a JSON object, as objects of `entityName`.
    @discardableResult
    public func importRecords(
        _ records: [JSONValue], entityName: String, options: ImportOptions = ImportOptions()
    ) throws(MagicalRecordError) -> ImportResult {
        let entity = try importableEntity(entityName)
        return try runImport(options) { (importer) throws(MagicalRecordError) in
            var start = 0
            let batchSize = max(1, options.batchSize)
            while start < records.count {
                let end = min(records.count, start + batchSize)
                let batch = (start..<end).map { (index: $0, value: records[$0]) }
                _ = try importer.importBatch(batch, entity: entity)
                start = end
            }
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
        let entity = try importableEntity(entityName)
        return try runImport(options) { (importer) throws(MagicalRecordError) in
            let batchSize = max(1, options.batchSize)
            var batch: [(index: Int, value: JSONValue)] = []
            batch.reserveCapacity(batchSize)
            var read = 0
            var reachedEnd = false
            while !reachedEnd {
                batch.removeAll(keepingCapacity: true)
                while batch.count < batchSize {
                    guard let element = try Self.next(stream, entityName) else {
                        reachedEnd = true
                        break
                    }
                    batch.append(element)
                }
                guard !batch.isEmpty else { break }
                _ = try importer.importBatch(batch, entity: entity)
                read += batch.count
                progress?(ImportProgress(recordsRead: read, bytesRead: stream.offset))
            }
        }
    }

    private static func next(_ stream: JSONArrayStream, _ entityName: String) throws(MagicalRecordError) -> JSONArrayStream.Element? {
        do throws(JSONError) {
            return try stream.next()
        } catch {
            throw .importFailed(ImportError(entity: entityName, recordIndex: nil, reason: .json(error)))
        }
    }

    // MARK: Internals

    /// Runs one import under the context's lock, in a savepoint: all or nothing.
    func runImport(
        _ options: ImportOptions, _ body: (inout Importer) throws(MagicalRecordError) -> Void
    ) throws(MagicalRecordError) -> ImportResult {
        try withLock { () throws(MagicalRecordError) in
            var importer = Importer(context: self, options: options)
            try withSavepoint { () throws(MagicalRecordError) in try body(&importer) }
            return importer.result
        }
    }

    func importableEntity(_ name: String) throws(MagicalRecordError) -> Entity {
        let entity = try entityNamed(name)
        guard !entity.isAbstract else {
            throw .importFailed(ImportError(entity: name, recordIndex: nil, reason: .shape(
                "entity \(name) is abstract: import into one of its subentities"
            )))
        }
        return entity
    }
}

extension ImportOptions {
    var reader: JSONReader { JSONReader(allowsTrailingCommas: allowsTrailingCommas) }
}

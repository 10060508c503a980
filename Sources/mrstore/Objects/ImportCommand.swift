import ArgumentParser
import Foundation
import MagicalRecord
import MagicalStore

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import JSON records into a store (created when missing), by MagicalRecord's import mapping.",
        discussion: """
            FILE holds a JSON array of records (or one record); `-` or no FILE reads standard input. Records are \
            upserted by the entity's key, as Spec/IMPORT.md describes. The import is one transaction: on any error \
            nothing is committed and the command exits non-zero naming the record, attribute, key and value. \
            With --commit-each-batch every batch is committed as it goes (bounded memory); an error then keeps the \
            batches before it. Exit status 0 means the import is durable.
            """
    )

    @Argument(help: "The store file; created when missing (then --model is required).")
    var store: String

    @Argument(help: "The JSON file, or - for standard input.")
    var file: String = "-"

    @Option(help: "The entity the records are objects of.")
    var entity: String

    @Option(help: "The model (.xcdatamodeld, .xcdatamodel or JSON): required for a new store; for an existing one it must be the store's model.")
    var model: String?

    @Flag(help: "Leave out records that do not convert, list them, and import the rest.")
    var skipInvalid = false

    @Flag(help: "Treat a JSON null like an absent key (the next mappedKeyName alternate is tried).")
    var nullAsAbsent = false

    @Flag(help: "Accept trailing commas in arrays and objects.")
    var allowTrailingCommas = false

    @Flag(help: "Insert records that lack their key as new objects (MagicalRecord's behaviour) instead of failing.")
    var insertRecordsWithoutKey = false

    @Flag(help: "Imported objects replace a to-many relationship's members instead of joining them.")
    var replaceRelationships = false

    @Flag(help: "Commit each batch as it is imported, so memory stays bounded for any input size.")
    var commitEachBatch = false

    @Option(help: "Records per batch (one key lookup pass each).")
    var batchSize = 10_000

    @Option(help: "full (sync every commit) or normal.")
    var durability: DurabilityChoice = .full

    @Option(help: CompressionChoice.helpText)
    var compression = CompressionChoice(.lz4)

    @Flag(help: "Print the summary as one JSON object.")
    var json = false

    func validate() throws {
        guard batchSize > 0 else { throw ValidationError("--batch-size must be at least 1") }
    }

    func run() throws {
        MagicalRecord.setLoggingLevel(.off)
        let storeURL = URL(fileURLWithPath: store)
        let creating = !FileManager.default.fileExists(atPath: storeURL.path)
        guard !creating || model != nil else {
            printError("mrstore: \(store) does not exist: give --model to create it")
            throw ExitCode(1)
        }
        let options = ImportOptions(
            nullAsAbsent: nullAsAbsent, skipInvalid: skipInvalid,
            relationshipPolicy: replaceRelationships ? .replace : nil,
            allowsTrailingCommas: allowTrailingCommas, insertsRecordsWithoutKey: insertRecordsWithoutKey,
            batchSize: batchSize, commitsEachBatch: commitEachBatch
        )
        let started = Date()
        let progress = ImportProgressLine(enabled: isatty(2) == 1 && !json)
        let result = try reportingErrors { () throws -> ImportResult in
            // The progress line ends before an error is printed below it.
            defer { progress.finish() }
            let stack = try PersistentStack(storeAt: storeURL, model: try loadModel(), durability: durability.value, compression: compression.value)
            do {
                let result = try importRecords(into: stack, options: options, progress: progress)
                try stack.close()
                return result
            } catch {
                if creating { removeIfEmpty(stack) }
                try? stack.close()
                throw error
            }
        }
        let summary = ImportSummary(result: result, seconds: Date().timeIntervalSince(started))
        for skipped in result.skipped { printError("mrstore: skipped \(skipped)") }
        print(json ? summary.json : summary.text)
    }

    /// The `--model` file, if one is given.
    private func loadModel() throws(MagicalRecordError) -> ObjectModel? {
        guard let model else { return nil }
        do throws(ModelError) {
            return try ObjectModel(contentsOf: URL(fileURLWithPath: model))
        } catch {
            throw .model(error)
        }
    }

    /// Removes the store this command created when the import failed before anything was
    /// committed (so a wrong `--model` or entity is not left recorded in a new store). It
    /// is removed while this process still holds the write lock, so nothing else can have
    /// written to it; with --commit-each-batch, a store holding committed batches stays.
    /// The empty lock file stays: once this process closes the store another may open the
    /// path and lock it, so it is not ours to delete (Spec/FILE-FORMAT.md F1).
    private func removeIfEmpty(_ stack: PersistentStack) {
        let context = stack.rootContext
        let empty = context.performAndWait { () -> Bool in
            for entity in stack.model.entities {
                guard (try? context.count(for: FetchRequest(entityName: entity.name))) == 0 else { return false }
            }
            return true
        }
        if empty { try? FileManager.default.removeItem(atPath: store) }
    }

    /// Imports FILE (standard input for `-`) in one transaction, or batch by batch with
    /// --commit-each-batch, and saves: the result is durable when this returns.
    private func importRecords(into stack: PersistentStack, options: ImportOptions, progress: ImportProgressLine) throws -> ImportResult {
        let context = stack.rootContext
        return try context.performAndWait { () throws(MagicalRecordError) -> ImportResult in
            let result: ImportResult
            if file == "-" {
                let stream = JSONArrayStream(fileHandle: .standardInput, reader: JSONReader(allowsTrailingCommas: allowTrailingCommas))
                result = try context.importRecords(from: stream, entityName: entity, options: options) { progress.show($0) }
            } else {
                result = try context.importRecords(contentsOf: URL(fileURLWithPath: file), entityName: entity, options: options) { progress.show($0) }
            }
            try context.save()
            return result
        }
    }
}

/// `--durability full|normal`.
enum DurabilityChoice: String, ExpressibleByArgument, CaseIterable {
    case full, normal

    var value: Durability { self == .full ? .full : .normal }
}

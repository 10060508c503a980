import Foundation
import Logging
import Testing
@testable import MagicalRecord

/// The logging chapter: levels, swift-log as the backend, failures logged and thrown.
extension GlobalStackTests {
@Suite struct LoggingTests {
    /// A swift-log handler that keeps what it is given.
    final class Capture: LogHandler, @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [(Logger.Level, String)] = []
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            lock.withLock { entries.append((event.level, event.message.description)) }
        }

        var messages: [(level: Logger.Level, text: String)] { lock.withLock { entries.map { ($0.0, $0.1) } } }
    }

    static let model = try! ObjectModel(entities: [
        EntityDescription("Item", relatedBy: "itemID") {
            AttributeDescription("itemID", .integer64, optional: false)
        },
        EntityDescription("Orphan", relatedBy: "missing") {
            AttributeDescription("orphanID", .integer64)
        },
    ])

    /// Runs `body` with the library logging into a fresh capture at `level`.
    func capturing(_ level: LoggingLevel, _ body: () throws -> Void) rethrows -> Capture {
        let capture = Capture()
        MagicalRecord.setLogger(Logger(label: "MagicalRecord") { _ in capture })
        MagicalRecord.setLoggingLevel(level)
        defer {
            MagicalRecord.setLoggingLevel(.warn)
            MagicalRecord.setLogger(Logger(label: "MagicalRecord"))
        }
        try body()
        return capture
    }

    @Test func theDefaultLevelIsWarn() {
        #expect(MagicalRecord.loggingLevel == .warn)
        #expect(LoggingLevel.allCases == [.off, .error, .warn, .info, .debug, .verbose])
    }

    @Test func modelWarningsAreLoggedAtSetup() throws {
        let capture = try capturing(.warn) {
            try GlobalStack.with(model: Self.model) {}
        }
        #expect(capture.messages.contains { $0.level == .warning && $0.text.contains("relatedByAttribute names \"missing\"") })
        #expect(!capture.messages.contains { $0.level == .info }, "info is above warn")
    }

    @Test func debugShowsSavesAndOffShowsNothing() throws {
        let verbose = try capturing(.debug) {
            try GlobalStack.with(model: Self.model) {
                try MagicalRecord.saveWithBlockAndWait { context in
                    try context.insertObject(entityName: "Item").setValue(.integer(1), forKey: "itemID")
                }
            }
        }
        #expect(verbose.messages.contains { $0.level == .debug && $0.text.contains("committed to the store") })
        let silent = try capturing(.off) {
            try GlobalStack.with(model: Self.model) {
                _ = try? ManagedObjectContext.default.fetch(FetchRequest(entityName: "Nothing"))
            }
        }
        #expect(silent.messages.isEmpty)
    }

    @Test func aFailedFetchIsLoggedWithItsRequestAndThrown() throws {
        let capture = try capturing(.error) {
            try GlobalStack.with(model: Self.model) {
                let context = try ManagedObjectContext.default
                let request = FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "colour == 'red'"))
                let result = Result { () throws(MagicalRecordError) in try context.fetch(request) }
                guard case .failure(.predicate(let error, let entity)) = result else {
                    Issue.record("expected a predicate error, got \(result)")
                    return
                }
                #expect(entity == "Item")
                #expect(error.message.contains("colour"))
            }
        }
        // Suites outside the global stack's run alongside and log their own failures while
        // the capture is in place: this request's are the ones that name it.
        let logged = capture.messages.filter { $0.level == .error && $0.text.contains("where colour == \"red\"") }
        #expect(logged.count == 1, "\(logged)")
        #expect(logged.first?.text.contains("fetch of Item where colour == \"red\"") == true, "\(logged)")
    }

    @Test func aFailedSaveIsLoggedAndThrown() throws {
        let capture = try capturing(.error) {
            try GlobalStack.with(model: Self.model) {
                let result = Result { () throws(MagicalRecordError) in
                    try MagicalRecord.saveWithBlockAndWait { context in _ = try context.insertObject(entityName: "Item") }
                }
                guard case .failure(.validation) = result else {
                    Issue.record("expected a validation failure, got \(result)")
                    return
                }
            }
        }
        #expect(capture.messages.contains { $0.level == .error && $0.text.contains("itemID") })
    }

    @Test func aDisabledLevelNeverBuildsItsMessage() {
        MagicalRecord.setLoggingLevel(.error)
        defer { MagicalRecord.setLoggingLevel(.warn) }
        var built = false
        Log.log(.debug, { built = true; return "expensive" }())
        #expect(!built)
    }
}
}

import Logging
import Synchronization

/// MagicalRecord's log levels (seed 000's logging chapter), from quietest to loudest.
public enum LoggingLevel: Int, Sendable, Comparable, CaseIterable {
    case off, error, warn, info, debug, verbose

    public static func < (left: LoggingLevel, right: LoggingLevel) -> Bool { left.rawValue < right.rawValue }
}

/// The library's messages, through swift-log: an application that bootstraps its own
/// logging backend gets them there, labelled `MagicalRecord`. The level is ours
/// (``MagicalRecord/setLoggingLevel(_:)``): a message above it costs one atomic load and
/// is never formatted.
enum Log {
    private static let level = Atomic<Int>(LoggingLevel.warn.rawValue)
    private static let logger = Mutex<Logger>(makeLogger(Logger(label: "MagicalRecord")))

    static var currentLevel: LoggingLevel { LoggingLevel(rawValue: level.load(ordering: .relaxed)) ?? .warn }

    static func setLevel(_ newLevel: LoggingLevel) {
        level.store(newLevel.rawValue, ordering: .relaxed)
    }

    /// Sends messages to `newLogger` from now on (its own level is opened up: ours filters).
    static func use(_ newLogger: Logger) {
        logger.withLock { $0 = makeLogger(newLogger) }
    }

    private static func makeLogger(_ base: Logger) -> Logger {
        var opened = base
        opened.logLevel = .trace
        return opened
    }

    static func enabled(_ wanted: LoggingLevel) -> Bool {
        wanted != .off && wanted.rawValue <= level.load(ordering: .relaxed)
    }

    static func log(_ wanted: LoggingLevel, _ message: @autoclosure () -> String) {
        guard enabled(wanted) else { return }
        let text = Logger.Message(stringLiteral: message())
        let logger = logger.withLock { $0 }
        switch wanted {
        case .off: return
        case .error: logger.error(text)
        case .warn: logger.warning(text)
        case .info: logger.info(text)
        case .debug: logger.debug(text)
        case .verbose: logger.trace(text)
        }
    }

    static func saved(_ context: ManagedObjectContext, _ changes: ChangeSet) {
        log(.debug, "saved \(context.name ?? "a context"): \(changes.upserts.count) inserted or updated, \(changes.deletes.count) deleted\(context.parent == nil ? " (committed to the store)" : "")")
    }

    static func saveFailed(_ context: ManagedObjectContext, _ error: MagicalRecordError) {
        log(.error, "save of \(context.name ?? "a context") failed: \(error)")
    }

    static func fetchFailed(_ request: FetchRequest, _ error: MagicalRecordError) {
        log(.error, "fetch of \(request.entityName)\(request.predicate.map { " where \($0.predicateFormat)" } ?? "") failed: \(error)")
    }
}

import Logging

/// MagicalRecord's log levels (seed 000's logging chapter), from quietest to loudest.
public enum LoggingLevel: Int, Sendable, Comparable, CaseIterable {
    case off, error, warn, info, debug, verbose

    public static func < (left: LoggingLevel, right: LoggingLevel) -> Bool { left.rawValue < right.rawValue }
}

/// The library's messages, through swift-log: an application that bootstraps its own
/// logging backend gets them there, labelled `MagicalRecord`. A level above
/// ``MagicalRecord/loggingLevel`` costs one atomic load.
enum Log {
    private static let logger = Logger(label: "MagicalRecord")

    static func enabled(_ level: LoggingLevel) -> Bool {
        level <= MagicalRecord.loggingLevel && level != .off
    }

    static func log(_ level: LoggingLevel, _ message: @autoclosure () -> String) {
        guard enabled(level) else { return }
        let text = message()
        switch level {
        case .off: return
        case .error: logger.error("\(text)")
        case .warn: logger.warning("\(text)")
        case .info: logger.info("\(text)")
        case .debug: logger.debug("\(text)")
        case .verbose: logger.trace("\(text)")
        }
    }

    static func saved(_ context: ManagedObjectContext, _ changes: ChangeSet) {
        log(.debug, "saved \(context.name ?? "a context"): \(changes.upserts.count) inserted or updated, \(changes.deletes.count) deleted\(context.parent == nil ? " (committed to the store)" : "")")
    }

    static func saveFailed(_ error: MagicalRecordError) {
        log(.error, "save failed: \(error)")
    }
}

extension Log {
    static func fetchFailed(_ request: FetchRequest, _ error: MagicalRecordError) {
        log(.error, "fetch of \(request.entityName)\(request.predicate.map { " where \($0.predicateFormat)" } ?? "") failed: \(error)")
    }
}

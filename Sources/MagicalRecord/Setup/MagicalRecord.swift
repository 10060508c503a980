import Dispatch
import Foundation
import Logging
import MagicalStore
import Synchronization

/// The entry point: set up the default stack, find contexts, save in the background,
/// set the log level.
///
/// ```swift
/// try MagicalRecord.setupCoreDataStack(withStoreNamed: "People.store", model: model)
/// try MagicalRecord.saveWithBlockAndWait { context in
///     let person = try context.insertObject(entityName: "Person")
///     try person.setValue(.string("Yan"), forKey: "firstName")
/// }
/// MagicalRecord.cleanUp()
/// ```
public enum MagicalRecord {
    private struct Defaults {
        var stack: ObjectStack?
        var rootContext: ManagedObjectContext?
        var defaultContext: ManagedObjectContext?
        var completionQueue: DispatchQueue = DispatchQueue(label: "MagicalRecord.completions")
    }

    private static let defaults = Mutex(Defaults())

    // MARK: Setup

    /// A stack over the store named after the process, in the default directory
    /// (``defaultStoreDirectory``).
    public static func setupCoreDataStack(model: ObjectModel) throws(MagicalRecordError) {
        try setupCoreDataStack(withStoreNamed: ProcessInfo.processInfo.processName + ".store", model: model)
    }

    /// A stack over a store kept in memory only: for tests and scratch work.
    public static func setupCoreDataStackWithInMemoryStore(model: ObjectModel) throws(MagicalRecordError) {
        let options = StoreOptions(durability: .none, fileSystem: MemoryFileSystem(tracksDurability: false))
        try install(ObjectStore(path: "/memory.store", model: model, options: options))
    }

    /// A stack over the store `name` in the default directory (``defaultStoreDirectory``),
    /// created when missing.
    public static func setupCoreDataStack(withStoreNamed name: String, model: ObjectModel) throws(MagicalRecordError) {
        try setupCoreDataStack(withStoreAt: try createdDefaultStoreDirectory().appendingPathComponent(name), model: model)
    }

    /// ``defaultStoreDirectory``, created when missing.
    static func createdDefaultStoreDirectory() throws(MagicalRecordError) -> URL {
        let directory = defaultStoreDirectory
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .store(.io(operation: "create directory", path: directory.path, errno: EACCES))
        }
        return directory
    }

    /// A stack over the store at `url`, created when missing. `scanThreads`: how many
    /// threads a scan of a large entity may use (nil: ``StoreOptions/scanThreads``'s default);
    /// `compression`: how the pages it writes are compressed; `compactionCompression`: how
    /// a compaction's are (nil: as `compression`).
    public static func setupCoreDataStack(
        withStoreAt url: URL, model: ObjectModel, durability: Durability = .full, scanThreads: Int? = nil,
        compression: PageCompression = .lz4, compactionCompression: PageCompression? = nil
    ) throws(MagicalRecordError) {
        var options = StoreOptions(durability: durability, compression: compression, compactionCompression: compactionCompression)
        if let scanThreads { options.scanThreads = scanThreads }
        try install(ObjectStore(path: url.path, model: model, options: options))
    }

    /// Closes the default stack's store and forgets its contexts.
    public static func cleanUp() {
        let stack = defaults.withLock { defaults -> ObjectStack? in
            let stack = defaults.stack
            defaults.stack = nil
            defaults.rootContext = nil
            defaults.defaultContext = nil
            return stack
        }
        try? stack?.close()
    }

    /// Where named stores live: `$XDG_DATA_HOME/<process name>`, else
    /// `~/.local/share/<process name>` (the XDG base directory rules).
    public static var defaultStoreDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
        return base.appendingPathComponent(ProcessInfo.processInfo.processName)
    }

    static func install(_ store: ObjectStore) throws(MagicalRecordError) {
        cleanUp()
        for warning in store.model.warnings { Log.log(.warn, "model: \(warning)") }
        Log.log(.info, "set up a stack over \(store.path)")
        let stack = ObjectStack(store: store)
        let (root, main) = stack.makeContexts()
        defaults.withLock { defaults in
            defaults.stack = stack
            defaults.rootContext = root
            defaults.defaultContext = main
        }
    }

    // MARK: Defaults

    static var rootSavingContext: ManagedObjectContext {
        get throws(MagicalRecordError) {
            guard let context = defaults.withLock({ $0.rootContext }) else { throw .stackNotSetUp }
            return context
        }
    }

    static var defaultContext: ManagedObjectContext {
        get throws(MagicalRecordError) {
            guard let context = defaults.withLock({ $0.defaultContext }) else { throw .stackNotSetUp }
            return context
        }
    }

    static func setDefaultContext(_ context: ManagedObjectContext) {
        defaults.withLock { $0.defaultContext = context }
    }

    /// Where save completion handlers run. A serial queue of the library's by default,
    /// so completions always run, also in command-line programs that never service the
    /// main queue; set `.main` in an application that runs a main loop.
    public static var completionQueue: DispatchQueue {
        get { defaults.withLock { $0.completionQueue } }
        set { defaults.withLock { $0.completionQueue = newValue } }
    }

    /// How much the library logs; `.warn` by default.
    public static var loggingLevel: LoggingLevel { Log.currentLevel }

    /// Sets how much the library logs: `.off`, `.error`, `.warn` (the default), `.info`,
    /// `.debug` or `.verbose`.
    public static func setLoggingLevel(_ level: LoggingLevel) {
        Log.setLevel(level)
    }

    /// Sends the library's messages to `logger` instead of a `Logger` labelled
    /// `MagicalRecord` made by the application's bootstrapped logging backend.
    public static func setLogger(_ logger: Logger) {
        Log.use(logger)
    }
}

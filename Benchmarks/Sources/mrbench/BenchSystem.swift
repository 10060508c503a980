import Foundation
import MagicalStore

/// The phases, in the order they run; each reports a count of rows handled.
enum Phase: String, CaseIterable, Sendable {
    case importJSON = "import_json"
    case upsert
    case get
    case scan
    case sorted
    case aggregate
    case count
    /// Not a rate: the time to open the store after a writer was killed (SIGKILL).
    case recovery
}

/// One database under test. A system runs every phase on its own file in `directory`;
/// the imports return how many records they read, the reads what they found
/// (``PhaseAnswer``), which the runner checks against the data's reference answers.
protocol BenchSystem: AnyObject {
    static var name: String { get }
    /// `tuning`'s page cache for SQLite is the SQLite systems' alone, the rest our store's
    /// alone: SQLite's queries use one thread, and its pages are not compressed, whatever
    /// that says.
    init(directory: URL, durability: BenchDurability, tuning: StoreTuning) throws
    /// The departments, then `data.peopleJSON`, committed.
    func importJSON(_ data: BenchData) throws -> Int
    /// `data.upsertJSON`, committed.
    func upsert(_ data: BenchData) throws -> Int
    /// Looks up each key and materialises the person it finds: each found person's last
    /// name (``AnswerDigest/add(lastName:)``).
    func get(_ keys: [Int64]) throws -> PhaseAnswer
    /// `age > 40 AND lastName BEGINSWITH 'S'`, every match materialised: each match's last
    /// name.
    func scan() throws -> PhaseAnswer
    /// The first 1,000 people by `lastName, firstName`: their names in order
    /// (``AnswerDigest/append(lastName:firstName:)``).
    func sorted() throws -> PhaseAnswer
    /// The sum of `salary` per `departmentID`: each group
    /// (``AnswerDigest/add(departmentID:salarySum:)``).
    func aggregate() throws -> PhaseAnswer
    /// The count of people with `salary > 100000`.
    func count() throws -> PhaseAnswer
    /// Closes the store; afterwards `fileBytes` is final.
    func close() throws
    /// The bytes on disk of the store (every file it keeps).
    var fileBytes: UInt64 { get }
    /// Opens the closed store (as after a crash) and counts its people: a recovery check.
    func reopen() throws -> Int
    /// Writes batches of 10,000 new people with keys from `firstKey`, committing each,
    /// forever: the child process the recovery phase kills. Calls `committed` after each commit.
    func writeUntilKilled(from firstKey: Int64, committed: () -> Void) throws
    /// How long the compaction took that the last import or upsert ran within its own time
    /// (our store's, when its batch commits left the file mostly dead); nil for none.
    var lastCompaction: Duration? { get }
}

extension BenchSystem {
    var lastCompaction: Duration? { nil }
}

enum BenchDurability: String, CaseIterable, Sendable {
    /// Our `normal`; SQLite in WAL mode with `synchronous = NORMAL`.
    case normal
    /// Our `full`; SQLite in WAL mode with `synchronous = FULL`.
    case full
}

enum BenchSystems {
    static var all: [any BenchSystem.Type] { [MagicalRecordSystem.self, SQLiteSystem.self, GRDBRecordsSystem.self] }

    static func named(_ name: String) -> (any BenchSystem.Type)? {
        all.first { $0.name == name }
    }
}

extension URL {
    /// The size of the file here, 0 when there is none.
    var fileSize: UInt64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.uint64Value ?? 0
    }
}

/// How the stores run: the options a user may set when opening one.
struct StoreTuning {
    /// Threads our store's scans may use (nil: its default, every core up to 8).
    var scanThreads: Int?
    /// How it compresses the pages it writes.
    var compression: PageCompression = .lz4
    /// How its compactions compress theirs (nil: as `compression`).
    var compactionCompression: PageCompression?
    /// The page cache each SQLite connection keeps (`PRAGMA cache_size`), in MiB: by
    /// default as large as our store's (``StoreOptions/cacheBytes``), so that neither
    /// system reads its pages through a smaller cache than the other.
    var sqliteCacheMiB = StoreTuning.defaultSQLiteCacheMiB

    static let defaultSQLiteCacheMiB = StoreOptions().cacheBytes >> 20
}

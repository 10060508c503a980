import Foundation
import GRDB

/// One SQLite database file of a system under test, opened on first use with the run's
/// durability (WAL, `synchronous` to match, foreign keys on as GRDB sets them) and page
/// cache (``StoreTuning/sqliteCacheMiB``).
final class SQLiteDatabase {
    let url: URL
    let durability: BenchDurability
    let cacheMiB: Int
    private var queue: DatabaseQueue?

    init(_ url: URL, durability: BenchDurability, cacheMiB: Int) {
        self.url = url
        self.durability = durability
        self.cacheMiB = cacheMiB
    }

    /// The open connection, opened now if it is not yet.
    func connection() throws -> DatabaseQueue {
        if let queue { return queue }
        let opened = try open()
        queue = opened
        return opened
    }

    /// A new connection to the file, for reopening it after a crash.
    func open() throws -> DatabaseQueue {
        var configuration = Configuration()
        let synchronous = durability == .full ? "FULL" : "NORMAL"
        let cacheSize = cacheSizePragma
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
            try db.execute(sql: cacheSize)
        }
        return try DatabaseQueue(path: url.path, configuration: configuration)
    }

    /// Runs `body` with SQLite's own default page cache (2,000 KiB), then restores the
    /// run's. A `GROUP BY` without an index sorts its rows, and the sorter keeps in memory
    /// as much as the page cache allows: with 256 MiB it sorted 1.5M rows in one piece at
    /// 0.6-0.7M rows a second, with 2 MB in cache-sized runs at 1.3M.
    func withDefaultCache<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        try db.execute(sql: "PRAGMA cache_size = -2000")
        defer { try? db.execute(sql: cacheSizePragma) }
        return try body()
    }

    /// The run's page cache; negative, a size in KiB rather than in pages.
    private var cacheSizePragma: String { "PRAGMA cache_size = -\(cacheMiB * 1024)" }

    func close() throws {
        try queue?.close()
        queue = nil
    }

    /// The database with its WAL and shared-memory files, whichever exist.
    var fileBytes: UInt64 {
        url.fileSize + URL(fileURLWithPath: url.path + "-wal").fileSize + URL(fileURLWithPath: url.path + "-shm").fileSize
    }
}

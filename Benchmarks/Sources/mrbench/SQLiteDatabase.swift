import Foundation
import GRDB

/// One SQLite database file of a system under test, opened on first use with the run's
/// durability (WAL, `synchronous` to match, foreign keys on as GRDB sets them).
final class SQLiteDatabase {
    let url: URL
    let durability: BenchDurability
    private var queue: DatabaseQueue?

    init(_ url: URL, durability: BenchDurability) {
        self.url = url
        self.durability = durability
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
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
        }
        return try DatabaseQueue(path: url.path, configuration: configuration)
    }

    func close() throws {
        try queue?.close()
        queue = nil
    }

    /// The database with its WAL and shared-memory files, whichever exist.
    var fileBytes: UInt64 {
        url.fileSize + URL(fileURLWithPath: url.path + "-wal").fileSize + URL(fileURLWithPath: url.path + "-shm").fileSize
    }
}

import GRDB
import GRDBSQLite

/// A GRDB prepared statement bound, stepped and read through SQLite's own C interface,
/// the layer GRDB's `StatementArguments` and `Row` wrap. For point gets that wrapping was
/// most of the time: at 1M rows, `Row.fetchOne` on a cached statement ran 123-145k gets a
/// second where the same statement stepped here ran 310-316k.
struct RawStatement {
    /// Held so that its SQLite statement lives as long as this.
    private let statement: Statement
    private var handle: SQLiteStatement { statement.sqliteStatement }

    init(_ statement: Statement) {
        self.statement = statement
    }

    /// Ready to run again, its bindings kept until replaced.
    func reset() {
        sqlite3_reset(handle)
    }

    func bind(_ value: Int64, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, value), "binding parameter \(index)")
    }

    func bind(_ value: Double, at index: Int32) throws {
        try check(sqlite3_bind_double(handle, index, value), "binding parameter \(index)")
    }

    /// Binds a copy of `text` (SQLite's transient binding): the string outlives no call.
    func bind(_ text: String, at index: Int32) throws {
        try check(sqlite3_bind_text(handle, index, text, -1, Self.transient), "binding parameter \(index)")
    }

    /// Steps once: true with a row to read, false when the statement is done.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        try check(code == SQLITE_DONE ? SQLITE_OK : code, "stepping")
        return false
    }

    /// The row at hand as a person, its columns in the person table's order.
    func person() throws -> PersonRow {
        PersonRow(
            id: sqlite3_column_int64(handle, 0), firstName: try text(1), lastName: try text(2),
            age: Int16(truncatingIfNeeded: sqlite3_column_int(handle, 3)),
            departmentID: sqlite3_column_int(handle, 4), salary: sqlite3_column_double(handle, 5), createdAt: try text(6)
        )
    }

    private func text(_ column: Int32) throws -> String {
        guard let characters = sqlite3_column_text(handle, column) else { throw BenchError.sqlite("reading column \(column): it is NULL") }
        return String(decoding: UnsafeBufferPointer(start: characters, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
    }

    private func check(_ code: Int32, _ action: String) throws {
        guard code != SQLITE_OK else { return }
        throw BenchError.sqlite("\(action): \(String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))))")
    }

    /// SQLite copies a value bound with this destructor before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

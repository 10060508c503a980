import Foundation
import GRDB

/// SQLite at its fastest honest path: JSON parsed by `JSONSerialization`, cached prepared
/// statements through GRDB (`INSERT ... ON CONFLICT(id) DO UPDATE`), one transaction per
/// import, rows read into structs by column. Writes and point gets bind and step those
/// statements through SQLite's C interface (``RawStatement``); scans and sorted pages read
/// GRDB's row cursor, whose rows are views on the statement, not copies, and which stepped
/// raw ran no faster.
final class SQLiteSystem: BenchSystem {
    static let name = "sqlite"

    private let file: SQLiteDatabase

    init(directory: URL, durability: BenchDurability, tuning: StoreTuning) throws {
        file = SQLiteDatabase(directory.appendingPathComponent("bench-sqlite.db"), durability: durability, cacheMiB: tuning.sqliteCacheMiB)
    }

    private func database() throws -> DatabaseQueue { try file.connection() }

    static let schema = """
        CREATE TABLE IF NOT EXISTS department (departmentID INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE IF NOT EXISTS person (
            id INTEGER PRIMARY KEY, firstName TEXT NOT NULL, lastName TEXT NOT NULL, age INTEGER NOT NULL,
            departmentID INTEGER NOT NULL REFERENCES department(departmentID), salary REAL NOT NULL,
            createdAt TEXT NOT NULL);
        """

    private static let upsertPerson = """
        INSERT INTO person (id, firstName, lastName, age, departmentID, salary, createdAt) VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(id) DO UPDATE SET firstName = excluded.firstName, lastName = excluded.lastName, age = excluded.age,
        departmentID = excluded.departmentID, salary = excluded.salary, createdAt = excluded.createdAt
        """

    func importJSON(_ data: BenchData) throws -> Int {
        let departments = try JSONRecords(data.departmentsJSON)
        let people = try JSONRecords(data.peopleJSON)
        try database().write { db in
            try db.execute(sql: Self.schema)
            let insertDepartment = try db.cachedStatement(
                sql: "INSERT INTO department (departmentID, name) VALUES (?, ?) ON CONFLICT(departmentID) DO UPDATE SET name = excluded.name"
            )
            for record in departments.records {
                try insertDepartment.execute(arguments: [try record.int("departmentID"), try record.string("name")])
            }
            try Self.upsert(people, in: db)
        }
        return people.records.count
    }

    func upsert(_ data: BenchData) throws -> Int {
        let people = try JSONRecords(data.upsertJSON)
        try database().write { db in try Self.upsert(people, in: db) }
        return people.records.count
    }

    private static func upsert(_ people: JSONRecords, in db: Database) throws {
        let statement = RawStatement(try db.cachedStatement(sql: upsertPerson))
        defer { statement.reset() }
        for record in people.records {
            statement.reset()
            try statement.bind(try record.int("id"), at: 1)
            try statement.bind(try record.string("firstName"), at: 2)
            try statement.bind(try record.string("lastName"), at: 3)
            try statement.bind(try record.int("age"), at: 4)
            try statement.bind(try record.int("departmentID"), at: 5)
            try statement.bind(try record.double("salary"), at: 6)
            try statement.bind(try record.string("createdAt"), at: 7)
            _ = try statement.step()
        }
    }

    func get(_ keys: [Int64]) throws -> PhaseAnswer {
        try database().read { db in
            let statement = RawStatement(try db.cachedStatement(sql: "SELECT * FROM person WHERE id = ?"))
            defer { statement.reset() }
            var found = AnswerDigest()
            for key in keys {
                statement.reset()
                try statement.bind(key, at: 1)
                guard try statement.step() else { continue }
                found.add(lastName: try statement.person().lastName)
            }
            return found.answer
        }
    }

    func scan() throws -> PhaseAnswer {
        var matches = AnswerDigest()
        for person in try materialised("SELECT * FROM person WHERE age > 40 AND lastName GLOB 'S*'") {
            matches.add(lastName: person.lastName)
        }
        return matches.answer
    }

    func sorted() throws -> PhaseAnswer {
        var page = AnswerDigest()
        for person in try materialised("SELECT * FROM person ORDER BY lastName, firstName LIMIT \(ReferenceAnswers.sortedPageSize)") {
            page.append(lastName: person.lastName, firstName: person.firstName)
        }
        return page.answer
    }

    private func materialised(_ sql: String) throws -> [PersonRow] {
        try database().read { db in
            var people: [PersonRow] = []
            let rows = try Row.fetchCursor(db, sql: sql)
            while let row = try rows.next() { people.append(Self.person(row)) }
            return people
        }
    }

    func aggregate() throws -> PhaseAnswer {
        try database().read { db in
            try file.withDefaultCache(db) {
                var groups = AnswerDigest()
                for row in try Row.fetchAll(db, sql: "SELECT departmentID, SUM(salary) FROM person GROUP BY departmentID") {
                    groups.add(departmentID: row[0], salarySum: row[1])
                }
                return groups.answer
            }
        }
    }

    func count() throws -> PhaseAnswer {
        try database().read { db in
            PhaseAnswer(count: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM person WHERE salary > 100000") ?? 0)
        }
    }

    func close() throws { try file.close() }

    var fileBytes: UInt64 { file.fileBytes }

    func reopen() throws -> Int {
        let queue = try file.open()
        defer { try? queue.close() }
        return try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM person") ?? 0 }
    }

    func writeUntilKilled(from firstKey: Int64, committed: () -> Void) throws {
        var key = firstKey
        while true {
            let people = try JSONRecords(BenchData.newPeopleJSON(from: key, count: RecoveryPhase.batchSize))
            try database().write { db in try Self.upsert(people, in: db) }
            committed()
            key += Int64(RecoveryPhase.batchSize)
        }
    }

    private static func person(_ row: Row) -> PersonRow {
        PersonRow(
            id: row[0], firstName: row[1], lastName: row[2], age: row[3], departmentID: row[4], salary: row[5], createdAt: row[6]
        )
    }
}

/// An array of JSON objects parsed by `JSONSerialization`, with typed field reads that
/// fail with the field's name instead of trapping.
struct JSONRecords {
    struct Record {
        let fields: [String: Any]

        func int(_ key: String) throws -> Int64 {
            guard let number = fields[key] as? NSNumber else { throw BenchError.badField(key) }
            return number.int64Value
        }

        func double(_ key: String) throws -> Double {
            guard let number = fields[key] as? NSNumber else { throw BenchError.badField(key) }
            return number.doubleValue
        }

        func string(_ key: String) throws -> String {
            guard let text = fields[key] as? String else { throw BenchError.badField(key) }
            return text
        }
    }

    let records: [Record]

    init(_ data: Data) throws {
        guard let array = try JSONSerialization.jsonObject(with: data) as? [Any] else { throw BenchError.notAnArray }
        records = try array.map { element in
            guard let fields = element as? [String: Any] else { throw BenchError.notAnArray }
            return Record(fields: fields)
        }
    }
}

enum BenchError: Error, CustomStringConvertible {
    case badField(String)
    case sqlite(String)
    case notAnArray
    case unknownSystem(String)
    case unknownPhase(String)
    case childFailed(String)
    case badAnswer(String)
    case wrongAnswer(system: String, phase: String, got: PhaseAnswer, expected: PhaseAnswer)

    var description: String {
        switch self {
        case .badField(let key): "a record's \(key) is missing or of the wrong type"
        case .sqlite(let reason): "SQLite failed \(reason)"
        case .notAnArray: "the JSON input is not an array of objects"
        case .unknownSystem(let name): "no system named \(name) (mrstore, sqlite, grdb-records)"
        case .unknownPhase(let name): "no phase named \(name) (\(Phase.allCases.map(\.rawValue).joined(separator: ", ")))"
        case .childFailed(let reason): "the recovery phase's writer: \(reason)"
        case .badAnswer(let reason): reason
        case let .wrongAnswer(system, phase, got, expected):
            "\(system) answered \(phase) wrongly: \(got), where the data says \(expected); its figures would not count"
        }
    }
}

import Foundation
import GRDB

/// SQLite as a typical GRDB user writes it: `Codable` records decoded by `JSONDecoder`,
/// `upsert`, `fetchOne(key:)` and the query interface.
final class GRDBRecordsSystem: BenchSystem {
    static let name = "grdb-records"

    struct PersonRecord: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "person"
        var id: Int64
        var firstName: String
        var lastName: String
        var age: Int16
        var departmentID: Int32
        var salary: Double
        var createdAt: Date
    }

    struct DepartmentRecord: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "department"
        var departmentID: Int32
        var name: String
    }

    private let file: SQLiteDatabase

    init(directory: URL, durability: BenchDurability, tuning: StoreTuning) throws {
        file = SQLiteDatabase(directory.appendingPathComponent("bench-grdb.db"), durability: durability, cacheMiB: tuning.sqliteCacheMiB)
    }

    private func database() throws -> DatabaseQueue { try file.connection() }

    private static func decode<Record: Decodable>(_ data: Data) throws -> [Record] {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode([Record].self, from: data)
    }

    func importJSON(_ data: BenchData) throws -> Int {
        let departments: [DepartmentRecord] = try Self.decode(data.departmentsJSON)
        let people: [PersonRecord] = try Self.decode(data.peopleJSON)
        try database().write { db in
            try db.create(table: "department", options: .ifNotExists) { table in
                table.primaryKey("departmentID", .integer)
                table.column("name", .text)
            }
            try db.create(table: "person", options: .ifNotExists) { table in
                table.primaryKey("id", .integer)
                table.column("firstName", .text).notNull()
                table.column("lastName", .text).notNull()
                table.column("age", .integer).notNull()
                table.column("departmentID", .integer).notNull().references("department")
                table.column("salary", .double).notNull()
                table.column("createdAt", .datetime).notNull()
            }
            for department in departments { try department.upsert(db) }
            for person in people { try person.upsert(db) }
        }
        return people.count
    }

    func upsert(_ data: BenchData) throws -> Int {
        let people: [PersonRecord] = try Self.decode(data.upsertJSON)
        try database().write { db in
            for person in people { try person.upsert(db) }
        }
        return people.count
    }

    func get(_ keys: [Int64]) throws -> PhaseAnswer {
        try database().read { db in
            var found = AnswerDigest()
            for key in keys {
                guard let person = try PersonRecord.fetchOne(db, key: key) else { continue }
                found.add(lastName: person.lastName)
            }
            return found.answer
        }
    }

    func scan() throws -> PhaseAnswer {
        try database().read { db in
            var matches = AnswerDigest()
            for person in try PersonRecord.filter(Column("age") > 40 && Column("lastName").like("S%")).fetchAll(db) {
                matches.add(lastName: person.lastName)
            }
            return matches.answer
        }
    }

    func sorted() throws -> PhaseAnswer {
        try database().read { db in
            var page = AnswerDigest()
            let request = PersonRecord.order(Column("lastName"), Column("firstName")).limit(ReferenceAnswers.sortedPageSize)
            for person in try request.fetchAll(db) { page.append(lastName: person.lastName, firstName: person.firstName) }
            return page.answer
        }
    }

    func aggregate() throws -> PhaseAnswer {
        try database().read { db in
            let rows = try PersonRecord
                .select(Column("departmentID"), sum(Column("salary")))
                .group(Column("departmentID"))
                .asRequest(of: Row.self)
                .fetchAll(db)
            var groups = AnswerDigest()
            for row in rows { groups.add(departmentID: row[0], salarySum: row[1]) }
            return groups.answer
        }
    }

    func count() throws -> PhaseAnswer {
        try database().read { db in PhaseAnswer(count: try PersonRecord.filter(Column("salary") > 100_000).fetchCount(db)) }
    }

    func close() throws { try file.close() }

    var fileBytes: UInt64 { file.fileBytes }

    func reopen() throws -> Int {
        let queue = try file.open()
        defer { try? queue.close() }
        return try queue.read { db in try PersonRecord.fetchCount(db) }
    }

    func writeUntilKilled(from firstKey: Int64, committed: () -> Void) throws {
        var key = firstKey
        while true {
            let people: [PersonRecord] = try Self.decode(BenchData.newPeopleJSON(from: key, count: RecoveryPhase.batchSize))
            try database().write { db in
                for person in people { try person.upsert(db) }
            }
            committed()
            key += Int64(RecoveryPhase.batchSize)
        }
    }
}

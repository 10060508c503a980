import Foundation
import MagicalRecord
import MagicalStore

/// Our store, through the calls a MagicalRecord user makes: `importFromJSON`,
/// `findFirst(byAttribute:withValue:)`, `findAll(with:)`, `aggregateOperation`,
/// `countOfEntities(with:)`.
final class MagicalRecordSystem: BenchSystem {
    static let name = "mrstore"

    private let url: URL
    private let durability: Durability
    private let tuning: StoreTuning
    private var stack: PersistentStack?
    private(set) var lastCompaction: Duration?

    init(directory: URL, durability: BenchDurability, tuning: StoreTuning) throws {
        url = directory.appendingPathComponent("bench.store")
        self.durability = durability == .full ? .full : .normal
        self.tuning = tuning
        MagicalRecord.register(Person.self, Department.self)
    }

    private func context() throws -> ManagedObjectContext {
        if let stack { return stack.rootContext }
        let opened = try PersistentStack(
            storeAt: url, model: Self.model, durability: durability, scanThreads: tuning.scanThreads,
            compression: tuning.compression, compactionCompression: tuning.compactionCompression
        )
        stack = opened
        return opened.rootContext
    }

    /// Large imports commit batch by batch: memory stays bounded, and batches of plain
    /// records take the import path without objects. Each commit rewrites most leaves of
    /// the trees a batch of scattered keys touches, so fewer, larger batches upsert faster,
    /// for memory: 75,000 keeps a 1M-record import under the 256 MiB mark (figures in the
    /// README).
    private static let importOptions = ImportOptions(batchSize: 75_000, commitsEachBatch: true)

    func importJSON(_ data: BenchData) throws -> Int {
        let context = try context()
        try Department.importFromJSON(data.departmentsJSON, in: context, options: Self.importOptions)
        let result = try Person.importFromJSON(data.peopleJSON, in: context, options: Self.importOptions)
        lastCompaction = result.compaction?.duration
        return result.recordsRead
    }

    func upsert(_ data: BenchData) throws -> Int {
        let result = try Person.importFromJSON(data.upsertJSON, in: try context(), options: Self.importOptions)
        lastCompaction = result.compaction?.duration
        return result.recordsRead
    }

    func get(_ keys: [Int64]) throws -> PhaseAnswer {
        let context = try context()
        var found = AnswerDigest()
        for key in keys {
            guard let person = try Person.findFirst(byAttribute: "id", withValue: key, in: context) else { continue }
            found.add(lastName: person.lastName)
        }
        return found.answer
    }

    func scan() throws -> PhaseAnswer {
        let predicate = try ObjectPredicate(format: "age > %d AND lastName BEGINSWITH %@", 40, "S")
        var matches = AnswerDigest()
        for person in try Person.findAll(with: predicate, in: try context()) { matches.add(lastName: person.lastName) }
        return matches.answer
    }

    func sorted() throws -> PhaseAnswer {
        var request = try Person.requestAll(sortedBy: "lastName,firstName")
        request.fetchLimit = ReferenceAnswers.sortedPageSize
        var page = AnswerDigest()
        for person in try Person.executeFetchRequest(request, in: try context()) {
            page.append(lastName: person.lastName, firstName: person.firstName)
        }
        return page.answer
    }

    func aggregate() throws -> PhaseAnswer {
        var groups = AnswerDigest()
        for row in try Person.aggregateOperation("sum:", onAttribute: "salary", groupBy: "departmentID", in: try context()) {
            guard case .integer(let department)? = row["departmentID"], case .double(let sum)? = row["result"] else {
                throw BenchError.badAnswer("an aggregate row without an integer departmentID and a double result: \(row)")
            }
            groups.add(departmentID: Int(department), salarySum: sum)
        }
        return groups.answer
    }

    func count() throws -> PhaseAnswer {
        PhaseAnswer(count: try Person.countOfEntities(with: try ObjectPredicate(format: "salary > %d", 100_000), in: try context()))
    }

    func close() throws {
        try stack?.close()
        stack = nil
    }

    var fileBytes: UInt64 { url.fileSize }

    func reopen() throws -> Int {
        let stack = try PersistentStack(storeAt: url, durability: durability, compression: tuning.compression)
        defer { try? stack.close() }
        return try Person.countOfEntities(in: stack.rootContext)
    }

    func writeUntilKilled(from firstKey: Int64, committed: () -> Void) throws {
        let context = try context()
        var key = firstKey
        while true {
            try Person.importFromJSON(BenchData.newPeopleJSON(from: key, count: RecoveryPhase.batchSize), in: context, options: Self.importOptions)
            committed()
            key += Int64(RecoveryPhase.batchSize)
        }
    }

    static let model = try! ObjectModel(entities: [
        EntityDescription("Department", relatedBy: "departmentID") {
            AttributeDescription("departmentID", .integer32, optional: false)
            AttributeDescription("name", .string)
            RelationshipDescription("people", to: "Person", inverse: "department", toMany: true)
        },
        EntityDescription("Person", relatedBy: "id") {
            AttributeDescription("id", .integer64, optional: false)
            AttributeDescription("firstName", .string, optional: false)
            AttributeDescription("lastName", .string, optional: false)
            AttributeDescription("age", .integer16, optional: false, default: .integer(0))
            AttributeDescription("departmentID", .integer32, optional: false, default: .integer(0))
            AttributeDescription("salary", .double, optional: false, default: .double(0))
            AttributeDescription("createdAt", .date, optional: false)
            RelationshipDescription("department", to: "Department", inverse: "people", userInfo: ["mappedKeyName": "departmentID"])
        },
    ], versionName: "mrbench")
}

final class Department: ManagedObject {
    @Field var departmentID: Int32
    @Field var name: String?
}

final class Person: ManagedObject {
    @Field var id: Int64
    @Field var firstName: String
    @Field var lastName: String
    @Field var age: Int16
    @Field var departmentID: Int32
    @Field var salary: Double
    @Field var createdAt: Date
    @ToOne var department: Department?
}

import Foundation
import MagicalStore
@testable import MagicalRecord

/// The model the fetch suites share:
/// - Department and Employee: a small company for sorts, finders, pending changes and
///   aggregates (a to-one `department` for key paths);
/// - Sample: one indexed attribute of every kind the planner reads, and one not indexed,
///   for the planner's property test (RandomFetches.swift);
/// - Animal, abstract, with Dog and Cat: fetches across subentities.
enum FetchModel {
    static let model: ObjectModel = {
        do {
            return try ObjectModel(entities: [
                EntityDescription("Department", relatedBy: "departmentID") {
                    AttributeDescription("departmentID", .integer32, optional: false)
                    AttributeDescription("name", .string, indexed: true)
                    AttributeDescription("budget", .decimal)
                    RelationshipDescription("employees", to: "Employee", inverse: "department", toMany: true)
                },
                EntityDescription("Employee", relatedBy: "employeeID") {
                    AttributeDescription("employeeID", .integer64, optional: false)
                    AttributeDescription("firstName", .string)
                    AttributeDescription("lastName", .string, indexed: true)
                    AttributeDescription("age", .integer16, indexed: true)
                    AttributeDescription("salary", .integer64)
                    AttributeDescription("height", .double)
                    AttributeDescription("born", .date)
                    RelationshipDescription("department", to: "Department", inverse: "employees")
                },
                EntityDescription("Sample", relatedBy: "sampleID") {
                    AttributeDescription("sampleID", .integer64, optional: false)
                    AttributeDescription("small", .integer16, indexed: true)
                    AttributeDescription("big", .integer64, indexed: true)
                    AttributeDescription("name", .string, indexed: true)
                    AttributeDescription("day", .date, indexed: true)
                    AttributeDescription("ratio", .double, indexed: true)
                    AttributeDescription("amount", .decimal, indexed: true)
                    AttributeDescription("flag", .boolean, indexed: true)
                    AttributeDescription("note", .string)
                },
                EntityDescription("Animal", abstract: true) {
                    AttributeDescription("name", .string)
                    AttributeDescription("legs", .integer16, indexed: true)
                },
                EntityDescription("Dog", parent: "Animal"),
                EntityDescription("Cat", parent: "Animal") {
                    AttributeDescription("lives", .integer16, default: .integer(9))
                },
            ])
        } catch {
            fatalError("the fetch test model does not resolve: \(error)")
        }
    }()
}

/// A stack of its own over an in-memory store: the root saving context and the main
/// context, its child. No global setup, so the suites run in parallel.
struct FetchStack {
    let store: ObjectStore
    let root: ManagedObjectContext
    let main: ManagedObjectContext

    init() throws {
        try self.init(options: StoreOptions(durability: .none, fileSystem: MemoryFileSystem(tracksDurability: false)))
    }

    /// A stack whose scans of more than `entriesPerThread` objects go in parts on up to
    /// `threads` threads, over small pages (so that small entities make trees to cut).
    init(scanThreads threads: Int, entriesPerThread: Int) throws {
        try self.init(options: StoreOptions(
            durability: .none, pageSize: 512, fileSystem: MemoryFileSystem(tracksDurability: false),
            scanThreads: threads, entriesPerScanThread: entriesPerThread
        ))
    }

    private init(options: StoreOptions) throws {
        store = try ObjectStore(path: "/fetch.store", model: FetchModel.model, options: options)
        (root, main) = ObjectStack(store: store).makeContexts()
    }

    /// A stack whose scans of the employees go in 16 parts on 4 threads.
    static func inParts() throws -> FetchStack {
        try FetchStack(scanThreads: 4, entriesPerThread: 200)
    }

    /// A new context whose parent is the main context.
    func child() -> ManagedObjectContext {
        .context(withParent: main)
    }

    /// `count` employees of random ages, names, salaries and heights, the same for the
    /// same seed, saved: what scans in parts are held to one thread's answers on. Every
    /// fifth has no salary and every seventh no height (a field a record lacks).
    func savingEmployees(_ count: Int = 1_500, seed: UInt64) throws -> FetchStack {
        var random = SeededGenerator(seed: seed)
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        for number in 0..<count {
            let lastName = String(letters[Int.random(in: 0..<letters.count, using: &random)]) + "son\(number % 7)"
            var values: [String: AttributeValue] = [
                "employeeID": .integer(Int64(number)), "lastName": .string(lastName),
                "age": .integer(Int64.random(in: 18...70, using: &random)),
            ]
            if number % 5 != 0 { values["salary"] = .integer(Int64.random(in: 20_000...120_000, using: &random)) }
            if number % 7 != 0 { values["height"] = .double(Double.random(in: 1.4...2.1, using: &random)) }
            _ = try main.insert("Employee", values)
        }
        try main.saveToPersistentStore()
        return self
    }
}

/// A small company: three departments (one without employees) and six employees, the
/// last with every attribute nil and no department.
///
/// | id | first | last     | age | salary  | height | born       | department |
/// |----|-------|----------|-----|---------|--------|------------|------------|
/// | 1  | Ada   | Lovelace | 36  | 90 000  | 1.65   | 1815-12-10 | Research   |
/// | 2  | Grace | Hopper   | 85  | 120 000 | 1.60   | 1906-12-09 | Research   |
/// | 3  | Alan  | Turing   | 41  | 95 000  | 1.78   | 1912-06-23 | Research   |
/// | 4  | Yan   | Zhou     | 28  | 60 000  | nil    | 1996-03-01 | Sales      |
/// | 5  | Zoë   | Ångström | 41  | 70 000  | 1.70   | nil        | Sales      |
/// | 6  | nil   | nil      | nil | nil     | nil    | nil        | nil        |
///
/// Last names in UTF-8 byte order: nil, Hopper, Lovelace, Turing, Zhou, Ångström.
struct Company {
    let sales: ManagedObject
    let research: ManagedObject
    let empty: ManagedObject
    let ada: ManagedObject
    let grace: ManagedObject
    let alan: ManagedObject
    let yan: ManagedObject
    let zoe: ManagedObject
    let nobody: ManagedObject

    init(in context: ManagedObjectContext) throws {
        sales = try context.insert("Department", ["departmentID": .integer(1), "name": .string("Sales"), "budget": .decimal(Decimal(string: "1000.50")!)])
        research = try context.insert("Department", ["departmentID": .integer(2), "name": .string("Research"), "budget": .decimal(2500)])
        empty = try context.insert("Department", ["departmentID": .integer(3), "name": .string("Empty")])
        ada = try Self.employee(1, "Ada", "Lovelace", 36, 90_000, 1.65, "1815-12-10", research, in: context)
        grace = try Self.employee(2, "Grace", "Hopper", 85, 120_000, 1.60, "1906-12-09", research, in: context)
        alan = try Self.employee(3, "Alan", "Turing", 41, 95_000, 1.78, "1912-06-23", research, in: context)
        yan = try Self.employee(4, "Yan", "Zhou", 28, 60_000, nil, "1996-03-01", sales, in: context)
        zoe = try Self.employee(5, "Zoë", "Ångström", 41, 70_000, 1.70, nil, sales, in: context)
        nobody = try context.insert("Employee", ["employeeID": .integer(6)])
    }

    /// Every employee, in id order.
    var employees: [ManagedObject] { [ada, grace, alan, yan, zoe, nobody] }

    private static func employee(
        _ id: Int64, _ first: String, _ last: String, _ age: Int64, _ salary: Int64, _ height: Double?, _ born: String?,
        _ department: ManagedObject, in context: ManagedObjectContext
    ) throws -> ManagedObject {
        let employee = try context.insert("Employee", [
            "employeeID": .integer(id), "firstName": .string(first), "lastName": .string(last), "age": .integer(age),
            "salary": .integer(salary), "height": height.map(AttributeValue.double) ?? .null, "born": born.map(utcDay) ?? .null,
        ])
        try employee.setRelatedObject(department, forKey: "department")
        return employee
    }
}

extension ManagedObjectContext {
    /// A new object of `entity` with `values` set.
    @discardableResult
    func insert(_ entity: String, _ values: [String: AttributeValue]) throws -> ManagedObject {
        let object = try insertObject(entityName: entity)
        for (key, value) in values { try object.setValue(value, forKey: key) }
        return object
    }

    /// The ids `request` fetches, through ``fetch(_:)``.
    func fetchedIDs(_ request: FetchRequest) throws -> [ObjectID] {
        try fetch(request).map(\.objectID)
    }
}

/// A request for `entity`, its predicate parsed from `format`.
func fetchRequest(
    _ entity: String, _ format: String? = nil, _ arguments: (any PredicateArgumentConvertible)?...,
    sortedBy sortString: String = "", limit: Int = 0, offset: Int = 0
) throws -> FetchRequest {
    FetchRequest(
        entityName: entity, predicate: try format.map { try ObjectPredicate(format: $0, argumentArray: arguments) },
        sortKeys: try SortKey.parse(sortString), fetchLimit: limit, fetchOffset: offset
    )
}

/// A day at midnight UTC, from `yyyy-MM-dd`, read as predicates read date strings.
func utcDay(_ text: String) -> AttributeValue {
    guard let date = PredicateCoercion.date(fromISO8601: text) else { fatalError("\(text) is not a yyyy-MM-dd day") }
    return .date(date)
}

/// The error `body` throws; nil when it returns.
func fetchFailure<T>(_ body: () throws(MagicalRecordError) -> T) -> MagicalRecordError? {
    guard case .failure(let error) = Result(catching: body) else { return nil }
    return error
}

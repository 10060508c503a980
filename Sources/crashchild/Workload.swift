import Foundation
import MagicalRecord
import MagicalStore

/// The crash test's workload: numbered steps, each a pure function of the seed and its
/// number, so the killed child can resume where its store says it stopped and the parent
/// can replay the same steps on a plain-Swift reference.
struct Workload: Sendable {
    /// People have keys in `0..<keySpace`, so upserts both add and change.
    static let keySpace: Int64 = 3000
    static let departments = 40

    enum Step: Equatable {
        /// Import of these records (new and existing keys) from JSON bytes.
        case upsert([PersonRecord])
        /// Deletion of every person with a key in the range.
        case delete(Range<Int64>)
        /// Deletion of every person.
        case truncate
        /// Compaction of the store file, then a commit of the step number alone.
        case compact
    }

    let seed: UInt64

    func step(_ number: Int) -> Step {
        var random = SplitMix64(seed: seed &+ UInt64(number) &* 0x2545_F491_4F6C_DD1D)
        if number % 11 == 0 { return .compact }
        if number % 97 == 0 { return .truncate }
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<7:
            let count = Int.random(in: 1...250, using: &random)
            return .upsert((0..<count).map { _ in PersonRecord.random(using: &random) })
        default:
            let start = Int64.random(in: 0..<Self.keySpace, using: &random)
            return .delete(start..<start + Int64.random(in: 1...80, using: &random))
        }
    }
}

/// One person as the workload writes it and the reference keeps it.
struct PersonRecord: Equatable, Sendable {
    var personID: Int64
    var name: String
    var age: Int64
    var score: Double
    var departmentID: Int64

    static func random(using random: inout SplitMix64) -> PersonRecord {
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        let name = String((0..<Int.random(in: 3...14, using: &random)).map { _ in letters.randomElement(using: &random)! })
        return PersonRecord(
            personID: Int64.random(in: 0..<Workload.keySpace, using: &random),
            name: name,
            age: Int64.random(in: 0...120, using: &random),
            score: Double(Int.random(in: 0...1_000_000, using: &random)) / 8,
            departmentID: Int64.random(in: 0..<Int64(Workload.departments), using: &random)
        )
    }

    var json: String {
        #"{"personID": \#(personID), "name": "\#(name)", "age": \#(age), "score": \#(score), "department": \#(departmentID)}"#
    }
}

/// What the store must hold after a given step: people by key, the departments the import
/// created (never deleted), and the number of the last step committed.
struct ReferenceState: Equatable {
    var people: [Int64: PersonRecord] = [:]
    var departments: Set<Int64> = []
    var commit = 0

    mutating func apply(_ step: Workload.Step, number: Int) {
        switch step {
        case .upsert(let records):
            for record in records {
                people[record.personID] = record
                departments.insert(record.departmentID)
            }
        case .delete(let range):
            people = people.filter { !range.contains($0.key) }
        case .truncate:
            people = [:]
        case .compact:
            break
        }
        commit = number
    }
}

/// The model the child writes: people imported by key with a to-one department imported
/// by key, an index on the name, and the progress marker holding the last step's number.
let crashModel: ObjectModel = {
    do {
        return try ObjectModel(entities: [
            EntityDescription("Person", relatedBy: "personID") {
                AttributeDescription("personID", .integer64, optional: false)
                AttributeDescription("name", .string, indexed: true)
                AttributeDescription("age", .integer16)
                AttributeDescription("score", .double)
                RelationshipDescription("department", to: "Department", inverse: "people")
            },
            EntityDescription("Department", relatedBy: "departmentID") {
                AttributeDescription("departmentID", .integer64, optional: false)
                RelationshipDescription("people", to: "Person", inverse: "department", toMany: true)
            },
            EntityDescription("Progress") {
                AttributeDescription("commit", .integer64, optional: false)
            },
        ])
    } catch {
        preconditionFailure("the crash workload's model does not resolve: \(error)")
    }
}()

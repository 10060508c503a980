import Foundation
import MagicalRecord
import MagicalStore

/// Carries out workload steps on a store through the public API an application uses:
/// JSON import by key, fetch and delete, `saveToPersistentStore`, `compact`.
struct WorkloadRunner {
    let stack: PersistentStack
    let workload: Workload

    /// The number of the last step the store holds (0 for a new store).
    func committedStep() throws -> Int {
        let marker = try stack.mainContext.fetch(FetchRequest(entityName: "Progress")).first
        guard case .integer(let number)? = marker?["commit"] else { return 0 }
        return Int(number)
    }

    /// Performs step `number` and commits it with the progress marker, in one transaction
    /// (a compaction commits the marker right after).
    func perform(_ number: Int) throws {
        let context = stack.mainContext
        switch workload.step(number) {
        case .upsert(let records):
            let json = "[" + records.map(\.json).joined(separator: ",") + "]"
            try context.importRecords(from: Data(json.utf8), entityName: "Person")
        case .delete(let range):
            let predicate = try ObjectPredicate(format: "personID >= %@ AND personID < %@", range.lowerBound, range.upperBound)
            for person in try context.fetch(FetchRequest(entityName: "Person", predicate: predicate)) {
                try context.delete(person)
            }
        case .truncate:
            for person in try context.fetch(FetchRequest(entityName: "Person")) {
                try context.delete(person)
            }
        case .compact:
            try stack.compact()
        }
        let marker = try context.fetch(FetchRequest(entityName: "Progress")).first ?? context.insertObject(entityName: "Progress")
        try marker.setValue(.integer(Int64(number)), forKey: "commit")
        try context.saveToPersistentStore()
        // Objects are not needed across steps: keep the child's memory flat.
        context.reset()
    }
}

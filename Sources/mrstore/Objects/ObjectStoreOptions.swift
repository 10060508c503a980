import ArgumentParser
import Foundation
import MagicalRecord

/// What every object command takes: the store, and the entity with an optional filter.
struct EntityOptions: ParsableArguments {
    @Argument(help: "The store file.")
    var store: String

    @Option(help: "The entity to read (its subentities' objects are included).")
    var entity: String

    @Option(name: .customLong("where"), help: "A predicate in NSPredicate format, e.g. \"age > 40 AND lastName BEGINSWITH 'S'\".")
    var predicate: String?

    /// Opens the store read-only with its own model and checks the entity and predicate.
    func open() throws -> (stack: PersistentStack, request: FetchRequest) {
        try reportingErrors {
            let stack = try openObjectStore(store)
            guard stack.model.entity(named: entity) != nil else {
                try? stack.close()
                let known = stack.model.entities.map(\.name).sorted().joined(separator: ", ")
                throw MagicalRecordError.invalidFetch("the store has no entity \(entity) (it has: \(known))")
            }
            var request = FetchRequest(entityName: entity)
            if let predicate {
                do throws(ObjectPredicateError) {
                    request.predicate = try ObjectPredicate(format: predicate)
                } catch {
                    try? stack.close()
                    throw MagicalRecordError.predicate(error, entity: entity)
                }
            }
            return (stack, request)
        }
    }
}

/// Opens a store read-only with the model it was written with. The library's own error
/// log is silenced: the command prints every error itself.
func openObjectStore(_ path: String) throws -> PersistentStack {
    MagicalRecord.setLoggingLevel(.off)
    return try PersistentStack(storeAt: URL(fileURLWithPath: path), readOnly: true)
}

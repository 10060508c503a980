import Foundation
import MagicalStore
@testable import MagicalRecord

/// Shared by the libFuzzer target (Fuzz/) and the corpus replay in `make test`.
///
/// Arbitrary text parsed as a predicate (Spec/PREDICATES.md): it parses or fails with a
/// typed error; what parses formats to text that parses to the same format again; and
/// when it fits the sample entity, a fetch and a count with it agree, over saved objects
/// and unsaved ones alike.
func fuzzPredicate(_ input: UnsafeRawBufferPointer) {
    let text = String(decoding: input, as: UTF8.self)
    guard let predicate = try? ObjectPredicate(format: text) else { return }
    let formatted = predicate.predicateFormat
    guard let reparsed = try? ObjectPredicate(format: formatted) else {
        preconditionFailure("the formatted predicate does not parse: \(formatted)")
    }
    precondition(reparsed.predicateFormat == formatted, "format is not stable: \(formatted) vs \(reparsed.predicateFormat)")
    // What does not fit the entity fails the fetch's validation: found here without
    // making a context (most parsed inputs name keys Person does not have).
    guard let person = predicateModel.entity(named: "Person"), (try? predicate.validated(for: person, in: predicateModel)) != nil else { return }
    let request = FetchRequest(entityName: "Person", predicate: predicate)
    do {
        let context = try predicateContext()
        let fetched = try context.fetch(request)
        let counted = try context.count(for: request)
        precondition(counted == fetched.count, "count and fetch disagree for \(formatted): \(counted) and \(fetched.count)")
    } catch let error as MagicalRecordError {
        switch error {
        case .predicate, .invalidFetch: return
        default: preconditionFailure("unexpected error for \(formatted): \(error)")
        }
    } catch {
        preconditionFailure("unexpected error for \(formatted): \(error)")
    }
}

private let predicateModel: ObjectModel = {
    do {
        return try ObjectModel(entities: [
            EntityDescription("Person", relatedBy: "personID") {
                AttributeDescription("personID", .integer64, optional: false)
                AttributeDescription("name", .string, indexed: true)
                AttributeDescription("age", .integer16)
                AttributeDescription("salary", .double)
                AttributeDescription("born", .date)
                AttributeDescription("active", .boolean)
                AttributeDescription("score", .decimal)
                RelationshipDescription("department", to: "Department", inverse: "people")
                RelationshipDescription("friends", to: "Person", toMany: true)
            },
            EntityDescription("Department", relatedBy: "name") {
                AttributeDescription("name", .string)
                RelationshipDescription("people", to: "Person", inverse: "department", toMany: true)
            },
        ])
    } catch {
        preconditionFailure("the fuzz model does not resolve: \(error)")
    }
}()

/// A few saved people, in a store made once: inputs never save, so it stays as made, and
/// a store per input cost three times the fuzzing itself.
private let savedPeople = Result { () throws(MagicalRecordError) -> ObjectStore in
    let options = StoreOptions(durability: .none, cacheBytes: 64 << 10, fileSystem: MemoryFileSystem(tracksDurability: false))
    let store = try ObjectStore(path: "/predicate.store", model: predicateModel, options: options)
    let (_, main) = ObjectStack(store: store).makeContexts()
    let people = #"[{"personID": 1, "name": "Ann", "age": 31, "salary": 1000.5, "born": "2001-02-03T04:05:06Z", "active": true, "score": "1.5", "department": {"name": "Sales"}},"#
        + #"{"personID": 2, "name": "bob", "age": 45, "department": {"name": "Lab"}, "friends": [1]},"#
        + #"{"personID": 3}]"#
    try main.importRecords(from: Data(people.utf8), entityName: "Person")
    try main.saveToPersistentStore()
    return store
}

/// Fresh contexts over the saved people plus an unsaved one (new per input: fetches must
/// not depend on what an earlier input did).
private func predicateContext() throws -> ManagedObjectContext {
    let (_, main) = ObjectStack(store: try savedPeople.get()).makeContexts()
    try main.importRecords(from: Data(#"[{"personID": 4, "name": "Émile", "age": -2, "friends": [1, 2]}]"#.utf8), entityName: "Person")
    return main
}

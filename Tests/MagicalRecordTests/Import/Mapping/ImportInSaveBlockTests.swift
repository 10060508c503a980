import Foundation
import Testing
@testable import MagicalRecord

extension GlobalStackTests {
    /// Import the way the seeds do it: inside `saveWithBlock` on a background context,
    /// then the delete-missing pattern (`deleteAll(matching:)` with `NOT (id IN %@)`).
    @Suite struct ImportInSaveBlockTests {
        final class Ticket: ManagedObject {
            @Field var ticketID: Int64
            @Field var title: String?
        }

        static let model: ObjectModel = {
            do {
                return try ObjectModel(entities: [
                    EntityDescription("Ticket", relatedBy: "ticketID") {
                        AttributeDescription("ticketID", .integer64, optional: false)
                        AttributeDescription("title", .string)
                    },
                ])
            } catch {
                fatalError("the ticket model does not resolve: \(error)")
            }
        }()

        @Test func importInsideSaveWithBlockThenDeleteWhatTheFeedNoLongerHas() throws {
            try GlobalStack.with(model: Self.model) { () throws in
                MagicalRecord.register(Ticket.self)
                let first: [Any] = [["ticketID": 1, "title": "a"], ["ticketID": 2, "title": "b"], ["ticketID": 3]]
                try MagicalRecord.saveWithBlockAndWait { context in
                    try Ticket.importFromArray(first, in: context)
                }
                #expect(try Ticket.countOfEntities() == 3)

                let feed: [Any] = [["ticketID": "1"], ["ticketID": 3, "title": "c"]]
                try MagicalRecord.saveWithBlockAndWait { context in
                    let current = try Ticket.importFromArray(feed, in: context)
                    try Ticket.deleteAll(matching: ObjectPredicate(format: "NOT (ticketID IN %@)", current.map(\.ticketID)), in: context)
                }
                #expect(try Ticket.findAll(sortedBy: "ticketID").map(\.ticketID) == [1, 3])
                #expect(try Ticket.findFirst(byAttribute: "ticketID", withValue: 1)?.title == "a")
                #expect(try Ticket.findFirst(byAttribute: "ticketID", withValue: 3)?.title == "c")
            }
        }

        @Test func backgroundImportReportsFailureThroughTheCompletion() throws {
            try GlobalStack.with(model: Self.model) { () throws in
                MagicalRecord.register(Ticket.self)
                let done = DispatchSemaphore(value: 0)
                let outcome = OutcomeBox()
                MagicalRecord.saveWithBlock({ context in
                    try Ticket.importFromArray([["ticketID": 1], ["ticketID": "one"]] as [Any], in: context)
                }, completion: { result in
                    outcome.set(result)
                    done.signal()
                })
                #expect(done.wait(timeout: .now() + 30) == .success)
                guard case .failure(let error)? = outcome.get() else {
                    Issue.record("the import did not fail: \(String(describing: outcome.get()))")
                    return
                }
                #expect(error.description.contains("record 1"))
                #expect(try Ticket.countOfEntities() == 0)
            }
        }
    }
}

/// A result handed over from the completion queue.
private final class OutcomeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<Void, MagicalRecordError>?

    func set(_ result: Result<Void, MagicalRecordError>) { lock.withLock { self.result = result } }
    func get() -> Result<Void, MagicalRecordError>? { lock.withLock { result } }
}

import Dispatch
import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// Contexts used from many threads at once: background saves while the default context
/// reads, each result checked against what the writers made.
@Suite struct ConcurrencyTests {

    @Test func backgroundSavesWhileTheDefaultContextReads() throws {
        let stack = try ContextSavingTests.Stack()
        let writers = 4
        let perWriter = 50 * testScale
        let failures = Failures()
        let reading = ReadLog()
        let group = DispatchGroup()

        DispatchQueue.global().async(group: group) {
            // The reader: counts only grow, and every object seen is whole.
            var last = 0
            repeat {
                do {
                    let people = try stack.main.fetch(FetchRequest(entityName: "Person"))
                    if people.count < last { failures.add("count went from \(last) down to \(people.count)") }
                    last = people.count
                    for person in people where person["lastName"].stringValue?.hasPrefix("writer") != true {
                        failures.add("\(person) is not whole")
                    }
                    reading.note(last)
                } catch {
                    failures.add("read failed: \(error)")
                }
            } while reading.keepGoing
        }
        DispatchQueue.concurrentPerform(iterations: writers) { writer in
            let context = ManagedObjectContext.context(withParent: stack.main)
            for round in 0..<perWriter {
                do {
                    try context.performAndWait { () throws(MagicalRecordError) in
                        let person = try context.insertObject(entityName: "Person")
                        try person.setValue(.integer(Int64(writer * 1_000_000 + round)), forKey: "personID")
                        try person.setValue(.string("writer \(writer)"), forKey: "lastName")
                        try person.setValue(.integer(Int64(round % 100)), forKey: "age")
                    }
                    try context.saveToPersistentStore()
                } catch {
                    failures.add("writer \(writer) round \(round): \(error)")
                }
            }
        }
        reading.stop()
        group.wait()

        #expect(failures.all.isEmpty, "\(failures.all.prefix(5))")
        #expect(reading.reads > 0)
        let total = writers * perWriter
        #expect(try stack.main.count(for: FetchRequest(entityName: "Person")) == total)
        #expect(try stack.store.snapshot().count(of: ContextSavingTests.model.entity(named: "Person")!) == total)
        for writer in 0..<writers {
            let mine = try ObjectPredicate(format: "lastName == %@", "writer \(writer)")
            #expect(try stack.root.count(for: FetchRequest(entityName: "Person", predicate: mine)) == perWriter)
        }
    }

    @Test func concurrentFetchesAgreeWithASerialOne() throws {
        let stack = try ContextSavingTests.Stack()
        for number in 0..<200 {
            let person = try stack.root.insertObject(entityName: "Person")
            try person.setValue(.integer(Int64(number)), forKey: "personID")
            try person.setValue(.string("p\(number % 7)"), forKey: "lastName")
            try person.setValue(.integer(Int64(number % 90)), forKey: "age")
        }
        try stack.root.save()
        var request = FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: "age > 30 AND lastName IN {'p1', 'p3'}"))
        request.sortKeys = try SortKey.parse("lastName:NO,personID")
        let expected = try stack.main.fetchObjectIDs(request)
        let sharedRequest = request
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let context = ManagedObjectContext.context(withParent: stack.main)
            for _ in 0..<10 {
                do {
                    let ids = try context.fetchObjectIDs(sharedRequest)
                    if ids != expected { failures.add("got \(ids.count) ids, expected \(expected.count)") }
                } catch {
                    failures.add("\(error)")
                }
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all.prefix(5))")
    }

    final class Failures: @unchecked Sendable {
        private let lock = NSLock()
        private var messages: [String] = []
        func add(_ message: String) { lock.withLock { messages.append(message) } }
        var all: [String] { lock.withLock { messages } }
    }

    final class ReadLog: @unchecked Sendable {
        private let lock = NSLock()
        private var running = true
        private var count = 0
        var keepGoing: Bool { lock.withLock { running } }
        var reads: Int { lock.withLock { count } }
        func note(_: Int) { lock.withLock { count += 1 } }
        func stop() { lock.withLock { running = false } }
    }
}

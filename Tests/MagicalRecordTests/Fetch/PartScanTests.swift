import Foundation
import MagicalStore
import Synchronization
import Testing
@testable import MagicalRecord

/// A filtered scan of a large entity runs in parts on several threads and gives what a
/// scan on one thread gives: the same objects in the same order, the same counts, unsaved
/// changes in place of their records in every part, and the same error where a record is
/// damaged.
@Suite struct PartScanTests {
    /// Predicates no index answers: each is a scan.
    private static let predicates = [
        "salary > 40000 AND lastName ENDSWITH 'son3'", "salary < 50000", "salary == nil", "salary > 1000000",
        "firstName == nil OR salary < 30000", "NOT (salary > 60000)",
    ]

    @Test func partsFindWhatOneThreadFinds() throws {
        let serial = try FetchStack().savingEmployees(seed: 21)
        let parallel = try FetchStack.inParts().savingEmployees(seed: 21)
        let parts = try parallel.main.stack.store.snapshot().recordParts("Employee", perThread: 4)
        #expect(parts.threads == 4 && parts.ranges.count == 16)
        #expect(try serial.main.stack.store.snapshot().recordParts("Employee", perThread: 4).ranges.count == 1)
        for format in Self.predicates {
            let request = try fetchRequest("Employee", format)
            #expect(try parallel.main.plan(for: request) == "scan")
            let expected = try serial.main.fetchedIDs(request).map(\.number)
            #expect(try parallel.main.fetchedIDs(request).map(\.number) == expected, "\(format)")
            #expect(try parallel.main.fetchObjectIDs(request).map(\.number) == expected, "\(format)")
            #expect(try parallel.main.count(for: request) == expected.count, "\(format)")
            #expect(try parallel.root.count(for: request) == expected.count, "\(format)")
        }
        // The first of a sorted order: each part keeps its own, merged.
        for (format, sort, limit, offset) in [
            (nil, "lastName,salary", 10, 5), ("salary > 40000", "salary:NO", 25, 0), (nil, "salary", 2_000, 0), ("salary == nil", "lastName:NO", 7, 3),
        ] as [(String?, String, Int, Int)] {
            let request = try fetchRequest("Employee", format, sortedBy: sort, limit: limit, offset: offset)
            let expected = try serial.main.fetchedIDs(request).map(\.number)
            #expect(!expected.isEmpty)
            #expect(try parallel.main.fetchedIDs(request).map(\.number) == expected, "\(sort) limit \(limit)")
        }
        // Matches come in id order, whole objects.
        let young = try parallel.main.fetch(fetchRequest("Employee", "age < 25"))
        #expect(!young.isEmpty && young.map(\.objectID.number) == young.map(\.objectID.number).sorted())
        #expect(young.allSatisfy { $0["lastName"] != .null })
    }

    /// Results reach the caller in part order, whichever thread read them; a caller that
    /// stops early (throws) gets its error, and no part is read once the call returns.
    @Test func partsAreHandedOverInOrder() {
        for round in 0..<200 {
            let ranges = (0..<20).map { StoreSnapshot.RecordPart(lower: [UInt8($0)], upper: nil) }
            let parts = StoreSnapshot.RecordParts(ranges: ranges, threads: 1 + round % 4)
            let stopAt = round % 3 == 0 ? round % 20 : nil
            var seen: [Int] = []
            let read = Mutex(0)
            let outcome = Result { () throws(MagicalRecordError) in
                try FetchExecutor.inParts(parts, { part -> Int in
                    read.withLock { $0 += 1 }
                    return Int(part.lower![0])
                }, consume: { (index) throws(MagicalRecordError) in
                    if index == stopAt { throw .invalidFetch("stop") }
                    seen.append(index)
                })
            }
            if let stopAt {
                #expect(seen == Array(0..<stopAt))
                guard case .failure(.invalidFetch) = outcome else {
                    Issue.record("round \(round): \(outcome)")
                    continue
                }
            } else {
                #expect(seen == Array(0..<20), "round \(round)")
                #expect(read.withLock { $0 } == 20)
            }
            let settled = read.withLock { $0 }
            #expect(settled <= 20)
            Thread.sleep(forTimeInterval: 0.0002)
            #expect(read.withLock { $0 } == settled, "round \(round): a part read after the call returned")
        }
    }

    @Test func unsavedChangesReplaceTheirRecordsInEveryPart() throws {
        let stack = try FetchStack.inParts().savingEmployees(seed: 21)
        let everyone = try stack.main.fetch(fetchRequest("Employee"))
        // Ten changed to match, from every part of the id range, and ten matching deleted.
        let step = everyone.count / 10
        var expected = Set(try stack.main.fetchedIDs(fetchRequest("Employee", "age > 65")))
        for index in stride(from: 0, to: everyone.count, by: step) {
            try everyone[index].setValue(.integer(66), forKey: "age")
            expected.insert(everyone[index].objectID)
        }
        for object in try stack.main.fetch(fetchRequest("Employee", "age > 65")).prefix(10) where object["age"] != .integer(66) {
            try stack.main.delete(object)
            expected.remove(object.objectID)
        }
        let request = try fetchRequest("Employee", "age > 65")
        #expect(Set(try stack.main.fetchedIDs(request)) == expected)
        #expect(try stack.main.count(for: request) == expected.count)
    }

    @Test func aDamagedRecordStopsTheScanAsOnOneThread() throws {
        for stack in [try FetchStack().savingEmployees(seed: 21), try FetchStack.inParts().savingEmployees(seed: 21)] {
            // Two records of different parts replaced by bytes no record begins with: the
            // scan reports the first in id order, whichever part failed first.
            try stack.store.store.write { transaction in
                let tree = try transaction.tree(StoreLayout.objectTree("Employee"))
                for number: Int64 in [1_100, 300] { try tree.put(StoreLayout.objectKey(number), [0xFF, 0xFF, 0xFF, 0xFF]) }
            }
            let request = try fetchRequest("Employee", "salary > 40000")
            let fetchError = #expect(throws: MagicalRecordError.self) { try stack.main.fetch(request) }
            let countError = #expect(throws: MagicalRecordError.self) { try stack.main.count(for: request) }
            for error in [fetchError, countError] {
                guard case .damagedRecord(let id)? = error else {
                    Issue.record("expected a damaged record, got \(String(describing: error))")
                    continue
                }
                #expect(id == ObjectID(entityName: "Employee", number: 300))
            }
        }
    }
}

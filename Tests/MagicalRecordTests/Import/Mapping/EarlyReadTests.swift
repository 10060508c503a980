import Foundation
import Synchronization
import Testing
@testable import MagicalRecord

/// A read started at once on a thread of its own: its result, or its error, when taken,
/// and its closure let go of once it is waited for.
@Suite struct EarlyReadTests {
    @Test func takeGivesTheBatchReadOnAnotherThread() throws {
        let thread = Mutex<UInt>(0)
        let early = EarlyRead { () throws(MagicalRecordError) -> Int? in
            thread.withLock { $0 = UInt(pthread_self()) }
            return 42
        }
        #expect(try early.take() == 42)
        #expect(thread.withLock { $0 } != 0 && thread.withLock { $0 } != UInt(pthread_self()))
        early.wait()
    }

    @Test func anInputAtItsEndGivesNil() throws {
        let early = EarlyRead { () throws(MagicalRecordError) -> Int? in nil }
        #expect(try early.take() == nil)
    }

    @Test func aFailedReadThrowsItsErrorWhenTaken() {
        let early = EarlyRead { () throws(MagicalRecordError) -> Int? in throw .notAnObjectStore(path: "early") }
        early.wait()
        early.wait()
        #expect {
            _ = try early.take()
        } throws: { error in
            guard case MagicalRecordError.notAnObjectStore(path: "early") = error else { return false }
            return true
        }
    }

    /// Only after a full first batch (one short of the batch size ended its input), and not
    /// after a few records, which read faster than a thread starts.
    @Test func theNextBatchIsReadEarlyOnlyAfterAFullAndLargeFirstOne() {
        let minimum = EarlyRead<Int>.minimumBatch
        #expect(EarlyRead<Int>.isWorthReading(afterFirstBatchOf: 75_000, batchSize: 75_000))
        #expect(EarlyRead<Int>.isWorthReading(afterFirstBatchOf: minimum, batchSize: minimum))
        #expect(!EarlyRead<Int>.isWorthReading(afterFirstBatchOf: 74_999, batchSize: 75_000))
        #expect(!EarlyRead<Int>.isWorthReading(afterFirstBatchOf: minimum - 1, batchSize: minimum - 1))
        #expect(!EarlyRead<Int>.isWorthReading(afterFirstBatchOf: 0, batchSize: 1))
    }

    /// The import lends its batch source (`withoutActuallyEscaping`): it must have been let
    /// go of when `wait` returns, though the thread may outlive it a moment.
    @Test func aLentSourceIsLetGoWhenWaitReturns() {
        for round in 0..<300 {
            var count = 0
            let source: () throws(MagicalRecordError) -> Int? = {
                count += 1
                return round % 2 == 0 ? count : nil
            }
            withoutActuallyEscaping(source) { source in
                let early = EarlyRead(source)
                if round % 3 == 0 { _ = try? early.take() }
                early.wait()
            }
        }
    }
}

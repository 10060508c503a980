import Foundation
import Synchronization
import Testing
@testable import MagicalRecord

/// The import's read-ahead: items in order, produced on another thread at most one ahead
/// of the consumer, and nothing produced once it is finished, early or at the end.
@Suite struct ReadAheadTests {
    /// Counts what a producer made, from its own thread.
    private final class Producer: Sendable {
        let made = Atomic<Int>(0)
        let threads = Mutex<Set<UInt>>([])
        let limit: Int

        init(limit: Int = .max) { self.limit = limit }

        func produce() -> Int? {
            threads.withLock { _ = $0.insert(UInt(pthread_self())) }
            let count = made.load(ordering: .relaxed)
            guard count < limit else { return nil }
            made.store(count + 1, ordering: .relaxed)
            return count
        }
    }

    @Test func itemsComeInOrderFromAnotherThreadOneAhead() {
        let producer = Producer(limit: 50)
        let items = ReadAhead { producer.produce() }
        var received: [Int] = []
        while let item = items.next() {
            received.append(item)
            // The one being consumed and at most the next.
            #expect(producer.made.load(ordering: .relaxed) <= received.count + 1)
        }
        items.finish()
        #expect(received == Array(0..<50))
        #expect(items.next() == nil)
        #expect(!producer.threads.withLock { $0 }.contains(UInt(pthread_self())))
    }

    /// Work on an item while the consumer is busy with the one before: done on the
    /// producer's thread before the item is handed over, and told when the consumer waits
    /// for it (it spins here until then).
    @Test func workWhileTheConsumerIsBusyEndsWhenItWaits() {
        let producer = Producer(limit: 4)
        let worked = Mutex<[(item: Int, sawWanted: Bool)]>([])
        let items = ReadAhead { producer.produce() } whileConsumerBusy: { item, isWanted in
            let sawWanted = Self.spin(until: isWanted)
            worked.withLock { $0.append((item, sawWanted)) }
        }
        var received: [Int] = []
        while let item = items.next() {
            #expect(worked.withLock { $0.contains { $0.item == item } }, "worked on before it was handed over")
            received.append(item)
        }
        items.finish()
        #expect(received == [0, 1, 2, 3])
        #expect(worked.withLock { $0.map(\.item) } == [0, 1, 2, 3])
        #expect(worked.withLock { $0.allSatisfy(\.sawWanted) })
    }

    /// A consumer that stops early does not wait for work on an item it will not take.
    @Test func workWhileTheConsumerIsBusyEndsWhenItFinishes() {
        let producer = Producer()
        let worked = Mutex<[Bool]>([])
        let items = ReadAhead { producer.produce() } whileConsumerBusy: { _, isWanted in
            let sawWanted = Self.spin(until: isWanted)
            worked.withLock { $0.append(sawWanted) }
        }
        _ = items.next()
        items.finish()
        #expect(worked.withLock { $0.allSatisfy { $0 } })
    }

    /// Waits until `isWanted` says so, or ten seconds; whether it did.
    private static func spin(until isWanted: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while !isWanted() {
            guard ContinuousClock.now < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.001)
        }
        return true
    }

    @Test func finishingEarlyStopsTheProducer() {
        for consumed in 0..<4 {
            let producer = Producer()
            let items = ReadAhead { producer.produce() }
            for _ in 0..<consumed { _ = items.next() }
            items.finish()
            let made = producer.made.load(ordering: .relaxed)
            #expect(made <= consumed + 1)
            Thread.sleep(forTimeInterval: 0.01)
            #expect(producer.made.load(ordering: .relaxed) == made, "nothing produced after finish")
        }
    }

    /// The import lends its batch source (`withoutActuallyEscaping`): the read-ahead must
    /// have let go of it when `finish` returns, though its thread may outlive it a moment.
    @Test func aLentSourceIsLetGoWhenFinishReturns() {
        for round in 0..<300 {
            var count = 0
            let source: () -> Int? = {
                count += 1
                return count <= round % 3 ? count : nil
            }
            withoutActuallyEscaping(source) { source in
                let items = ReadAhead(source)
                _ = items.next()
                items.finish()
            }
        }
    }

    /// The threads items were freed on.
    private final class FreeLog: Sendable {
        let threads = Mutex<[UInt]>([])
    }

    /// Notes the thread it is freed on.
    private final class Spent: Sendable {
        let log: FreeLog
        init(_ log: FreeLog) { self.log = log }
        deinit { log.threads.withLock { $0.append(UInt(pthread_self())) } }
    }

    /// Items handed back are let go of on the producer's thread, before it makes the next:
    /// the consumer (an import's committing thread) does not free them.
    @Test func itemsHandedBackAreFreedOnTheProducersThread() {
        let producer = Producer(limit: 6)
        let log = FreeLog()
        let items = ReadAhead { producer.produce().map { ($0, Spent(log)) } }
        while let item = items.next() {
            items.recycle(item)
        }
        items.finish()
        // The read-ahead kept alive past the checks: the last item may still wait in it, to
        // be freed with it on whichever thread lets go of it last (here, once released
        // after `finish`, this one's).
        withExtendedLifetime(items) {
            let producerThreads = producer.threads.withLock { $0 }
            let threads = log.threads.withLock { $0 }
            // Every item but the last is freed before the producer's next call.
            #expect(threads.count >= 5)
            #expect(threads.allSatisfy { producerThreads.contains($0) })
        }
    }

    /// `whenDone` runs once, on the producer's thread, after its last call and before
    /// `finish` returns: at the end of the items and when finished early.
    @Test(arguments: [0, 1, 2, 7])
    func whenDoneRunsOnceAfterTheLastItemBeforeFinishReturns(consumed: Int) {
        let producer = Producer(limit: 5)
        let calls = Mutex<[(thread: UInt, made: Int)]>([])
        let items = ReadAhead { producer.produce() } whenDone: {
            calls.withLock { $0.append((UInt(pthread_self()), producer.made.load(ordering: .relaxed))) }
        }
        for _ in 0..<consumed { _ = items.next() }
        items.finish()
        let made = producer.made.load(ordering: .relaxed)
        let done = calls.withLock { $0 }
        #expect(done.count == 1)
        #expect(done.first?.made == made, "nothing produced after it")
        // The producer's thread (which a finish before its first call leaves without calls).
        #expect(done.first.map { $0.thread != UInt(pthread_self()) } ?? false)
        let producerThreads = producer.threads.withLock { $0 }
        #expect(done.first.map { producerThreads.isEmpty || producerThreads.contains($0.thread) } ?? false)
        Thread.sleep(forTimeInterval: 0.01)
        #expect(calls.withLock { $0.count } == 1)
    }

    @Test func anEmptySourceEndsAtOnce() {
        let items = ReadAhead<Int> { nil }
        #expect(items.next() == nil)
        #expect(items.next() == nil)
        items.finish()
    }
}

import Dispatch
import Foundation
import Synchronization

/// Produces items on a thread of its own, one ahead of the consumer: while an import
/// commits one batch, the next is read and converted on the other core.
///
/// `produce` runs on that thread only, one call at a time, and never after ``finish()``
/// returns; nil from it ends the items. `whileConsumerBusy`, if given, runs there on each
/// item produced before it is handed over, to do work the consumer would otherwise do
/// while the producer waits; it should return soon once the function it is given says
/// the consumer waits (or stops). `whenDone`, if given, runs on that thread after the last
/// call of `produce` (at the end, or after a stop), before ``finish()`` returns.
/// The consumer (one thread) calls ``next()`` until it gives nil or it stops early, and
/// then ``finish()``, which waits for the producer.
final class ReadAhead<Item>: @unchecked Sendable {
    /// Let go of by the producer before it signals `done`: a caller may lend a closure it
    /// must have back (`withoutActuallyEscaping`) when ``finish()`` returns, while the
    /// producer's thread may still hold this object a moment longer.
    private var produce: (() -> Item?)?
    /// Let go of likewise.
    private var whileConsumerBusy: ((Item, _ isWanted: () -> Bool) -> Void)?
    private var whenDone: (() -> Void)?
    /// The item handed over: written by the producer before it signals `filled`, read by
    /// the consumer after it waits on it (the semaphores order the accesses).
    private var slot: Item?
    /// Signalled by the consumer for each item it wants.
    private let wanted = DispatchSemaphore(value: 0)
    private let filled = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)
    /// Whether the consumer waits for the next item.
    private let isWanted = Atomic<Bool>(false)
    private var isFinished = false
    /// Items the consumer is done with, let go of on the producer's thread (under
    /// `spentLock`): freeing an import batch, its JSON values and states, was a tenth of
    /// the committing thread's time, and the reading thread has room to spare.
    private var spent: [Item] = []
    private let spentLock = NSLock()

    /// Starts producing the first item at once.
    init(
        _ produce: @escaping () -> Item?, whileConsumerBusy: ((Item, _ isWanted: () -> Bool) -> Void)? = nil,
        whenDone: (() -> Void)? = nil
    ) {
        self.produce = produce
        self.whileConsumerBusy = whileConsumerBusy
        self.whenDone = whenDone
        wanted.signal()
        // A thread of its own: the consumer waits for it, so it must start even when
        // the shared pool is busy (perhaps with importers waiting likewise).
        Thread.detachNewThread { self.run() }
    }

    private func run() {
        while true {
            wanted.wait()
            // Taken out under the lock, freed outside it: the consumer never waits on it.
            var garbage: [Item] = []
            spentLock.withLock { swap(&garbage, &spent) }
            garbage.removeAll()
            let item = stopped.load(ordering: .acquiring) ? nil : produce?()
            if let item, let whileConsumerBusy {
                whileConsumerBusy(item) { isWanted.load(ordering: .relaxed) || stopped.load(ordering: .relaxed) }
            }
            slot = item
            filled.signal()
            if item == nil { break }
        }
        whenDone?()
        produce = nil
        whileConsumerBusy = nil
        whenDone = nil
        done.signal()
    }

    /// The next item (produced ahead while the caller worked on the last), nil after the
    /// last. The one after it starts at once.
    func next() -> Item? {
        guard !isFinished else { return nil }
        isWanted.store(true, ordering: .relaxed)
        filled.wait()
        isWanted.store(false, ordering: .relaxed)
        guard let item = slot.take() else {
            isFinished = true
            return nil
        }
        wanted.signal()
        return item
    }

    /// Hands back an item the consumer is done with, to be let go of on the producer's
    /// thread before it produces the next.
    func recycle(_ item: consuming Item) {
        spentLock.lock()
        spent.append(item)
        spentLock.unlock()
    }

    /// Stops producing (an item under way is finished and dropped) and waits until the
    /// producer has stopped. Call it once, whether or not ``next()`` reached the end.
    func finish() {
        if !isFinished {
            stopped.store(true, ordering: .releasing)
            // Wakes the producer should it wait for a request; an item under way ends
            // with a nil handed over after it.
            wanted.signal()
        }
        done.wait()
    }
}

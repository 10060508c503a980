import Dispatch
import Testing
@testable import MagicalRecord

/// A context's lock: its holder takes it again without waiting, and it keeps other
/// threads out until the last unlock.
@Suite struct RecursiveLockTests {
    /// Counts under the lock; the lock is what keeps its updates whole.
    private final class Counter: @unchecked Sendable {
        let lock = RecursiveLock()
        var value = 0
    }

    @Test func itsHolderTakesItAgain() {
        let lock = RecursiveLock()
        let depth = lock.withLock { lock.withLock { lock.withLock { 3 } } }
        #expect(depth == 3)
    }

    @Test func itKeepsOtherThreadsOutUntilTheLastUnlock() {
        let counter = Counter()
        let threads = 4
        let rounds = 20_000 * testScale
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<rounds {
                counter.lock.withLock {
                    // Read, then written after a nested take: another thread in between
                    // would lose an increment.
                    let seen = counter.value
                    counter.lock.withLock { counter.value = seen + 1 }
                }
            }
        }
        #expect(counter.value == threads * rounds)
    }
}

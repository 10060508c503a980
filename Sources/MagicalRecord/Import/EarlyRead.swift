import Dispatch
import Foundation

/// A batch read on a thread of its own while the import's reading thread builds the batch
/// before it. Only the first batch is built so: until it is handed over, the committing
/// thread has nothing to do and its core is idle; after it, the two threads keep both
/// cores busy, and a third only took turns with them (stop 61: a reading thread split in
/// two for every batch ran the import 7% slower).
///
/// The read runs once, at once; ``take()`` waits for it and gives its result, ``wait()``
/// only waits. Whoever starts one must wait for it before anything it reads goes away.
final class EarlyRead<Batch>: @unchecked Sendable {
    /// Taken by the thread, and let go of before it signals `done`: a caller may lend a
    /// closure it must have back (`withoutActuallyEscaping`) once ``wait()`` returns.
    private var read: (() throws(MagicalRecordError) -> Batch?)?
    /// Written by the thread before it signals `done`, read after a wait on it.
    private var result: Result<Batch?, MagicalRecordError>?
    private let done = DispatchSemaphore(value: 0)
    private var isWaitedFor = false

    init(_ read: @escaping () throws(MagicalRecordError) -> Batch?) {
        self.read = read
        Thread.detachNewThread { self.run() }
    }

    private func run() {
        result = readOnce()
        done.signal()
    }

    private func readOnce() -> Result<Batch?, MagicalRecordError> {
        guard let read = read.take() else { return .success(nil) }
        return Result { () throws(MagicalRecordError) in try read() }
    }

    /// Whether the batch after a first one of `count` records is worth reading early: only
    /// when that one was full (a batch short of `batchSize` ends its input) and large
    /// enough that reading the next takes longer than starting a thread (tens of
    /// microseconds, about what a few hundred records take to read).
    static func isWorthReading(afterFirstBatchOf count: Int, batchSize: Int) -> Bool {
        count >= batchSize && count >= minimumBatch
    }

    /// Records in the smallest first batch after which the next is read early.
    static var minimumBatch: Int { 1_000 }

    /// The batch read (nil: the input was at its end), or why it could not be.
    func take() throws(MagicalRecordError) -> Batch? {
        wait()
        guard let result = result.take() else { return nil }
        return try result.get()
    }

    /// Returns once the read has ended. Any number of calls.
    func wait() {
        guard !isWaitedFor else { return }
        done.wait()
        isWaitedFor = true
    }
}

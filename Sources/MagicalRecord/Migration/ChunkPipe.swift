import Foundation

/// A bounded hand-over of chunks from one producer thread to one consumer: a migration
/// reads and rewrites records on one core while the other loads them into the new tree.
/// The producer blocks while `capacity` chunks wait; a consumer that stops early cancels,
/// which makes the producer's next `put` return false.
final class ChunkPipe<Chunk>: @unchecked Sendable {
    private let condition = NSCondition()
    private var chunks: [Chunk] = []
    private var isFinished = false
    private var isCancelled = false
    private var failure: (any Error)?
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Hands a chunk over; false once the consumer has cancelled.
    func put(_ chunk: Chunk) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while chunks.count >= capacity && !isCancelled { condition.wait() }
        guard !isCancelled else { return false }
        chunks.append(chunk)
        condition.broadcast()
        return true
    }

    /// The producer is done, successfully or with `error`.
    func finish(throwing error: (any Error)? = nil) {
        condition.lock()
        isFinished = true
        failure = error
        condition.broadcast()
        condition.unlock()
    }

    /// The next chunk; nil when the producer has finished and every chunk was taken.
    /// Rethrows the producer's error.
    func take() throws -> Chunk? {
        condition.lock()
        defer { condition.unlock() }
        while chunks.isEmpty && !isFinished { condition.wait() }
        if let failure { throw failure }
        guard !chunks.isEmpty else { return nil }
        let chunk = chunks.removeFirst()
        condition.broadcast()
        return chunk
    }

    /// The consumer stops: the producer's next `put` returns false.
    func cancel() {
        condition.lock()
        isCancelled = true
        chunks.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    /// Blocks until the producer has finished.
    func waitUntilFinished() {
        condition.lock()
        while !isFinished { condition.wait() }
        condition.unlock()
    }
}

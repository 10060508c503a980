import Foundation
import Testing
@testable import MagicalRecord

/// The producer-to-consumer hand-over behind a migration's two-core rewrite.
@Suite struct ChunkPipeTests {
    struct Failure: Error {}

    @Test func everyChunkArrivesInOrderThenTheEnd() throws {
        let pipe = ChunkPipe<Int>(capacity: 2)
        let producer = Thread {
            for number in 0..<1000 { _ = pipe.put(number) }
            pipe.finish()
        }
        producer.start()
        var received: [Int] = []
        while let number = try pipe.take() { received.append(number) }
        #expect(received == Array(0..<1000))
    }

    @Test func theProducersErrorReachesTheConsumer() {
        let pipe = ChunkPipe<Int>(capacity: 2)
        Thread {
            _ = pipe.put(1)
            pipe.finish(throwing: Failure())
        }.start()
        var received: [Int] = []
        #expect(throws: Failure.self) {
            while let number = try pipe.take() { received.append(number) }
        }
    }

    @Test func aConsumerThatStopsReleasesABlockedProducer() {
        let pipe = ChunkPipe<Int>(capacity: 1)
        let refused = ManagedCount()
        Thread {
            for number in 0..<100 where !pipe.put(number) {
                refused.increment()
                break
            }
            pipe.finish()
        }.start()
        _ = try? pipe.take()
        pipe.cancel()
        pipe.waitUntilFinished()
        #expect(refused.value == 1)
    }

    final class ManagedCount: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        var value: Int { lock.withLock { count } }
        func increment() { lock.withLock { count += 1 } }
    }
}

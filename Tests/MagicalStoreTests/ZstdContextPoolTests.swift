import Foundation
import Synchronization
import Testing
@testable import MagicalStore

/// The pools of Zstandard contexts: a context is lent to one thread at a time and kept
/// for the next caller, and the idle ones are freed on demand (after a compaction, at a
/// store's close), so a compaction's threads leave none behind.
@Suite struct ZstdContextPoolTests {
    /// Stand-in contexts: distinct addresses, counted as they are made and freed.
    final class Contexts: Sendable {
        let made = Atomic<Int>(0)
        let freed = Mutex<[Int]>([])

        func make() -> OpaquePointer? {
            OpaquePointer(bitPattern: 0x1000 * (made.add(1, ordering: .relaxed).newValue))
        }

        func free(_ context: OpaquePointer) {
            freed.withLock { $0.append(Int(bitPattern: UnsafeRawPointer(context))) }
        }
    }

    @Test func aContextIsKeptForTheNextCaller() {
        let contexts = Contexts()
        let pool = ContextPool(make: { contexts.make() }, free: { contexts.free($0) })
        let first = pool.borrow { Int(bitPattern: UnsafeRawPointer($0)) }
        let second = pool.borrow { Int(bitPattern: UnsafeRawPointer($0)) }
        #expect(first == second)
        #expect(contexts.made.load(ordering: .relaxed) == 1)
        #expect(pool.idleCount == 1)
    }

    @Test func idleContextsAreFreedAndLentOnesComeBack() {
        let contexts = Contexts()
        let pool = ContextPool(make: { contexts.make() }, free: { contexts.free($0) })
        // Three threads at once hold three contexts.
        let holding = DispatchGroup()
        let release = DispatchSemaphore(value: 0)
        for _ in 0..<3 {
            holding.enter()
            DispatchQueue.global().async {
                pool.borrow { _ in
                    holding.leave()
                    release.wait()
                }
            }
        }
        holding.wait()
        #expect(pool.idleCount == 0)
        // Two come back and are freed; the third is still lent and is kept when it returns.
        release.signal()
        release.signal()
        #expect(Self.wait { pool.idleCount == 2 })
        pool.releaseIdle()
        #expect(pool.idleCount == 0)
        #expect(contexts.freed.withLock { $0.count } == 2)
        release.signal()
        #expect(Self.wait { pool.idleCount == 1 })
        #expect(contexts.made.load(ordering: .relaxed) == 3)
        #expect(Set(contexts.freed.withLock { $0 }).count == 2)
    }

    /// Whether `condition` holds within ten seconds (threads run late on a busy machine).
    static func wait(for condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while !condition() {
            guard Date() < deadline else { return false }
            usleep(1_000)
        }
        return true
    }

    @Test func compressionStillWorksAfterTheContextsAreReleased() throws {
        let page = (0..<16_384).map { UInt8(truncatingIfNeeded: $0 % 251 / 3) }
        var compressed: [UInt8] = []
        let length = try #require(page.withUnsafeBytes { Zstd.compressIfWorthwhile($0, level: 3, appendingTo: &compressed) })
        Zstd.releaseIdleContexts()
        #expect(compressed.withUnsafeBytes { Zstd.decompress($0, rawLength: page.count) } == page)
        var again: [UInt8] = []
        #expect(page.withUnsafeBytes { Zstd.compressIfWorthwhile($0, level: 3, appendingTo: &again) } == length)
    }
}

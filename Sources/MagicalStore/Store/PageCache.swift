import Synchronization

/// Decoded pages by offset, shared by every snapshot of one store file. Pages are
/// immutable (copy-on-write), so a cached page never goes stale; eviction only bounds
/// memory.
final class PageCache: Sendable {
    private struct State {
        var pages: [UInt64: PageNode] = [:]
        var bytes = 0
    }

    private let state = Mutex(State())
    let capacityBytes: Int

    init(capacityBytes: Int) {
        self.capacityBytes = capacityBytes
    }

    func page(at offset: UInt64) -> PageNode? {
        state.withLock { $0.pages[offset] }
    }

    func insert(_ page: PageNode) {
        let cost = page.payload.count + 64
        guard cost <= capacityBytes else { return }
        state.withLock { state in
            if state.pages.updateValue(page, forKey: page.offset) == nil {
                state.bytes += cost
            }
            if state.bytes > capacityBytes {
                // Drop about an eighth, in hash order: effectively random, and cheap.
                var excess = state.bytes - (capacityBytes - capacityBytes / 8)
                var victims: [UInt64] = []
                for (offset, victim) in state.pages {
                    if excess <= 0 { break }
                    victims.append(offset)
                    excess -= victim.payload.count + 64
                }
                for offset in victims {
                    if let removed = state.pages.removeValue(forKey: offset) {
                        state.bytes -= removed.payload.count + 64
                    }
                }
            }
        }
    }
}

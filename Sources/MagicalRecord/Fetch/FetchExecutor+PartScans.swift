import Dispatch
import Synchronization

/// Scans of a large entity on several threads: each reads its own range of the object
/// tree (the snapshot's pages are immutable and shared) with a filter of its own; a
/// filtered scan decodes its matches, which the fetch then sees on its own thread in id
/// order, and a sorted page keeps each range's first matches, merged afterwards.
extension FetchExecutor {
    /// What a filtered scan reads and keeps, for each of its parts.
    struct RecordScan {
        let name: String
        let coder: RecordCoder
        let compiled: CompiledPredicate?
        let mask: RecordCoder.DecodeMask?
        let materialising: Bool
    }

    /// What one part found, up to the error that stopped it.
    struct PartMatches {
        /// Decoded matches, when materialising.
        var states: [ObjectState] = []
        /// Matches, when not materialising.
        var count = 0
        var failure: MagicalRecordError?
    }

    /// `body` is called as a scan on one thread calls it: with each match in id order, and
    /// an error thrown where that scan would stop (after the matches before it). Parts
    /// after a failed one may have been scanned already; what they found is dropped.
    func scanInParts(
        _ parts: StoreSnapshot.RecordParts, _ scan: RecordScan, _ body: (ObjectState?) throws(MagicalRecordError) -> Void
    ) throws(MagicalRecordError) {
        try Self.inParts(parts, { [self] in matches(in: $0, scan) }) { (part) throws(MagicalRecordError) in
            if scan.materialising {
                for state in part.states { try body(state) }
            } else {
                for _ in 0..<part.count { try body(nil) }
            }
            if let failure = part.failure { throw failure }
        }
    }

    /// Runs `work` on each part, on the parts' threads (this one among them), and hands
    /// each result to `consume` on this thread, in part order, as soon as it and those
    /// before it are done: the caller uses what the first parts found while the others are
    /// read. This thread reads a part itself whenever the next result is not ready. `work`
    /// runs on several threads at once (an executor's work only reads it: it does not
    /// change during a fetch); it is not called after this returns, `consume` thrown or not,
    /// though a helper may hold it a moment longer.
    static func inParts<Result>(
        _ parts: StoreSnapshot.RecordParts, _ work: @escaping (StoreSnapshot.RecordPart) -> Result,
        consume: (Result) throws(MagicalRecordError) -> Void
    ) throws(MagicalRecordError) {
        let run = PartRun(parts: parts.ranges, work: work)
        // Helpers that start late (a busy pool) find nothing left and never hold this
        // thread up: it reads every part no helper took.
        for _ in 1..<max(parts.threads, 1) {
            DispatchQueue.global(qos: .userInitiated).async { while run.runNext() {} }
        }
        var consumed = 0
        defer { run.finish(consumed: consumed) }
        for index in parts.ranges.indices {
            // Reads the next unclaimed part while this one is not ready.
            while !run.poll(index) {
                if !run.runNext() {
                    run.wait(for: index)
                    break
                }
            }
            consumed += 1
            try consume(run.take(index))
        }
    }

    private func matches(in part: StoreSnapshot.RecordPart, _ scan: RecordScan) -> PartMatches {
        var found = PartMatches()
        do throws(MagicalRecordError) {
            let filter = try scan.compiled.map { compiled throws(MagicalRecordError) in try recordFilter(compiled, scan.coder) }
            let hasOverlays = view.hasOverlays
            let interned = InternedName.token(for: scan.name)
            try view.snapshot.scanRecords(scan.name, in: part) { number, record in
                do throws(MagicalRecordError) {
                    guard try isMatch(number, record, interned, filter, hasOverlays: hasOverlays) else { return true }
                    if scan.materialising {
                        found.states.append(try scan.coder.decode(record, number: number, attributes: scan.mask))
                    } else {
                        found.count += 1
                    }
                    return true
                } catch {
                    found.failure = error
                    return false
                }
            }
        } catch {
            found.failure = error
        }
        return found
    }
}

/// The parts of one ``FetchExecutor/inParts(_:_:consume:)`` run: claimed in order by
/// whichever thread is free, each result left in its slot and announced by its semaphore.
private final class PartRun<Result>: @unchecked Sendable {
    private let parts: [StoreSnapshot.RecordPart]
    private let work: (StoreSnapshot.RecordPart) -> Result
    private let results: UnsafeMutableBufferPointer<Result?>
    /// Signalled once its part's result is in its slot.
    private let ready: [DispatchSemaphore]
    private let nextPart = Atomic<Int>(0)

    init(parts: [StoreSnapshot.RecordPart], work: @escaping (StoreSnapshot.RecordPart) -> Result) {
        self.parts = parts
        self.work = work
        results = .allocate(capacity: parts.count)
        results.initialize(repeating: nil)
        ready = parts.map { _ in DispatchSemaphore(value: 0) }
    }

    deinit {
        results.deinitialize()
        results.deallocate()
    }

    /// Claims the next part and runs the work on it; false when none is left.
    func runNext() -> Bool {
        let index = nextPart.add(1, ordering: .relaxed).oldValue
        guard index < parts.count else { return false }
        results[index] = work(parts[index])
        ready[index].signal()
        return true
    }

    /// Whether part `index` is done; true at most once per part (its signal is taken).
    func poll(_ index: Int) -> Bool {
        ready[index].wait(timeout: .now()) == .success
    }

    func wait(for index: Int) {
        ready[index].wait()
    }

    /// The result of a part seen done (``poll(_:)``, ``wait(for:)``).
    func take(_ index: Int) -> Result {
        results[index].take()!
    }

    /// Stops the claiming and waits for the parts claimed and not yet taken (the first
    /// `consumed` were): no thread runs the work after this. A helper that starts later
    /// claims nothing.
    func finish(consumed: Int) {
        let claimed = min(nextPart.exchange(parts.count, ordering: .relaxed), parts.count)
        for index in consumed..<max(claimed, consumed) { ready[index].wait() }
    }
}

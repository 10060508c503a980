import Dispatch

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
    /// after a failed one are scanned all the same (they run at once) and dropped.
    func scanInParts(
        _ parts: [StoreSnapshot.RecordPart], _ scan: RecordScan, _ body: (ObjectState?) throws(MagicalRecordError) -> Void
    ) throws(MagicalRecordError) {
        for part in inParts(parts, { matches(in: $0, scan) }) {
            if scan.materialising {
                for state in part.states { try body(state) }
            } else {
                for _ in 0..<part.count { try body(nil) }
            }
            if let failure = part.failure { throw failure }
        }
    }

    /// `work` on each of `parts` at once, one thread each; the results in part order.
    /// `work` may only read the executor, which does not change during a fetch.
    func inParts<Result>(_ parts: [StoreSnapshot.RecordPart], _ work: (StoreSnapshot.RecordPart) -> Result) -> [Result] {
        let results = UnsafeMutableBufferPointer<Result?>.allocate(capacity: parts.count)
        results.initialize(repeating: nil)
        defer {
            results.deinitialize()
            results.deallocate()
        }
        withoutActuallyEscaping(work) { work in
            // Each task runs `work` on its own part and fills its own slot.
            let tasks = PartTasks(parts: parts, work: work, results: results)
            DispatchQueue.concurrentPerform(iterations: parts.count) { index in
                tasks.results[index] = tasks.work(tasks.parts[index])
            }
        }
        return results.map { $0! }
    }

    private func matches(in part: StoreSnapshot.RecordPart, _ scan: RecordScan) -> PartMatches {
        var found = PartMatches()
        do throws(MagicalRecordError) {
            let filter = try scan.compiled.map { compiled throws(MagicalRecordError) in try recordFilter(compiled, scan.coder) }
            let hasOverlays = view.hasOverlays
            try view.snapshot.scanRecords(scan.name, in: part) { number, record in
                do throws(MagicalRecordError) {
                    guard try isMatch(number, record, scan.name, filter, hasOverlays: hasOverlays) else { return true }
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

/// What the tasks of one part scan share: parts and work they only read, a slot each fills.
private struct PartTasks<Result>: @unchecked Sendable {
    let parts: [StoreSnapshot.RecordPart]
    let work: (StoreSnapshot.RecordPart) -> Result
    let results: UnsafeMutableBufferPointer<Result?>
}

import Dispatch

/// A filtered scan of a large entity on several threads: each tests its own range of the
/// object tree (the snapshot's pages are immutable and shared) with a filter of its own,
/// and decodes its matches; the fetch then sees them on its own thread, in id order.
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
        let results = UnsafeMutableBufferPointer<PartMatches>.allocate(capacity: parts.count)
        results.initialize(repeating: PartMatches())
        defer {
            results.deinitialize()
            results.deallocate()
        }
        // Each task reads the executor (immutable during the fetch) and fills its own slot.
        let shared = PartScanTasks(executor: self, scan: scan, parts: parts, results: results)
        DispatchQueue.concurrentPerform(iterations: parts.count) { index in
            shared.results[index] = shared.executor.matches(in: shared.parts[index], shared.scan)
        }
        for part in results {
            if scan.materialising {
                for state in part.states { try body(state) }
            } else {
                for _ in 0..<part.count { try body(nil) }
            }
            if let failure = part.failure { throw failure }
        }
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

/// What the tasks of one part scan share: an executor they only read, a slot each fills.
private struct PartScanTasks: @unchecked Sendable {
    let executor: FetchExecutor
    let scan: FetchExecutor.RecordScan
    let parts: [StoreSnapshot.RecordPart]
    let results: UnsafeMutableBufferPointer<FetchExecutor.PartMatches>
}

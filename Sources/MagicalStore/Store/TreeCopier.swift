import Dispatch

/// Copies one tree of a snapshot into a compaction's new file: the tree is cut into
/// ranges of whole subtrees, threads fill the entries of several ranges into leaves and
/// encode and compress them at once, and the compacting thread appends the leaves in key
/// order and builds the branches above them. Filling the leaves was two thirds of a
/// compaction, on one thread, while the others waited for leaves to encode.
///
/// The leaves are those a single loader fills (each as full as a page allows), except the
/// last of each range, which ends where the range does.
struct TreeCopier {
    let tree: TreeReader
    let writer: LogWriter
    let pageSize: Int
    /// Threads that fill ranges at once (1: the calling thread alone).
    let threads: Int
    /// About how many entries a range holds: a range's encoded leaves wait in memory for
    /// their turn (a few megabytes for a round of ranges of some 30,000 records).
    let entriesPerRange: Int

    /// A leaf filled by a range's thread, ready for the log.
    private struct FilledLeaf {
        enum Content {
            case encoded(LogWriter.EncodedLeaf)
            /// Values go to overflow frames before the leaf, written in turn.
            case withOverflowValues(DirtyNode)
        }

        var firstKey: [UInt8]
        var entryCount: Int
        var content: Content
    }

    /// Copies every entry of the tree; returns the new tree's root page (0 when empty) and
    /// its entry count.
    func copy() throws -> (root: UInt64, count: Int) {
        var loader = BulkLoader(pageSize: pageSize) { [writer] node in
            .page(try writer.writeSubtree(.dirty(node)))
        }
        let cuts = try tree.splitKeys(parts: tree.count / max(entriesPerRange, 1))
        let bounds: [[UInt8]?] = [nil] + cuts + [nil]
        let rangeCount = bounds.count - 1
        // Ranges are filled ahead of their turn, a window of them at once, and each is
        // written as soon as it and those before it are done: the next range starts when
        // one is written, not when a round of them is. Rounds waited for their slowest
        // range, with a core idle meanwhile (1.57 of 2 cores busy over a compaction).
        let window = threads > 1 ? 4 * threads : 1
        var filling: [FillingRange] = []
        filling.reserveCapacity(rangeCount)
        func startRange() {
            let index = filling.count
            filling.append(FillingRange(lower: bounds[index], upper: bounds[index + 1], copier: self, onThisThread: threads <= 1))
        }
        while filling.count < min(window, rangeCount) { startRange() }
        var written = 0
        // A failed write leaves no thread reading the snapshot once the copy returns.
        defer { for range in filling[written...] { _ = range.take() } }
        while written < rangeCount {
            // Counted as taken before its outcome is read: the deferred wait must not wait
            // for it again.
            let outcome = filling[written].take()
            written += 1
            if filling.count < rangeCount { startRange() }
            for leaf in try outcome.get() {
                try loader.appendLeaf(.page(try write(leaf.content)), firstKey: leaf.firstKey, entryCount: leaf.entryCount)
            }
        }
        // Ranges are read between keys: in a damaged tree, an entry lying outside its
        // separators' bounds is in no range, and would be left out without a word.
        guard loader.count == tree.count else {
            let offset: UInt64 = if case .page(let offset) = tree.root { offset } else { 0 }
            throw StoreError.corrupt(offset: offset, reason: "a tree holds \(tree.count) entries by its catalog entry, and \(loader.count) within its separators' bounds")
        }
        let root = try loader.finishTree()
        return (try root.map { try writer.writeSubtree($0) } ?? 0, loader.count)
    }

    /// One range's leaves, filled on another thread (or at once on this one): its result is
    /// written by the filling thread alone and read only once it is done.
    private final class FillingRange: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var outcome: Result<[FilledLeaf], any Error> = .success([])
        /// Held while filling and let go before the range is done: nothing the copy reads
        /// (a compaction's old file) outlives it on another thread.
        private var copier: TreeCopier?
        private let lower: [UInt8]?
        private let upper: [UInt8]?

        init(lower: [UInt8]?, upper: [UInt8]?, copier: TreeCopier, onThisThread: Bool) {
            self.lower = lower
            self.upper = upper
            self.copier = copier
            guard !onThisThread else {
                fill()
                return
            }
            DispatchQueue.global().async { [self] in fill() }
        }

        private func fill() {
            if let copier { outcome = Result { try copier.leaves(from: lower, below: upper) } }
            copier = nil
            done.signal()
        }

        /// The range's leaves, once filled, handed over: the range keeps none of them.
        func take() -> Result<[FilledLeaf], any Error> {
            done.wait()
            defer { outcome = .success([]) }
            return outcome
        }
    }

    /// The entries from `lower` to below `upper` in leaves as full as a page allows,
    /// encoded and compressed (run on a range's thread: the writer's encoding reads only
    /// its constants).
    private func leaves(from lower: [UInt8]?, below upper: [UInt8]?) throws -> [FilledLeaf] {
        var filler = LeafFiller(writer: writer, pageSize: pageSize)
        try tree.forEachRun(from: lower, below: upper) { page, run in
            try filler.add(run, of: page) { try tree.reader.bytes(of: $0) }
            return true
        } entry: { key, value in
            filler.add(key: key, value: value)
            return true
        }
        return filler.finish()
    }

    /// Fills leaves in key order, each as full as a page allows, and encodes each as it
    /// closes. A committed leaf's inline entries go in by runs, their bytes copied as the
    /// page holds them; checking and copying each entry alone was two fifths of a
    /// compaction's instructions.
    private struct LeafFiller {
        let writer: LogWriter
        let pagePayload: Int
        let inlineLimit: Int
        private var leaves: [FilledLeaf] = []
        private var open = LeafEntries()
        private var firstKey: [UInt8] = []
        private var hasOverflowValues = false

        init(writer: LogWriter, pageSize: Int) {
            self.writer = writer
            pagePayload = FileFormat.maximumPagePayload(pageSize: pageSize)
            inlineLimit = FileFormat.inlineEntryLimit(pageSize: pageSize)
        }

        /// Adds the entries `run` of `page`; `overflow` reads a value stored in its own frame.
        mutating func add(_ run: Range<Int>, of page: PageNode, overflow: (LeafValue) throws -> [UInt8]) throws {
            var index = run.lowerBound
            while index < run.upperBound {
                // The inline entries from `index` that fit the open leaf: an empty leaf
                // takes its first whatever its size, as one entry at a time would.
                let taken = page.inlineRun(
                    from: index, to: run.upperBound, room: pagePayload - open.encodedSize, inlineLimit: inlineLimit, takesFirst: open.count == 0
                )
                if taken.count > 0 {
                    if open.count == 0 { firstKey = page.key(at: index) }
                    open.appendEntries(ofPage: page, in: index..<index + taken.count, bytes: taken.bytes)
                    index += taken.count
                } else if open.count > 0, page.isInlineEntry(at: index, inlineLimit: inlineLimit) {
                    // It does not fit: the next leaf takes it.
                    close()
                } else {
                    // A value in its own frame, or inline but over the limit: read it and
                    // place it as any entry.
                    try page.withEntry(at: index, overflow: overflow) { key, value in add(key: key, value: value) }
                    index += 1
                }
            }
        }

        /// Adds one entry after those added before.
        mutating func add(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
            let isInline = key.count + value.count <= inlineLimit
            let overflow: LeafValue? = isInline ? nil : .pendingOverflow(Array(value))
            let bytes = overflow.map { LeafEntries.pageBytes(key: Array(key), value: $0) }
                ?? LeafEntries.pageBytes(keyCount: key.count, inlineValueCount: value.count)
            if open.count > 0, !BulkLoader.leaf(open, hasRoomFor: bytes, pagePayload: pagePayload) { close() }
            if open.count == 0 { firstKey = Array(key) }
            if let overflow {
                open.append(Array(key), overflow)
                hasOverflowValues = true
            } else {
                open.appendInline(key: key, value: value)
            }
        }

        /// The leaves filled, the last one closed.
        consuming func finish() -> [FilledLeaf] {
            close()
            return leaves
        }

        private mutating func close() {
            guard open.count > 0 else { return }
            let content: FilledLeaf.Content = hasOverflowValues ? .withOverflowValues(DirtyNode(leaf: open)) : .encoded(writer.encodeLeaf(open))
            leaves.append(FilledLeaf(firstKey: firstKey, entryCount: open.count, content: content))
            open = LeafEntries()
            hasOverflowValues = false
        }
    }

    /// Appends a filled leaf (after its overflow values); returns its page offset.
    private func write(_ content: FilledLeaf.Content) throws -> UInt64 {
        switch content {
        case .encoded(let encoded): return try writer.appendLeaf(encoded)
        case .withOverflowValues(let node): return try writer.writeSubtree(.dirty(node))
        }
    }
}

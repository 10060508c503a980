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
        let rangesPerRound = threads > 1 ? 2 * threads : 1
        let rounds = stride(from: 0, to: rangeCount, by: rangesPerRound).map { $0..<min($0 + rangesPerRound, rangeCount) }
        // The next round is filled while this one is written: the writes (copies into the
        // kernel's cache) were a fifth of a compaction, with the other cores idle.
        var filling = rounds.first.map { fill($0, between: bounds) }
        var following = rounds.dropFirst().makeIterator()
        // A failed write leaves no thread reading the snapshot once the copy returns.
        defer { _ = filling?.results() }
        while let current = filling {
            let filled = current.results()
            filling = following.next().map { fill($0, between: bounds) }
            for range in filled {
                for leaf in try range.get() {
                    try loader.appendLeaf(.page(try write(leaf.content)), firstKey: leaf.firstKey, entryCount: leaf.entryCount)
                }
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

    /// Fills the leaves of each range of `round` (range `i` runs from `bounds[i]` to below
    /// `bounds[i + 1]`): on other threads, several ranges at once, when the copier has
    /// threads; else on this one, at once.
    private func fill(_ round: Range<Int>, between bounds: [[UInt8]?]) -> FillingRound {
        let filling = FillingRound(count: round.count)
        guard threads > 1 else {
            for index in round.indices {
                filling.slots[index - round.lowerBound] = Result { try leaves(from: bounds[index], below: bounds[index + 1]) }
            }
            return filling
        }
        filling.start(round, between: bounds, copier: self)
        return filling
    }

    /// A round of ranges being filled on other threads: its slots are written by the
    /// filling thread alone (each task its own) and read only once the group is done.
    private final class FillingRound: @unchecked Sendable {
        private let group = DispatchGroup()
        var slots: [Result<[FilledLeaf], any Error>]
        /// Held while filling and let go before the group is done: nothing the copy reads
        /// (a compaction's old file) outlives it on another thread.
        private var copier: TreeCopier?

        init(count: Int) {
            slots = Array(repeating: .success([]), count: count)
        }

        func start(_ round: Range<Int>, between bounds: [[UInt8]?], copier: TreeCopier) {
            self.copier = copier
            group.enter()
            DispatchQueue.global().async { [self] in
                fill(round, between: bounds)
                self.copier = nil
                group.leave()
            }
        }

        private func fill(_ round: Range<Int>, between bounds: [[UInt8]?]) {
            guard let copier else { return }
            let shared = UncheckedSendable(copier)
            slots.withUnsafeMutableBufferPointer { buffer in
                // Each task reads the snapshot's immutable pages and fills its own slot.
                let slots = UncheckedSendable(buffer)
                DispatchQueue.concurrentPerform(iterations: round.count) { index in
                    let range = round.lowerBound + index
                    slots.value[index] = Result { try shared.value.leaves(from: bounds[range], below: bounds[range + 1]) }
                }
            }
        }

        func results() -> [Result<[FilledLeaf], any Error>] {
            group.wait()
            return slots
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

extension MutableTree {
    /// Stores many entries at once; the same key twice keeps the later value.
    ///
    /// Import puts hundreds of thousands of keys in one transaction, so this avoids a
    /// search from the root per key: an empty tree is bulk-loaded bottom-up with full
    /// pages; otherwise entries go in key order straight into the leaf found for the
    /// previous one while they belong there and fit, and only the others take the full
    /// path with its splits.
    func putBatch(_ entries: [(key: [UInt8], value: [UInt8])]) throws {
        try putBatch(EntryBatch(entries))
    }

    /// The same for entries laid out in one buffer, which inline values go from straight
    /// into the leaves.
    func putBatch(_ batch: EntryBatch) throws {
        try batch.withEntries { entries in
            for index in 0..<entries.count {
                try Self.validate(keyLength: entries.key(index).count, valueLength: entries.value(index).count, pageSize: reader.pageSize)
            }
            let ordered = Self.sortedKeepingLast(entries)
            guard !ordered.isEmpty else { return }
            try applyingWhole { try put(ordered, of: entries) }
        }
    }

    /// Runs a batch's changes; an error part way leaves the tree marked (``interruption``).
    private func applyingWhole(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            interruption = interruption ?? error
            throw error
        }
    }

    /// `entries` at the indices `ordered` (ascending keys, one per key) put in.
    private func put(_ ordered: [Int], of entries: EntryBatch.Entries) throws {
        markModified()
        let inlineLimit = FileFormat.inlineEntryLimit(pageSize: reader.pageSize)
        func isInline(_ index: Int) -> Bool { entries.key(index).count + entries.value(index).count <= inlineLimit }
        // As arrays, for the paths that take them: a new leaf, a split, a large value.
        func leafValue(_ index: Int) -> LeafValue {
            let value = Array(entries.value(index))
            return isInline(index) ? .inline(value) : .pendingOverflow(value)
        }
        if root == nil {
            var loader = BulkLoader(pageSize: reader.pageSize) { .dirty($0) }
            for index in ordered {
                if isInline(index) {
                    try loader.appendInline(key: entries.key(index), value: entries.value(index))
                } else {
                    try loader.append(Array(entries.key(index)), leafValue(index))
                }
            }
            try replaceRoot(loader.finishTree(), count: loader.count)
            return
        }
        var leaf: DirtyNode?
        // The positions before `runEnd` belong in `leaf`: found once a leaf, not by
        // comparing every key with the leaf's upper bound.
        var runEnd = 0
        var leavesSinceSpill = 0
        var position = 0
        while position < ordered.count {
            if let current = leaf, position < runEnd {
                if isInline(ordered[position]) {
                    // The inline entries that belong in this leaf go in together, as many as fit.
                    let end = runEnd
                    let taken = putInline(ordered, startingAt: position, of: entries, into: current) { $0 < end && isInline(ordered[$0]) }
                    position += taken
                    if taken > 0 { continue }
                } else if try insertIfFits(Array(entries.key(ordered[position])), leafValue(ordered[position]), into: current) {
                    position += 1
                    continue
                }
            }
            let index = ordered[position]
            let keyBytes = Array(entries.key(index))
            let upperBound: [UInt8]?
            if leaf == nil || position >= runEnd {
                // Another leaf: found and copied once, then filled as the one before (a
                // full put first, then the leaf found for it, cost two descents a leaf).
                (leaf, upperBound) = try dirtyLeaf(for: keyBytes)
            } else {
                // The leaf at hand is full: the full path, which splits.
                try put(keyBytes, leafValue(index))
                (leaf, upperBound) = try dirtyLeaf(for: keyBytes)
                position += 1
            }
            runEnd = Self.runEnd(from: position, of: ordered, entries, before: upperBound)
            leavesSinceSpill += 1
            if leavesSinceSpill == Self.leavesPerSpill {
                leavesSinceSpill = 0
                try spill(leftOf: keyBytes)
            }
        }
    }

    /// The first of the positions from `start` on (keys ascending) whose key is not before
    /// `bound`, or the end: galloping from `start`, then a binary search, since a leaf's
    /// run is short against the batch (a dozen comparisons for a run of sixty).
    private static func runEnd(from start: Int, of ordered: [Int], _ entries: EntryBatch.Entries, before bound: [UInt8]?) -> Int {
        guard let bound else { return ordered.count }
        return bound.withUnsafeBytes { bound in
            func isBefore(_ position: Int) -> Bool { compareBytes(entries.key(ordered[position]), bound) < 0 }
            // Every position below `low` is before the bound; `probe` is the next to try.
            var low = start
            var probe = start
            var step = 1
            while probe < ordered.count, isBefore(probe) {
                low = probe + 1
                probe = start + step
                step *= 2
            }
            var high = min(probe, ordered.count)
            while low < high {
                let middle = (low + high) / 2
                if isBefore(middle) { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }

    /// Leaves a batch changes between two spills: about 4 MiB of pages at 16 KiB, enough to
    /// encode on several threads at once.
    static let leavesPerSpill = 256

    /// Writes the dirty subtrees left of `key`'s path as early pages (Spec F20): the batch's
    /// keys ascend, so it never returns to them, and a batch of scattered keys, which
    /// changes most of a large tree, holds only its path and the last few hundred leaves
    /// in memory instead of the whole tree until the commit.
    private func spill(leftOf key: [UInt8]) throws {
        guard let earlyPageWriter, case .dirty(var node) = root else { return }
        var passed: [(parent: DirtyNode, index: Int)] = []
        while !node.isLeaf {
            let pathIndex = node.childIndex(for: key)
            for index in 0..<pathIndex {
                if case .dirty = node.children[index] { passed.append((node, index)) }
            }
            guard case .dirty(let next) = node.children[pathIndex] else { break }
            node = next
        }
        guard !passed.isEmpty else { return }
        let writer = try earlyPageWriter()
        let offsets = try writer.writeSubtrees(passed.map { $0.parent.children[$0.index] })
        for (place, offset) in zip(passed, offsets) { place.parent.children[place.index] = .page(offset) }
        // In the file before anything in this transaction reads them.
        try writer.flush()
    }

    /// Removes many keys at once; returns how many were there. Keys go in ascending order
    /// straight out of the leaf found for the previous one while they belong there and it
    /// stays above the size that calls for a merge; the others take ``delete(_:)``'s path,
    /// which rebalances, so the tree ends as valid as after one delete per key.
    func deleteBatch(_ keys: [[UInt8]]) throws -> Int {
        // In one buffer, which a leaf's run of removals borrows them from.
        try deleteBatch(EntryBatch(keys: keys))
    }

    /// The same for the keys of `batch` (its values are not read).
    func deleteBatch(_ batch: EntryBatch) throws -> Int {
        var removed = 0
        try batch.withEntries { entries in
            let ordered = KeyOrder.ascending(count: entries.count) { entries.key($0) }
            try applyingWhole { removed = try delete(ordered, of: entries) }
        }
        return removed
    }

    /// Removes the keys of `entries` at the indices `ordered` (ascending keys, maybe
    /// repeated); returns how many were there.
    private func delete(_ ordered: [Int], of entries: EntryBatch.Entries) throws -> Int {
        var leaf: DirtyNode?
        var upperBound: [UInt8]?
        func belongs(_ position: Int, before bound: [UInt8]?) -> Bool { Self.precedes(entries.key(ordered[position]), bound) }
        var removed = 0
        var position = 0
        while position < ordered.count {
            if position > 0, compareBytes(entries.key(ordered[position - 1]), entries.key(ordered[position])) == 0 {
                position += 1
                continue
            }
            if let current = leaf, belongs(position, before: upperBound) {
                let bound = upperBound
                let done = removeRun(ordered, startingAt: position, of: entries, from: current) { belongs($0, before: bound) }
                removed += done.removed
                position += done.taken
                if done.taken > 0 { continue }
            }
            // Not in the leaf at hand, or it would get too small: the full path, which
            // rebalances. A key not there copies nothing, and leaves no leaf to continue in.
            let key = Array(entries.key(ordered[position]))
            position += 1
            leaf = nil
            guard try delete(key) else { continue }
            removed += 1
            if root != nil { (leaf, upperBound) = try dirtyLeaf(for: key) }
        }
        return removed
    }

    /// Whether `key` sorts before `bound` (nil: past every key), the smallest key beyond a
    /// leaf. A run's closure passes the bound as a constant: reading the loop's variable,
    /// it checked exclusive access at run time on each call.
    private static func precedes(_ key: UnsafeRawBufferPointer, _ bound: [UInt8]?) -> Bool {
        bound.map { bound in bound.withUnsafeBytes { compareBytes(key, $0) } < 0 } ?? true
    }

    /// Indices of `entries` in ascending key order, one per key (the last occurrence).
    private static func sortedKeepingLast(_ entries: EntryBatch.Entries) -> [Int] {
        var isAscending = true
        for index in stride(from: 1, to: entries.count, by: 1) where compareBytes(entries.key(index - 1), entries.key(index)) >= 0 {
            isAscending = false
            break
        }
        if isAscending { return Array(0..<entries.count) }
        let sorted = KeyOrder.ascending(count: entries.count) { entries.key($0) }
        var unique: [Int] = []
        unique.reserveCapacity(sorted.count)
        for index in sorted {
            if let last = unique.last, compareBytes(entries.key(last), entries.key(index)) == 0 {
                unique[unique.count - 1] = index
            } else {
                unique.append(index)
            }
        }
        return unique
    }
}

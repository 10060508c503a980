extension TreeReader {
    /// The values of the keys of `keys` (their values are not read), each handed to `body`
    /// with its index (nil when absent), as bytes borrowed for the call. Keys in ascending
    /// order are found leaf by leaf: a key that falls inside the leaf of the one before it
    /// is searched there, without a descent from the root, which is how an import looks up
    /// a batch of keys.
    public func getEach(_ keys: EntryBatch, _ body: (_ index: Int, _ value: UnsafeRawBufferPointer?) throws -> Void) throws {
        try keys.withEntries { keys in
            // An empty tree (a first import's) has none of them.
            guard case .page(let rootOffset) = root else {
                for index in 0..<keys.count { try body(index, nil) }
                return
            }
            var window = LeafWindow(root: rootOffset, reader: reader)
            var index = 0
            while index < keys.count {
                // One reference to a leaf for all the keys it spans: a retain and release
                // of it per key were 4% of a 1M upsert's reading thread (perf), the count
                // shared with the committing thread, which reads the same cached pages.
                let page = try window.moveToLeaf(holding: keys.key(index))
                repeat {
                    let key = keys.key(index)
                    let position = page.lowerBound(key)
                    if position < page.count, page.compareKey(at: position, with: key) == 0 {
                        try page.withEntry(at: position, overflow: { try reader.bytes(of: $0) }) { _, value in try body(index, value) }
                    } else {
                        try body(index, nil)
                    }
                    index += 1
                } while index < keys.count && window.leafHolds(keys.key(index))
            }
        }
    }

    /// For each key of `prefixes` (their values are not read), every entry whose key starts
    /// with it, handed to `body` with the prefix's index and the key and value borrowed for
    /// the call. Prefixes in ascending order are found leaf by leaf, as in ``getEach(_:_:)``.
    public func scanEach(
        prefixes: EntryBatch, _ body: (_ index: Int, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try prefixes.withEntries { prefixes in
            // An empty tree (a first import's) has no entries: a cursor per prefix found so.
            guard case .page(let rootOffset) = root else { return }
            var window = LeafWindow(root: rootOffset, reader: reader)
            var index = 0
            while index < prefixes.count {
                // One reference to a leaf for all the prefixes it spans, as in `getEach`.
                let page = try window.moveToLeaf(holding: prefixes.key(index))
                repeat {
                    let prefix = prefixes.key(index)
                    // The last key handed out when the matches may go on past this leaf.
                    let unfinished: [UInt8]?? = try {
                        var position = page.lowerBound(prefix)
                        let first = position
                        while position < page.count {
                            let matched = try page.withEntry(at: position, overflow: { try reader.bytes(of: $0) }) { key, value in
                                guard key.starts(with: prefix) else { return false }
                                try body(index, key, value)
                                return true
                            }
                            guard matched else { return nil }
                            position += 1
                        }
                        // Copied only here: matches that end inside the leaf need no key.
                        return .some(position > first ? page.key(at: position - 1) : nil)
                    }()
                    // The leaf ended while matching (or before the first match): the cursor
                    // goes on, unless no later leaf can hold a match (a key past every stored
                    // one, such as an import's new, higher ids, lands in the last leaf).
                    if case .some(let last) = unfinished, window.laterLeavesMayStart(with: prefix) {
                        try scanWithCursor(Array(prefix), after: last, index: index, body)
                    }
                    index += 1
                } while index < prefixes.count && window.leafHolds(prefixes.key(index))
            }
        }
    }

    /// Entries under `prefix` past `after`, through a cursor.
    private func scanWithCursor(
        _ prefix: [UInt8], after: [UInt8]?, index: Int,
        _ body: (_ index: Int, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try scan(.prefix(prefix)) { key, value in
            if let after, compareBytes(key, after) <= 0 { return true }
            try key.withUnsafeBytes { key in try value.withUnsafeBytes { try body(index, key, $0) } }
            return true
        }
    }
}

/// The leaf of a committed tree that the last key fell in, with the branches above it and
/// the range of keys each is reached by, kept for the next key: a key in the same leaf is
/// searched there, and one in another leaf is found from the lowest branch whose range
/// holds it, not from the root. Ranges come from the separators (F16), so a key in a gap
/// between two leaves' keys, or past the last key of the tree (as an import's new, higher
/// ids are), stays in the leaf it belongs to instead of sending each look-up to the root.
private struct LeafWindow {
    let root: UInt64
    let reader: SnapshotReader
    /// A separator of a branch, bounding the keys of a subtree.
    private typealias Bound = (branch: PageNode, index: Int)
    /// The pages from the root down to the current leaf's parent, each with the range of
    /// keys routed to it: at least `lower`, below `upper` (nil: unbounded).
    private var branches: [(page: PageNode, lower: Bound?, upper: Bound?)] = []
    /// The current leaf and its range, kept apart from `branches`: checked for every key.
    private var current: PageNode?
    private var lower: Bound?
    /// Every key of a later leaf is at least it; nil for the tree's last leaf.
    private var upper: Bound?

    init(root: UInt64, reader: SnapshotReader) {
        self.root = root
        self.reader = reader
    }

    /// Whether `key` is routed to the current leaf: no other leaf can hold it.
    func leafHolds(_ key: UnsafeRawBufferPointer) -> Bool {
        current != nil && Self.range(lower, upper, holds: key)
    }

    private static func range(_ lower: Bound?, _ upper: Bound?, holds key: UnsafeRawBufferPointer) -> Bool {
        // A key equal to a separator is routed to its right (`childIndex(for:)`).
        if let lower, lower.branch.compareKey(at: lower.index, with: key) > 0 { return false }
        if let upper, upper.branch.compareKey(at: upper.index, with: key) <= 0 { return false }
        return true
    }

    /// The leaf `key` is routed to, for a key the current leaf does not hold (see
    /// ``leafHolds(_:)``): found from the lowest branch above it whose range holds the key.
    mutating func moveToLeaf(holding key: UnsafeRawBufferPointer) throws -> PageNode {
        while let last = branches.last, !Self.range(last.lower, last.upper, holds: key) { branches.removeLast() }
        var page: PageNode
        if let last = branches.popLast() {
            page = last.page
            (lower, upper) = (last.lower, last.upper)
        } else {
            page = try reader.page(at: root)
            (lower, upper) = (nil, nil)
        }
        while !page.isLeaf {
            branches.append((page, lower, upper))
            let child = page.childIndex(for: key)
            // The tighter of each bound: separators nest in a sound tree, and a damaged one
            // must not widen a leaf's range past what a descent from the root would give.
            if child > 0 { lower = Self.greater(lower, (page, child - 1)) }
            if child < page.children.count - 1 { upper = Self.lesser(upper, (page, child)) }
            page = try reader.page(at: page.children[child])
        }
        current = page
        return page
    }

    private static func greater(_ bound: Bound?, _ separator: Bound) -> Bound {
        guard let bound else { return separator }
        return compare(bound, separator) >= 0 ? bound : separator
    }

    private static func lesser(_ bound: Bound?, _ separator: Bound) -> Bound {
        guard let bound else { return separator }
        return compare(bound, separator) <= 0 ? bound : separator
    }

    private static func compare(_ left: Bound, _ right: Bound) -> Int {
        right.branch.withKey(at: right.index) { left.branch.compareKey(at: left.index, with: $0) }
    }

    /// Whether a leaf after the current one may hold a key starting with `prefix`: keys
    /// with a prefix lie together, so not when the leaves after begin at a key past them
    /// (one that does not start with it; every later key is past `prefix`'s range then),
    /// nor when there is no leaf after.
    func laterLeavesMayStart(with prefix: UnsafeRawBufferPointer) -> Bool {
        guard let upper else { return false }
        return upper.branch.withKey(at: upper.index) { $0.starts(with: prefix) }
    }
}

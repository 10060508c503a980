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
                let page = try window.leaf(for: keys.key(index))
                repeat {
                    let key = keys.key(index)
                    let position = page.lowerBound(key)
                    if position < page.count, page.compareKey(at: position, with: key) == 0 {
                        try page.withEntry(at: position, overflow: { try reader.bytes(of: $0) }) { _, value in try body(index, value) }
                    } else {
                        try body(index, nil)
                    }
                    index += 1
                } while index < keys.count && page.spans(keys.key(index))
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
                let page = try window.leaf(for: prefixes.key(index))
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
                } while index < prefixes.count && page.spans(prefixes.key(index))
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

/// The leaf of a committed tree that the last key fell in, kept for the next key.
private struct LeafWindow {
    let root: UInt64
    let reader: SnapshotReader
    private var current: PageNode?
    /// The separator bounding `current`'s subtree on the right (every key of a later leaf
    /// is at least it), as a branch page and its index; nil for the tree's last leaf.
    private var upperBound: (branch: PageNode, index: Int)?

    init(root: UInt64, reader: SnapshotReader) {
        self.root = root
        self.reader = reader
    }

    /// The leaf whose key range holds `key`: the current one when `key` lies between its
    /// first and last keys (leaves divide the keys in order), else found from the root.
    mutating func leaf(for key: UnsafeRawBufferPointer) throws -> PageNode {
        if let current, current.spans(key) { return current }
        var page = try reader.page(at: root)
        upperBound = nil
        while !page.isLeaf {
            let child = page.childIndex(for: key)
            // The innermost separator to the right is the tightest bound.
            if child < page.children.count - 1 { upperBound = (page, child) }
            page = try reader.page(at: page.children[child])
        }
        current = page
        return page
    }

    /// Whether a leaf after the current one may hold a key starting with `prefix`: keys
    /// with a prefix lie together, so not when the leaves after begin at a key past them
    /// (one that does not start with it; every later key is past `prefix`'s range then),
    /// nor when there is no leaf after.
    func laterLeavesMayStart(with prefix: UnsafeRawBufferPointer) -> Bool {
        guard let upperBound else { return false }
        return upperBound.branch.withKey(at: upperBound.index) { $0.starts(with: prefix) }
    }
}

extension PageNode {
    /// Whether `key` lies between this leaf's first and last keys: leaves divide the keys
    /// in order, so no other leaf can hold it.
    fileprivate func spans(_ key: UnsafeRawBufferPointer) -> Bool {
        count > 0 && compareKey(at: 0, with: key) <= 0 && compareKey(at: count - 1, with: key) >= 0
    }
}

/// An ordered walk over a tree, forwards or backwards (Spec section 4).
///
/// A cursor reads one snapshot. Inside a write transaction it sees the transaction's own
/// changes as of when it was positioned; changing the tree afterwards invalidates it
/// (position it again).
public struct Cursor {
    private struct Level {
        var node: NodeView
        var index: Int
    }

    private let root: ChildReference?
    private let reader: SnapshotReader
    /// Root first; the last level is the leaf the cursor is on. Empty when unpositioned
    /// or past either end.
    private var path: [Level] = []

    init(root: ChildReference?, reader: SnapshotReader) {
        self.root = root
        self.reader = reader
    }

    /// The entry under the cursor, or nil when it is past either end.
    public var key: [UInt8]? {
        guard let leaf = path.last else { return nil }
        return leaf.node.key(at: leaf.index)
    }

    /// The value under the cursor (reads an overflow frame for large values).
    public func value() throws -> [UInt8]? {
        guard let leaf = path.last else { return nil }
        return try reader.bytes(of: leaf.node.value(at: leaf.index))
    }

    /// Calls `body` with the entry under the cursor as borrowed bytes, valid only during
    /// the call: no copy of the key or of an inline value. Nil past either end.
    public func withEntry<T>(_ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> T) throws -> T? {
        guard let leaf = path.last else { return nil }
        switch leaf.node {
        case .page(let page):
            return try page.withEntry(at: leaf.index, overflow: { try reader.bytes(of: $0) }, body)
        case .dirty(let node):
            return try node.entries.withEntry(at: leaf.index, overflow: { try reader.bytes(of: $0) }, body)
        }
    }

    /// Calls `body` for every entry in key order (reversed when `reverse`), with borrowed
    /// bytes as ``withEntry(_:)`` gives them, until it returns false: the allocation-free
    /// whole-tree scan.
    public mutating func forEachEntry(
        reverse: Bool = false, _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        if reverse { try last() } else { try first() }
        while let leaf = path.last {
            if case .page(let page) = leaf.node {
                // A committed leaf is walked whole in one call: no path bookkeeping per entry.
                guard try page.forEachEntry(from: leaf.index, reverse: reverse, overflow: { try reader.bytes(of: $0) }, body) else { return }
                path[path.count - 1].index = reverse ? 0 : page.count - 1
            } else {
                guard try withEntry(body) == true else { return }
            }
            if reverse { try previous() } else { try next() }
        }
    }

    /// Calls `body` for each entry from the cursor's place forwards whose key is below
    /// `upper` (to the end when nil), with borrowed bytes as ``forEachEntry(reverse:_:)``
    /// gives them, until it returns false: one part of a scan split across threads.
    public mutating func forEachEntry(
        below upper: [UInt8]?, _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        let reader = reader
        try forEachRun(below: upper, page: { page, run in
            try page.forEachEntry(from: run.lowerBound, below: run.upperBound, reverse: false, overflow: { try reader.bytes(of: $0) }, body)
        }, entry: body)
    }

    /// Calls `page` with each committed leaf's entries from the cursor's place forwards
    /// whose keys are below `upper` (to the end when nil), as one run of indices, and
    /// `entry` with each such entry of a leaf changed in this transaction, until either
    /// returns false: a compaction copies a leaf's entries a run at a time.
    mutating func forEachRun(
        below upper: [UInt8]?,
        page visit: (_ page: PageNode, _ run: Range<Int>) throws -> Bool,
        entry: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        while let leaf = path.last {
            if case .page(let page) = leaf.node {
                // The bound is looked up once per leaf; a leaf wholly below it needs one compare.
                let end = upper.map { upper in
                    upper.withUnsafeBytes { page.compareKey(at: page.count - 1, with: $0) < 0 ? page.count : page.lowerBound($0) }
                } ?? page.count
                guard try leaf.index >= end || visit(page, leaf.index..<end), end == page.count else { return }
                path[path.count - 1].index = page.count - 1
            } else {
                guard let key, upper.map({ compareBytes(key, $0) < 0 }) ?? true, try withEntry(entry) == true else { return }
            }
            try next()
        }
    }

    /// Moves to the smallest key.
    public mutating func first() throws {
        try descend(from: root, toward: .first)
    }

    /// Moves to the largest key.
    public mutating func last() throws {
        try descend(from: root, toward: .last)
    }

    /// Moves to the smallest key >= `key` (past the end when there is none).
    public mutating func seek(atOrAfter key: [UInt8]) throws {
        try descend(from: root, toward: .key(key))
        if let leaf = path.last, leaf.index >= leaf.node.count {
            path[path.count - 1].index = leaf.node.count - 1
            try next()
        }
    }

    /// Moves to the largest key <= `key` (past the start when there is none).
    public mutating func seek(atOrBefore key: [UInt8]) throws {
        try seek(atOrAfter: key)
        if let current = self.key {
            if compareBytes(current, key) > 0 { try previous() }
        } else {
            try last()
        }
    }

    /// Moves to the next key; past the end after the last.
    public mutating func next() throws {
        try step(by: 1)
    }

    /// Moves to the previous key; past the start before the first.
    public mutating func previous() throws {
        try step(by: -1)
    }

    private enum Target {
        case first, last, key([UInt8])
    }

    private mutating func descend(from reference: ChildReference?, toward target: Target) throws {
        path.removeAll(keepingCapacity: true)
        guard let reference else { return }
        var node = try reader.node(reference)
        while true {
            let index: Int
            switch target {
            case .first: index = 0
            case .last: index = node.count - 1
            case .key(let key): index = node.isLeaf ? node.lowerBound(key) : node.childIndex(for: key)
            }
            path.append(Level(node: node, index: index))
            if node.isLeaf { return }
            node = try reader.node(node.child(at: index))
        }
    }

    private mutating func step(by delta: Int) throws {
        guard !path.isEmpty else { return }
        // Climb to the nearest level that has a neighbour in this direction.
        var depth = path.count - 1
        while true {
            let candidate = path[depth].index + delta
            if candidate >= 0 && candidate < path[depth].node.count {
                path[depth].index = candidate
                break
            }
            if depth == 0 {
                path.removeAll()
                return
            }
            depth -= 1
        }
        // Descend to the edge of the neighbouring subtree.
        path.removeSubrange((depth + 1)...)
        while !path[depth].node.isLeaf {
            let child = try reader.node(path[depth].node.child(at: path[depth].index))
            path.append(Level(node: child, index: delta > 0 ? 0 : child.count - 1))
            depth += 1
        }
    }
}

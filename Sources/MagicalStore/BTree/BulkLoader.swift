/// Builds a tree bottom-up from entries given in ascending key order, filling each page
/// before starting the next: how compaction rewrites trees and how a batch fills an empty
/// tree, with no searching and no splitting.
struct BulkLoader {
    /// A node at one level, with the smallest key beneath it (its separator in the parent).
    private struct LevelNode {
        var node: DirtyNode
        var firstKey: [UInt8]
    }

    /// Each level holds the node being filled, and the full one before it, kept back so
    /// that a last branch left with a single child can borrow from it (F16).
    private struct Level {
        var full: LevelNode?
        var open: LevelNode?
    }

    private let pageSize: Int
    /// Turns a finished node into the reference its parent keeps: a page written now
    /// (compaction) or the node itself, written at commit (batches).
    private let finish: (DirtyNode) throws -> ChildReference
    /// Index 0 is the leaf level.
    private var levels: [Level] = [Level()]
    private var lastKey: [UInt8]?
    private(set) var count = 0

    init(pageSize: Int, finish: @escaping (DirtyNode) throws -> ChildReference) {
        self.pageSize = FileFormat.maximumPagePayload(pageSize: pageSize)
        self.finish = finish
    }

    /// Adds the next entry; keys must be strictly ascending.
    mutating func append(_ key: [UInt8], _ value: LeafValue) throws {
        if let lastKey { precondition(compareBytes(lastKey, key) < 0, "bulk load keys must ascend") }
        lastKey = key
        try makeRoom(forPageBytes: LeafEntries.pageBytes(key: key, value: value)) { key }
        levels[0].open!.node.entries.append(key, value)
    }

    /// The same for an inline value, from borrowed bytes: compaction copies every entry of
    /// a store, and an array per key and per value was most of its time.
    mutating func appendInline(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws {
        if let lastKey { precondition(lastKey.withUnsafeBytes { compareBytes($0, key) } < 0, "bulk load keys must ascend") }
        // Reused: the buffer is this loader's own unless a whole entry's key was kept.
        if lastKey == nil { lastKey = [] }
        lastKey!.removeAll(keepingCapacity: true)
        lastKey!.append(contentsOf: key)
        try makeRoom(forPageBytes: LeafEntries.pageBytes(keyCount: key.count, inlineValueCount: value.count)) { Array(key) }
        levels[0].open!.node.entries.appendInline(key: key, value: value)
    }

    /// Counts the next entry and makes sure the open leaf has `bytes` for it, starting a
    /// new one (whose first key `firstKey` gives) when it is full or there is none.
    private mutating func makeRoom(forPageBytes bytes: Int, firstKey: () -> [UInt8]) throws {
        count += 1
        if let open = levels[0].open, !Self.leaf(open.node.entries, hasRoomFor: bytes, pagePayload: pageSize) {
            try startNewNode(at: 0)
        }
        if levels[0].open == nil { levels[0].open = LevelNode(node: DirtyNode(leaf: LeafEntries()), firstKey: firstKey()) }
    }

    /// Whether a leaf being filled with `entries` takes an entry of `bytes` page bytes
    /// within `pagePayload` (``FileFormat/maximumPagePayload(pageSize:)``).
    static func leaf(_ entries: LeafEntries, hasRoomFor bytes: Int, pagePayload: Int) -> Bool {
        entries.encodedSize + bytes <= pagePayload
    }

    /// Adds a leaf finished elsewhere (its reference, first key and entry count), after
    /// every one added before: compaction fills and encodes leaves on several threads. A
    /// loader takes such leaves or entries, not both.
    mutating func appendLeaf(_ reference: ChildReference, firstKey: [UInt8], entryCount: Int) throws {
        precondition(levels[0].open == nil && levels[0].full == nil, "a loader takes entries or finished leaves, not both")
        count += entryCount
        try add(reference, firstKey: firstKey, at: 1)
    }

    /// Finishes every level; returns the root, or nil when nothing was added.
    mutating func finishTree() throws -> ChildReference? {
        var level = 0
        while level < levels.count {
            let isTop = level == levels.count - 1
            var nodes = [levels[level].full, levels[level].open].compactMap { $0 }
            levels[level] = Level()
            if isTop && nodes.count == 1 {
                let only = nodes[0].node
                // A top branch with a single child: that child is the root.
                return !only.isLeaf && only.count == 1 ? only.children[0] : try finish(only)
            }
            if nodes.count == 2, !nodes[1].node.isLeaf, nodes[1].node.count == 1 {
                nodes = evenOut(nodes[0], nodes[1])
            }
            for node in nodes { try hand(node, upFrom: level) }
            level += 1
        }
        return nil
    }

    /// Moves the node being filled at `level` to `full`, handing the previous full one up.
    private mutating func startNewNode(at level: Int) throws {
        if let full = levels[level].full { try hand(full, upFrom: level) }
        levels[level].full = levels[level].open
        levels[level].open = nil
    }

    /// Finishes `levelNode` and adds it as a child at `level + 1`.
    private mutating func hand(_ levelNode: LevelNode, upFrom level: Int) throws {
        try add(try finish(levelNode.node), firstKey: levelNode.firstKey, at: level + 1)
    }

    /// Adds a finished node, whose smallest key is `firstKey`, as the last child at `level`.
    private mutating func add(_ reference: ChildReference, firstKey: [UInt8], at level: Int) throws {
        if levels.count == level { levels.append(Level()) }
        if let open = levels[level].open,
           open.node.encodedSize + 8 + DirtyNode.separatorSize(firstKey) > pageSize {
            try startNewNode(at: level)
        }
        if let open = levels[level].open {
            open.node.insertChild(reference, separator: firstKey, after: open.node.count - 1)
        } else {
            levels[level].open = LevelNode(node: DirtyNode(separators: [], children: [reference]), firstKey: firstKey)
        }
    }

    /// Splits the children of two neighbouring branches evenly between them.
    private func evenOut(_ left: LevelNode, _ right: LevelNode) -> [LevelNode] {
        left.node.absorb(right.node, separator: right.firstKey)
        let (separator, newRight) = left.node.split(at: left.node.splitIndex(appending: false))
        return [left, LevelNode(node: newRight, firstKey: separator)]
    }
}

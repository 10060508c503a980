/// A tree cut into ranges of keys that threads scan at once: the pages are immutable, so
/// readers of one snapshot share them without locks (the page cache has its own).
extension TreeReader {
    /// At most `parts - 1` keys, ascending, that cut the tree into ranges of about equal
    /// size: separators of its upper branch levels, so each range is whole subtrees. Empty
    /// when the tree is a single leaf (or empty) or `parts` is below 2. Reads the branch
    /// levels until they have some four times `parts` subtrees (and the first leaf below,
    /// which tells the last branch level).
    public func splitKeys(parts: Int) throws -> [[UInt8]] {
        guard parts > 1, let root else { return [] }
        var level = [try reader.node(root)]
        guard !level[0].isLeaf else { return [] }
        // Keys between consecutive nodes of `level`, then between their children.
        var between: [[UInt8]] = []
        while true {
            var below: [[UInt8]] = []
            for (index, node) in level.enumerated() {
                if index > 0 { below.append(between[index - 1]) }
                for separator in 0..<node.count - 1 { below.append(node.key(at: separator)) }
            }
            between = below
            let subtrees = between.count + 1
            guard subtrees < 4 * parts, try !reader.node(level[0].child(at: 0)).isLeaf else { break }
            level = try level.flatMap { node in try (0..<node.count).map { try reader.node(node.child(at: $0)) } }
        }
        let subtrees = between.count + 1
        guard subtrees > parts else { return between }
        return (1..<parts).map { between[$0 * subtrees / parts - 1] }
    }

    /// Every entry with a key from `lower` (inclusive; the first when nil) to below `upper`
    /// (to the last when nil), in key order, with borrowed bytes as
    /// ``forEachEntry(reverse:_:)`` gives them, until `body` returns false.
    public func forEachEntry(
        from lower: [UInt8]?, below upper: [UInt8]?,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        var cursor = makeCursor()
        if let lower { try cursor.seek(atOrAfter: lower) } else { try cursor.first() }
        try cursor.forEachEntry(below: upper, body)
    }

    /// The entries from `lower` to below `upper` as ``forEachEntry(from:below:_:)`` reads
    /// them, a committed leaf's as one run of its indices (``Cursor/forEachRun(below:page:entry:)``).
    func forEachRun(
        from lower: [UInt8]?, below upper: [UInt8]?,
        page: (_ page: PageNode, _ run: Range<Int>) throws -> Bool,
        entry: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        var cursor = makeCursor()
        if let lower { try cursor.seek(atOrAfter: lower) } else { try cursor.first() }
        try cursor.forEachRun(below: upper, page: page, entry: entry)
    }
}

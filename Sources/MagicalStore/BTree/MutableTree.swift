/// One tree inside a write transaction: its root, as changed so far, and its entry count.
///
/// Changes copy the path from the root to the touched leaf into ``DirtyNode``s (F13); the
/// pages they replace are counted as freed, for the live/dead accounting of the commit.
final class MutableTree {
    private(set) var root: ChildReference?
    private(set) var count: Int
    /// Whether anything changed since the transaction began.
    private(set) var isModified = false
    let reader: SnapshotReader
    private let space: SpaceAccounting
    /// Where a batch writes the subtrees it has passed before the commit (nil: they wait
    /// for the commit, as the catalog's few pages do).
    var earlyPageWriter: (() throws -> LogWriter)?
    /// The error that stopped a batch part way, if one did: the batch is partly applied (and
    /// early pages may have reached the log that nothing accounts for), so the transaction
    /// can only be rolled back.
    var interruption: (any Error)?

    /// How large a page may grow (F12).
    private var pageSize: Int { FileFormat.maximumPagePayload(pageSize: reader.pageSize) }

    init(root: UInt64, count: Int, reader: SnapshotReader, space: SpaceAccounting) {
        self.root = root == 0 ? nil : .page(root)
        self.count = count
        self.reader = reader
        self.space = space
    }

    func markModified() {
        isModified = true
    }

    // MARK: Reading

    func value(for key: [UInt8]) throws -> LeafValue? {
        try lookup(key, root: root, reader: reader)
    }

    // MARK: Inserting

    /// Stores `value` under `key`, replacing any value there (F15 decides inline or overflow).
    func put(_ key: [UInt8], _ value: [UInt8]) throws {
        try Self.validate(key: key, value: value, pageSize: reader.pageSize)
        let leafValue: LeafValue = key.count + value.count > FileFormat.inlineEntryLimit(pageSize: reader.pageSize)
            ? .pendingOverflow(value) : .inline(value)
        try put(key, leafValue)
    }

    /// Stores an already-classified value; compaction and batches come through here.
    func put(_ key: [UInt8], _ value: LeafValue) throws {
        isModified = true
        guard let root else {
            var entries = LeafEntries()
            entries.append(key, value)
            self.root = .dirty(DirtyNode(leaf: entries))
            count = 1
            return
        }
        let node = try makeDirty(root)
        self.root = .dirty(node)
        if let (separator, right) = try insert(key, value, into: node) {
            self.root = .dirty(DirtyNode(separators: [separator], children: [.dirty(node), .dirty(right)]))
        }
    }

    static func validate(key: [UInt8], value: [UInt8], pageSize: Int) throws {
        try validate(keyLength: key.count, valueLength: value.count, pageSize: pageSize)
    }

    static func validate(keyLength: Int, valueLength: Int, pageSize: Int) throws {
        let keyLimit = FileFormat.maximumKeyLength(pageSize: pageSize)
        guard keyLength <= keyLimit else { throw StoreError.keyTooLarge(length: keyLength, limit: keyLimit) }
        guard valueLength <= FileFormat.maximumValueLength else {
            throw StoreError.valueTooLarge(length: valueLength, limit: FileFormat.maximumValueLength)
        }
    }

    /// Inserts into the subtree of `node`; returns the new right sibling when `node` split.
    private func insert(_ key: [UInt8], _ value: LeafValue, into node: DirtyNode) throws -> (separator: [UInt8], right: DirtyNode)? {
        if node.isLeaf {
            let (index, found) = node.entries.search(key)
            if found {
                release(node.entries, at: index)
                node.entries.replaceValue(at: index, with: value)
            } else {
                node.entries.insert(key, value, at: index)
                count += 1
            }
            guard node.encodedSize > pageSize else { return nil }
            return node.split(at: node.splitIndex(appending: !found && index == node.count - 1))
        }
        let index = node.childIndex(for: key)
        let child = try makeDirty(node.children[index])
        node.children[index] = .dirty(child)
        guard let (separator, right) = try insert(key, value, into: child) else { return nil }
        node.insertChild(.dirty(right), separator: separator, after: index)
        guard node.encodedSize > pageSize else { return nil }
        return node.split(at: node.splitIndex(appending: index == node.count - 2))
    }

    /// Inserts or replaces `key` in `leaf` when the leaf stays within a page; the caller
    /// has made sure `key` belongs in this leaf.
    func insertIfFits(_ key: [UInt8], _ value: LeafValue, into leaf: DirtyNode) throws -> Bool {
        let (index, found) = leaf.entries.search(key)
        if found {
            guard leaf.encodedSize - leaf.entries.pageBytes(at: index) + LeafEntries.pageBytes(key: key, value: value) <= pageSize else { return false }
            release(leaf.entries, at: index)
            leaf.entries.replaceValue(at: index, with: value)
        } else {
            guard leaf.encodedSize + LeafEntries.pageBytes(key: key, value: value) <= pageSize else { return false }
            leaf.entries.insert(key, value, at: index)
            count += 1
        }
        return true
    }

    /// Puts a batch's inline entries at `ordered[start...]` into `leaf` while they belong
    /// there (`belongs`) and fit; returns how many went in.
    func putInline(
        _ ordered: [Int], startingAt start: Int, of entries: EntryBatch.Entries, into leaf: DirtyNode, while belongs: (Int) -> Bool
    ) -> Int {
        let done = leaf.entries.putInline(capacity: pageSize) { place in
            let position = start + place
            guard position < ordered.count, belongs(position) else { return nil }
            return (entries.key(ordered[position]), entries.value(ordered[position]))
        }
        count += done.inserted
        space.freed += done.freedOverflowBytes
        return done.taken
    }

    /// Removes a batch's keys at `ordered[start...]` from `leaf` while they belong there
    /// (`belongs`) and the leaf stays at or above the size below which a delete merges it
    /// (a quarter page). Returns how many keys were dealt with (absent ones too) and how
    /// many were removed.
    func removeRun(
        _ ordered: [Int], startingAt start: Int, of entries: EntryBatch.Entries, from leaf: DirtyNode, while belongs: (Int) -> Bool
    ) -> (taken: Int, removed: Int) {
        let done = leaf.entries.removeRun(floor: pageSize / 4) { place in
            let position = start + place
            guard position < ordered.count, belongs(position) else { return nil }
            return entries.key(ordered[position])
        }
        count -= done.removed
        space.freed += done.freedOverflowBytes
        return (done.taken, done.removed)
    }

    /// The leaf that holds `key`, copied if needed, and the smallest key beyond it (nil:
    /// none) so callers know which keys also belong there.
    func dirtyLeaf(for key: [UInt8]) throws -> (leaf: DirtyNode, upperBound: [UInt8]?) {
        guard let root else { preconditionFailure("dirtyLeaf needs a non-empty tree") }
        var node = try makeDirty(root)
        self.root = .dirty(node)
        var upperBound: [UInt8]?
        while !node.isLeaf {
            let index = node.childIndex(for: key)
            if index < node.separators.count { upperBound = node.separators[index] }
            let child = try makeDirty(node.children[index])
            node.children[index] = .dirty(child)
            node = child
        }
        return (node, upperBound)
    }

    /// Installs a tree built elsewhere (a bulk load into this empty tree).
    func replaceRoot(_ newRoot: ChildReference?, count newCount: Int) {
        precondition(root == nil, "only an empty tree's root is replaced")
        root = newRoot
        count = newCount
        isModified = true
    }

    // MARK: Deleting

    /// Removes `key`; returns whether it was there.
    @discardableResult
    func delete(_ key: [UInt8]) throws -> Bool {
        // Look first, so deleting a missing key copies no pages.
        guard let root, try value(for: key) != nil else { return false }
        isModified = true
        let node = try makeDirty(root)
        try delete(key, from: node)
        if node.count == 0 {
            self.root = nil
        } else if !node.isLeaf && node.count == 1 {
            // A root branch with one child is replaced by the child (section 4.4).
            var collapsed = node.children[0]
            while case .dirty(let only) = collapsed, !only.isLeaf, only.count == 1 {
                collapsed = only.children[0]
            }
            self.root = collapsed
        } else {
            self.root = .dirty(node)
        }
        return true
    }

    private func delete(_ key: [UInt8], from node: DirtyNode) throws {
        if node.isLeaf {
            let (index, found) = node.entries.search(key)
            guard found else { return }
            release(node.entries, at: index)
            node.entries.remove(at: index)
            count -= 1
            return
        }
        let index = node.childIndex(for: key)
        let child = try makeDirty(node.children[index])
        node.children[index] = .dirty(child)
        try delete(key, from: child)
        try rebalance(childAt: index, of: node)
    }

    /// After a delete below `parent.children[index]`: removes an empty child, merges an
    /// under-full one into a sibling when both fit in a page, and evens out a branch left
    /// with a single child, which the format does not allow (section 4.4, F16).
    private func rebalance(childAt index: Int, of parent: DirtyNode) throws {
        guard case .dirty(let child) = parent.children[index] else { return }
        if child.count == 0 {
            parent.removeChild(at: index)
            return
        }
        let isLoneChildBranch = !child.isLeaf && child.count == 1
        guard child.encodedSize < pageSize / 4 || isLoneChildBranch, parent.count > 1 else { return }
        let leftIndex = index > 0 ? index - 1 : index
        let separator = parent.separators[leftIndex]
        let leftSize = try reader.node(parent.children[leftIndex]).encodedSize
        let rightSize = try reader.node(parent.children[leftIndex + 1]).encodedSize
        let mergedSize = child.isLeaf ? leftSize + rightSize - 2 : leftSize + rightSize - 2 + DirtyNode.separatorSize(separator)
        guard mergedSize <= pageSize || isLoneChildBranch else { return }
        let left = try makeDirty(parent.children[leftIndex])
        let right = try makeDirty(parent.children[leftIndex + 1])
        left.absorb(right, separator: separator)
        parent.children[leftIndex] = .dirty(left)
        parent.removeChild(at: leftIndex + 1)
        if left.encodedSize > pageSize {
            let (newSeparator, newRight) = left.split(at: left.splitIndex(appending: false))
            parent.insertChild(.dirty(newRight), separator: newSeparator, after: leftIndex)
        }
    }

    // MARK: Dropping

    /// Removes every entry, counting every page and overflow frame of the tree as freed.
    func removeAll() throws {
        if let root { try releaseSubtree(root) }
        root = nil
        count = 0
        isModified = true
    }

    private func releaseSubtree(_ reference: ChildReference) throws {
        let node = try reader.node(reference)
        if case .page(let page) = node { space.supersede(page) }
        for index in 0..<node.count {
            if node.isLeaf {
                release(node.value(at: index))
            } else {
                try releaseSubtree(node.child(at: index))
            }
        }
    }

    // MARK: Copy-on-write

    private func makeDirty(_ reference: ChildReference) throws -> DirtyNode {
        switch reference {
        case .dirty(let node):
            return node
        case .page(let offset):
            let page = try reader.pageToCopy(at: offset)
            space.supersede(page)
            return DirtyNode(page: page)
        }
    }

    private func release(_ value: LeafValue) {
        if case .overflow(let reference) = value {
            space.freed += UInt64(reference.frameSize)
        }
    }

    /// Counts entry `index`'s overflow frame, if it has one, as freed.
    private func release(_ entries: LeafEntries, at index: Int) {
        if let reference = entries.overflowReference(at: index) {
            space.freed += UInt64(reference.frameSize)
        }
    }
}

/// Bytes of frames a write transaction made unreachable, for the commit's live bytes, and
/// the pages among them, which the commit takes out of the page cache.
final class SpaceAccounting {
    var freed: UInt64 = 0
    private(set) var supersededPages: [UInt64] = []

    /// Counts `page` as replaced, with a delta's base: a leaf written as a delta of that
    /// base again gives it back (``LogWriter/keptBaseBytes``).
    func supersede(_ page: PageNode) {
        freed += page.liveFrameBytes
        supersededPages.append(page.offset)
        // Kept or not, the base is read again only when the page written on it has left
        // the cache: no reason to hold it.
        if let base = page.delta?.base { supersededPages.append(base.offset) }
    }
}

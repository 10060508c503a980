/// A snapshot of one commit (F21): what it sees never changes, whatever is committed or
/// compacted meanwhile. Sendable and cheap; hold it only as long as needed, since it
/// keeps the file it reads from open.
public struct ReadTransaction: Sendable {
    let reader: SnapshotReader
    let commit: CommitPoint
    /// Catalog entries shared with the other snapshots of this commit, if any.
    let directory: TreeDirectory?

    init(reader: SnapshotReader, commit: CommitPoint, directory: TreeDirectory? = nil) {
        self.reader = reader
        self.commit = commit
        self.directory = directory
    }

    /// The id of the commit this snapshot reads.
    public var transactionID: UInt64 { commit.transaction }

    /// What ``Store/isLatest(_:)`` knows this snapshot by while it lives: the catalog
    /// directory it shares with the other snapshots of its commit and file. Nil for a
    /// snapshot without one (a write transaction's).
    public var commitIdentity: ObjectIdentifier? { directory.map(ObjectIdentifier.init) }

    private var catalogRoot: ChildReference? {
        commit.record.catalogRoot == 0 ? nil : .page(commit.record.catalogRoot)
    }

    /// The tree named `name`; throws ``StoreError/treeNotFound(_:)`` when there is none.
    public func tree(_ name: String) throws -> TreeReader {
        guard let tree = try treeIfPresent(name) else { throw StoreError.treeNotFound(name) }
        return tree
    }

    public func treeIfPresent(_ name: String) throws -> TreeReader? {
        let found: Catalog.Entry?
        if let directory { found = try directory.entry(name) { try catalogEntry(name) } } else { found = try catalogEntry(name) }
        return found.map(reader(of:))
    }

    /// The tree `handle` names; throws ``StoreError/treeNotFound(_:)`` when there is none.
    /// The reader is made from the catalog entry once found: an optional reader unwrapped
    /// here was copied and destroyed through generic value witnesses (a point get names two
    /// trees).
    public func tree(_ handle: TreeHandle) throws -> TreeReader {
        guard let entry = try catalogEntry(handle) else { throw StoreError.treeNotFound(handle.name) }
        return reader(of: entry)
    }

    public func treeIfPresent(_ handle: TreeHandle) throws -> TreeReader? {
        try catalogEntry(handle).map(reader(of:))
    }

    private func catalogEntry(_ handle: TreeHandle) throws -> Catalog.Entry? {
        guard let directory else { return try catalogEntry(handle.name) }
        // The cached answer first, with no closure: one that captures the transaction
        // copies it, a retain per reference it holds (as much as the rest of the lookup).
        if let cached = directory.cachedEntry(handle) { return cached }
        return try directory.entry(handle) { try catalogEntry(handle.name) }
    }

    private func catalogEntry(_ name: String) throws -> Catalog.Entry? {
        let key = try Catalog.key(for: name)
        guard let value = try lookup(key, root: catalogRoot, reader: reader) else { return nil }
        return try Catalog.decode(try reader.bytes(of: value), name: key)
    }

    private func reader(of entry: Catalog.Entry) -> TreeReader {
        TreeReader(root: entry.root == 0 ? nil : .page(entry.root), count: Int(entry.count), reader: reader)
    }

    /// The names of all trees, in byte order.
    public func treeNames() throws -> [String] {
        var names: [String] = []
        var cursor = Cursor(root: catalogRoot, reader: reader)
        try cursor.first()
        while let key = cursor.key {
            names.append(String(decoding: key, as: UTF8.self))
            try cursor.next()
        }
        return names
    }
}

/// Read access to one tree of a snapshot.
public struct TreeReader: @unchecked Sendable {
    // `root` is always a page reference here (never a transaction's dirty node), which
    // makes the value safe to share.
    let root: ChildReference?
    let reader: SnapshotReader
    /// Number of entries, kept in the catalog: O(1).
    public let count: Int

    init(root: ChildReference?, count: Int, reader: SnapshotReader) {
        self.root = root
        self.count = count
        self.reader = reader
    }

    /// The value stored under `key`, or nil.
    public func get(_ key: [UInt8]) throws -> [UInt8]? {
        guard let value = try lookup(key, root: root, reader: reader) else { return nil }
        return try reader.bytes(of: value)
    }

    /// `body` with the value stored under `key` borrowed from its page (valid only during
    /// the call), or with nil when there is none: a point read that copies nothing.
    public func withValue<T>(_ key: [UInt8], _ body: (UnsafeRawBufferPointer?) throws -> T) throws -> T {
        try key.withUnsafeBytes { try withValue(forKey: $0, body) }
    }

    /// The same for a borrowed key: a point read by an object number encodes its key on
    /// the stack (``KeyEncoding/withEncodedInteger(_:_:)``).
    public func withValue<T>(forKey key: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer?) throws -> T) throws -> T {
        guard case .page(let rootOffset) = root else {
            guard let value = try get(Array(key)) else { return try body(nil) }
            return try value.withUnsafeBytes { try body($0) }
        }
        let page = try leafPage(for: key, root: rootOffset, reader: reader)
        let index = page.lowerBound(key)
        guard index < page.count, page.compareKey(at: index, with: key) == 0 else { return try body(nil) }
        return try page.withEntry(at: index, overflow: { try reader.bytes(of: $0) }) { _, value in try body(value) }
    }

    public func contains(_ key: [UInt8]) throws -> Bool {
        try lookup(key, root: root, reader: reader) != nil
    }

    /// The smallest key >= `key`, or nil when there is none: a point probe of an index
    /// (its first entry under a prefix) without a cursor's path.
    public func firstKey(atOrAfter key: [UInt8]) throws -> [UInt8]? {
        try withFirstKey(atOrAfter: key) { $0.map(Array.init) }
    }

    /// `body` with the smallest key >= `key` borrowed from its page (valid only during the
    /// call), or with nil: an index probe that reads the object number after a prefix
    /// copies nothing.
    public func withFirstKey<T>(atOrAfter key: [UInt8], _ body: (UnsafeRawBufferPointer?) throws -> T) throws -> T {
        try key.withUnsafeBytes { try withFirstKey(atOrAfter: $0, body) }
    }

    /// The same for a key borrowed for the call (built on the stack, say).
    public func withFirstKey<T>(atOrAfter key: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer?) throws -> T) throws -> T {
        guard case .page(let rootOffset) = root else { return try body(nil) }
        let page = try leafPage(for: key, root: rootOffset, reader: reader)
        let index = page.lowerBound(key)
        if index < page.count { return try page.withKey(at: index, body) }
        // The first key at or after `key` opens a later leaf: rare, and the cursor's walk.
        var cursor = makeCursor()
        try cursor.seek(atOrAfter: Array(key))
        guard let found = cursor.key else { return try body(nil) }
        return try found.withUnsafeBytes { try body($0) }
    }

    /// A cursor over the tree, not yet positioned.
    public func makeCursor() -> Cursor {
        Cursor(root: root, reader: reader)
    }

    /// Calls `body` for each entry in `range`, in key order (reversed when `reverse`),
    /// until it returns false.
    public func scan(
        _ range: KeyRange = .all, reverse: Bool = false,
        _ body: (_ key: [UInt8], _ value: [UInt8]) throws -> Bool
    ) throws {
        var cursor = makeCursor()
        try cursor.scan(range, reverse: reverse, body)
    }

    /// Every entry, with its key and value borrowed for the call only (no copies): see
    /// ``Cursor/forEachEntry(reverse:_:)``.
    public func forEachEntry(
        reverse: Bool = false, _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        var cursor = makeCursor()
        try cursor.forEachEntry(reverse: reverse, body)
    }
}

import Foundation

/// The store's one write transaction (Spec section 5). It sees the latest commit plus its
/// own changes; nothing it does is visible to others until ``commit()`` returns. Ending
/// it without committing (``rollback()``, or releasing it) discards everything.
///
/// Not thread-safe: use it from one thread at a time.
public final class WriteTransaction {
    private let store: Store
    let reader: SnapshotReader
    private let base: CommitPoint
    private let space = SpaceAccounting()
    private let catalog: MutableTree
    /// Trees opened or created in this transaction, by name.
    private var trees: [String: MutableTree] = [:]
    private var isActive = true
    /// The writer of pages written before the commit (by loaders), which the commit
    /// continues; nil until a loader finishes a page.
    private var earlyWriter: LogWriter?
    private var loads: [LoadAccount] = []

    init(store: Store, reader: SnapshotReader, base: CommitPoint) throws {
        self.store = store
        self.reader = reader
        self.base = base
        catalog = MutableTree(root: base.record.catalogRoot, count: Int(base.record.catalogCount), reader: reader, space: space)
    }

    deinit {
        if isActive { endWithoutCommit() }
    }

    /// Threads that encode and compress the transaction's changed leaves once there are
    /// many (its batches' early pages and its commit), the calling one among them; 1
    /// encodes them all on the calling thread. Every core by default. A writer whose
    /// process keeps other cores busy meanwhile (an import reading its next batch) lowers
    /// it: threads beyond the idle cores only take turns with the busy ones.
    public var encodingThreads = WriteTransaction.defaultEncodingThreads {
        didSet {
            encodingThreads = max(1, encodingThreads)
            earlyWriter?.encodingThreads = encodingThreads
        }
    }

    static var defaultEncodingThreads: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// The id the commit will have.
    public var transactionID: UInt64 { base.transaction + 1 }

    /// The longest key a tree of this store takes (Spec F15): callers that derive keys
    /// from user data check them first, to refuse with an error of their own.
    public var maximumKeyLength: Int { FileFormat.maximumKeyLength(pageSize: reader.pageSize) }

    // MARK: Trees

    /// The tree named `name`; throws ``StoreError/treeNotFound(_:)`` when there is none.
    public func tree(_ name: String) throws -> TreeWriter {
        guard let tree = try treeIfPresent(name) else { throw StoreError.treeNotFound(name) }
        return tree
    }

    public func treeIfPresent(_ name: String) throws -> TreeWriter? {
        try ensureActive()
        if let tree = trees[name] { return TreeWriter(tree: tree, transaction: self) }
        let key = try Catalog.key(for: name)
        guard let value = try catalog.value(for: key) else { return nil }
        let entry = try Catalog.decode(try reader.bytes(of: value), name: key)
        let tree = makeTree(root: entry.root, count: Int(entry.count))
        trees[name] = tree
        return TreeWriter(tree: tree, transaction: self)
    }

    /// A tree of this transaction whose batches may write passed pages early.
    private func makeTree(root: UInt64, count: Int) -> MutableTree {
        let tree = MutableTree(root: root, count: count, reader: reader, space: space)
        tree.earlyPageWriter = { [weak self] in
            guard let self else { throw StoreError.closed }
            return try self.pageWriter()
        }
        return tree
    }

    /// Creates an empty tree; throws ``StoreError/treeExists(_:)`` when the name is taken.
    @discardableResult
    public func createTree(_ name: String) throws -> TreeWriter {
        guard try treeIfPresent(name) == nil else { throw StoreError.treeExists(name) }
        let tree = makeTree(root: 0, count: 0)
        tree.markModified()
        trees[name] = tree
        // Registered now so the name is taken; the entry gets its root at commit.
        try catalog.put(try Catalog.key(for: name), .inline(Catalog.encode(.init(root: 0, count: 0))))
        return TreeWriter(tree: tree, transaction: self)
    }

    /// Creates the tree `name` and returns a loader that fills it from entries in strictly
    /// ascending key order, bottom-up, with full pages and no searching: for building a
    /// whole tree (a migration's rewritten records) without first collecting its entries.
    /// Throws ``StoreError/treeExists(_:)`` when the name is taken.
    public func makeLoader(forNewTree name: String) throws -> TreeLoader {
        let writer = try createTree(name)
        return TreeLoader(name: name, tree: writer.tree, transaction: self)
    }

    /// The log writer for pages written before the commit, made on first use: a loader
    /// writes each page it fills at once, so a tree of any size never waits in memory.
    /// Its pages carry the commit's transaction id; until the commit they are only
    /// reachable from this transaction's trees.
    func pageWriter() throws -> LogWriter {
        try ensureActive()
        if let earlyWriter { return earlyWriter }
        let (file, _) = try store.writerSnapshot()
        let writer = LogWriter(
            file: file, transaction: transactionID, position: base.end, compression: store.options.compression,
            lz4Acceleration: LZ4.Acceleration.commit, packsLeaves: store.options.packsLeaves, retention: .copies(upTo: store.options.cacheBytes / 4)
        )
        writer.encodingThreads = encodingThreads
        earlyWriter = writer
        return writer
    }

    /// Keeps a loader's account: at the commit, the pages of a load that never reached its
    /// tree are not live.
    func register(_ account: LoadAccount) {
        loads.append(account)
    }

    /// Whether `tree` is still one of this transaction's trees (not dropped).
    func holds(_ tree: MutableTree) -> Bool {
        trees.values.contains { $0 === tree }
    }

    /// The tree named `name`, created when missing.
    public func openTree(_ name: String) throws -> TreeWriter {
        if let tree = try treeIfPresent(name) { return tree }
        return try createTree(name)
    }

    /// Deletes a tree and all its entries.
    public func dropTree(_ name: String) throws {
        guard let tree = try treeIfPresent(name) else { throw StoreError.treeNotFound(name) }
        try tree.tree.removeAll()
        trees.removeValue(forKey: name)
        try catalog.delete(try Catalog.key(for: name))
    }

    /// Gives the tree `name` the name `newName`, keeping its entries: O(1), no entry is
    /// copied. Throws ``StoreError/treeNotFound(_:)`` when there is no tree `name` and
    /// ``StoreError/treeExists(_:)`` when `newName` is taken.
    public func renameTree(_ name: String, to newName: String) throws {
        guard let writer = try treeIfPresent(name) else { throw StoreError.treeNotFound(name) }
        guard name != newName else { return }
        guard try treeIfPresent(newName) == nil else { throw StoreError.treeExists(newName) }
        let oldKey = try Catalog.key(for: name)
        let newKey = try Catalog.key(for: newName)
        // The entry moves as it is: an unmodified tree's entry is not rewritten at commit.
        guard let entry = try catalog.value(for: oldKey) else { throw StoreError.treeNotFound(name) }
        try catalog.put(newKey, .inline(try reader.bytes(of: entry)))
        try catalog.delete(oldKey)
        trees.removeValue(forKey: name)
        trees[newName] = writer.tree
    }

    /// The names of all trees, in byte order, including those created in this transaction.
    public func treeNames() throws -> [String] {
        try ensureActive()
        var names: [String] = []
        var cursor = Cursor(root: catalog.root, reader: reader)
        try cursor.first()
        while let key = cursor.key {
            names.append(String(decoding: key, as: UTF8.self))
            try cursor.next()
        }
        return names
    }

    // MARK: Ending

    /// Writes the transaction's pages and its commit frame; with `full` durability, returns
    /// once they are synced. On failure nothing of it becomes visible, and the transaction
    /// has ended either way. A transaction in which a batch stopped part way (an I/O error
    /// reading or writing its pages) is rolled back here, with that batch's error.
    public func commit() throws {
        try ensureActive()
        if let failure = trees.values.lazy.compactMap(\.interruption).first {
            endWithoutCommit()
            throw failure
        }
        isActive = false
        defer { store.endWrite() }
        guard catalog.isModified || trees.values.contains(where: \.isModified) else { return }

        let (file, syncedThrough): (StoreFile, UInt64)
        do {
            (file, syncedThrough) = try store.writerSnapshot()
        } catch {
            if earlyWriter != nil { discardEarlyPages() }
            throw error
        }
        let writer = earlyWriter ?? LogWriter(
            file: file, transaction: transactionID, position: base.end, compression: store.options.compression,
            lz4Acceleration: LZ4.Acceleration.commit, packsLeaves: store.options.packsLeaves
        )
        // The copies the commit writes are all cached, with its branches (of the pages
        // written before it, copies up to a limit).
        writer.retention = .copiesAndBranches
        writer.encodingThreads = encodingThreads
        for load in loads where !load.isLoaded { space.freed += load.bytesWritten }
        let full = store.options.durability == .full
        var syncing = false
        do {
            for (name, tree) in trees.sorted(by: { $0.key < $1.key }) where tree.isModified {
                let root = try tree.root.map { try writer.writeSubtree($0) } ?? 0
                try catalog.put(try Catalog.key(for: name), .inline(Catalog.encode(.init(root: root, count: UInt64(tree.count)))))
            }
            let catalogRoot = try catalog.root.map { try writer.writeSubtree($0) } ?? 0
            let commitFrameSize = FileFormat.frameSize(storedLength: FileFormat.commitPayloadSize)
            // The previous commit frame is superseded by this one.
            let freed = space.freed + (base.end - base.offset)
            // Added before the freed bytes are taken: those may include pages a loader wrote
            // in this transaction, and leaf delta bases kept live. Only a damaged count in
            // the commit before could make this negative.
            let (gained, overflow) = base.record.liveBytes.addingReportingOverflow(
                writer.bytesAppended + writer.keptBaseBytes + commitFrameSize
            )
            guard !overflow, gained >= freed else {
                throw StoreError.corrupt(offset: base.offset, reason: "the commit's live bytes do not cover what this transaction freed")
            }
            let record = CommitRecord(
                catalogRoot: catalogRoot,
                catalogCount: UInt64(catalog.count),
                previousCommit: base.offset,
                durableThrough: syncedThrough,
                liveBytes: gained - freed,
                firstFrame: base.end,
                timestampMilliseconds: currentTimeMilliseconds()
            )
            let (offset, size) = try writer.append(.commit, payload: record.encoded())
            try writer.flush()
            if full {
                syncing = true
                try file.file.sync()
            }
            let commit = CommitPoint(offset: offset, transaction: transactionID, record: record, end: offset + size)
            store.publish(commit, synced: full, pages: writer.writtenPages, superseded: space.supersededPages)
        } catch {
            reader.owner.discardEarlyPages()
            store.abandonCommit(truncatingTo: base.end, error: error, duringSync: syncing)
            throw error
        }
    }

    /// Discards every change. Safe to call on an ended transaction.
    public func rollback() {
        guard isActive else { return }
        endWithoutCommit()
    }

    /// Ends the transaction without a commit, removing the pages it wrote early.
    private func endWithoutCommit() {
        isActive = false
        if earlyWriter != nil { discardEarlyPages() }
        store.endWrite()
    }

    /// Cuts the pages written before the commit off the file; cursors holding them can no
    /// longer read them.
    private func discardEarlyPages() {
        reader.owner.discardEarlyPages()
        store.discardFrames(from: base.end)
    }

    func ensureActive() throws {
        guard isActive else { throw StoreError.closed }
    }
}

/// Read and write access to one tree inside a write transaction.
public struct TreeWriter {
    let tree: MutableTree
    let transaction: WriteTransaction

    /// Number of entries, including this transaction's changes.
    public var count: Int { tree.count }

    public func get(_ key: [UInt8]) throws -> [UInt8]? {
        try transaction.ensureActive()
        guard let value = try tree.value(for: key) else { return nil }
        return try tree.reader.bytes(of: value)
    }

    public func contains(_ key: [UInt8]) throws -> Bool {
        try transaction.ensureActive()
        return try tree.value(for: key) != nil
    }

    /// Stores `value` under `key`, replacing what was there.
    public func put(_ key: [UInt8], _ value: [UInt8]) throws {
        try transaction.ensureActive()
        try tree.put(key, value)
    }

    /// Stores many entries at once, in any order; when a key appears twice the later value
    /// wins. Much faster than one `put` per entry for large batches (sorted bulk path).
    public func putBatch(_ entries: [(key: [UInt8], value: [UInt8])]) throws {
        try transaction.ensureActive()
        try tree.putBatch(entries)
    }

    /// The same for entries laid out in one buffer (``EntryBatch``): no array per key or
    /// per value, none read from the heap in key order.
    public func putBatch(_ batch: EntryBatch) throws {
        try transaction.ensureActive()
        try tree.putBatch(batch)
    }

    /// Removes `key`; returns whether it was there.
    @discardableResult
    public func delete(_ key: [UInt8]) throws -> Bool {
        try transaction.ensureActive()
        return try tree.delete(key)
    }

    /// Removes many keys at once, in any order (absent ones are passed over); returns how
    /// many were there. Much faster than one `delete` per key for large batches.
    @discardableResult
    public func deleteBatch(_ keys: [[UInt8]]) throws -> Int {
        try transaction.ensureActive()
        return try tree.deleteBatch(keys)
    }

    /// The same for the keys of a batch laid out in one buffer (``EntryBatch``; values are
    /// not read): no array per key.
    @discardableResult
    public func deleteBatch(_ keys: EntryBatch) throws -> Int {
        try transaction.ensureActive()
        return try tree.deleteBatch(keys)
    }

    /// A cursor over the tree as changed so far; changing the tree invalidates it.
    public func makeCursor() -> Cursor {
        Cursor(root: tree.root, reader: tree.reader)
    }

    public func scan(
        _ range: KeyRange = .all, reverse: Bool = false,
        _ body: (_ key: [UInt8], _ value: [UInt8]) throws -> Bool
    ) throws {
        try transaction.ensureActive()
        var cursor = makeCursor()
        try cursor.scan(range, reverse: reverse, body)
    }
}

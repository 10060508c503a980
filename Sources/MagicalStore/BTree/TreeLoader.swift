/// Fills a new tree inside a write transaction from entries in strictly ascending key
/// order (``WriteTransaction/makeLoader(forNewTree:)``). Entries are visible once
/// ``finish()`` has run; a loader dropped unfinished leaves the tree empty.
///
/// Each page is encoded, compressed and appended to the log as soon as it is full, so a
/// tree of millions of entries never waits in memory for the commit, and the commit has
/// only the rest of the transaction to write. Until the commit the pages are reachable
/// from this transaction alone; a rollback cuts them off the file.
public final class TreeLoader {
    private let name: String
    private let tree: MutableTree
    private let transaction: WriteTransaction
    private var loader: BulkLoader
    private var lastKey: [UInt8]?
    private let inlineLimit: Int
    private var isFinished = false
    /// What this loader wrote to the log, which the commit counts as freed unless the
    /// tree got it.
    private let account = LoadAccount()

    init(name: String, tree: MutableTree, transaction: WriteTransaction) {
        self.name = name
        self.tree = tree
        self.transaction = transaction
        let account = account
        loader = BulkLoader(pageSize: tree.reader.pageSize) { node in
            let writer = try transaction.pageWriter()
            let before = writer.bytesAppended
            // Counted even when a write fails: the frames stay in the writer's buffer.
            defer { account.bytesWritten += writer.bytesAppended - before }
            return .page(try writer.writeSubtree(.dirty(node)))
        }
        inlineLimit = FileFormat.inlineEntryLimit(pageSize: tree.reader.pageSize)
        transaction.register(account)
    }

    /// The number of entries appended so far.
    public var count: Int { loader.count }

    /// Adds the next entry. Throws ``StoreError/keysOutOfOrder(tree:)`` for a key not above
    /// the previous one, and the size errors ``TreeWriter/put(_:_:)`` throws.
    public func append(_ key: [UInt8], _ value: [UInt8]) throws {
        try transaction.ensureActive()
        precondition(!isFinished, "a finished loader takes no more entries")
        try MutableTree.validate(key: key, value: value, pageSize: tree.reader.pageSize)
        if let lastKey, compareBytes(lastKey, key) >= 0 { throw StoreError.keysOutOfOrder(tree: name) }
        lastKey = key
        try loader.append(key, key.count + value.count > inlineLimit ? .pendingOverflow(value) : .inline(value))
    }

    /// Makes the appended entries the tree's content.
    public func finish() throws {
        try transaction.ensureActive()
        guard !isFinished else { return }
        isFinished = true
        guard loader.count > 0 else { return }
        // A tree dropped meanwhile gets nothing (its pages stay counted as freed).
        guard transaction.holds(tree) else { throw StoreError.treeNotFound(name) }
        let root = try loader.finishTree()
        // In the file before anything reads them in this transaction.
        try transaction.pageWriter().flush()
        tree.replaceRoot(root, count: loader.count)
        account.isLoaded = true
    }
}

/// The log bytes one loader wrote, and whether its tree got them.
final class LoadAccount {
    var bytesWritten: UInt64 = 0
    var isLoaded = false
}

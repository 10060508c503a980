/// Fills a new tree inside a write transaction from entries in strictly ascending key
/// order (``WriteTransaction/makeLoader(forNewTree:)``). Entries are visible once
/// ``finish()`` has run; a loader dropped unfinished leaves the tree empty.
public final class TreeLoader {
    private let name: String
    private let tree: MutableTree
    private let transaction: WriteTransaction
    private var loader: BulkLoader
    private var lastKey: [UInt8]?
    private let inlineLimit: Int
    private var isFinished = false

    init(name: String, tree: MutableTree, transaction: WriteTransaction) {
        self.name = name
        self.tree = tree
        self.transaction = transaction
        loader = BulkLoader(pageSize: tree.reader.pageSize) { .dirty($0) }
        inlineLimit = FileFormat.inlineEntryLimit(pageSize: tree.reader.pageSize)
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
        tree.replaceRoot(try loader.finishTree(), count: loader.count)
    }
}

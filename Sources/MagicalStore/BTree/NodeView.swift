import Synchronization

/// Whether a write transaction's early pages (written before its commit) are still its
/// own: until it ends without committing. It keeps the last few it read: a batch reads a
/// leaf to look a key up and again to copy it, and a leaf delta's page is merged from two
/// frames (F21 keeps them out of the store's cache).
final class TransactionState: Sendable {
    private let discarded = Atomic<Bool>(false)
    private let recentPages = Mutex(RecentPages())

    /// Pages by offset, the oldest dropped past the limit.
    private struct RecentPages {
        var byOffset: [UInt64: PageNode] = [:]
        var order: [UInt64] = []
        var next = 0
    }

    private static let recentPageLimit = 64

    /// The state of a reader that belongs to no write transaction: it may read no early pages.
    static let withoutEarlyPages: TransactionState = {
        let state = TransactionState()
        state.discardEarlyPages()
        return state
    }()

    var mayReadEarlyPages: Bool { !discarded.load(ordering: .acquiring) }

    func discardEarlyPages() {
        discarded.store(true, ordering: .releasing)
        recentPages.withLock { $0 = RecentPages() }
    }

    /// The early page at `offset`, from the recent ones or from `read`.
    func earlyPage(at offset: UInt64, _ read: () throws -> PageNode) throws -> PageNode {
        guard mayReadEarlyPages else { throw StoreError.closed }
        if let page = recentPages.withLock({ $0.byOffset[offset] }) { return page }
        let page = try read()
        recentPages.withLock { recent in
            guard !discarded.load(ordering: .acquiring), recent.byOffset[offset] == nil else { return }
            if recent.order.count < Self.recentPageLimit {
                recent.order.append(offset)
            } else {
                recent.byOffset[recent.order[recent.next]] = nil
                recent.order[recent.next] = offset
                recent.next = (recent.next + 1) % Self.recentPageLimit
            }
            recent.byOffset[offset] = page
        }
        return page
    }
}

/// Reads one snapshot's pages: the store file and the transaction id it may see (F21).
struct SnapshotReader: Sendable {
    let file: StoreFile
    let transaction: UInt64
    /// A write transaction's reader: where the pages it writes before its commit begin (a
    /// ``TreeLoader`` streams them). They belong to the next transaction id and are read
    /// past the cache, which must not keep them: a rollback hands their offsets on.
    var uncommittedFrom = UInt64.max
    /// The write transaction's state: once it has ended without a commit, its early pages
    /// are gone (or another transaction's), and a cursor still holding them gets `closed`.
    /// A snapshot's reader has one that never had any (not an optional: copying a reader,
    /// two per point get, copied an optional reference through generic value witnesses).
    var owner = TransactionState.withoutEarlyPages
    /// Whether pages read from the file go into the cache; compaction, which reads each
    /// page once into a file that replaces this one, leaves the cache to the readers.
    var cachesPages = true

    var pageSize: Int { file.pageSize }

    func page(at offset: UInt64) throws -> PageNode {
        guard offset >= uncommittedFrom else {
            return cachesPages
                ? try file.page(at: offset, snapshot: transaction) : try file.pageToCopy(at: offset, snapshot: transaction)
        }
        return try owner.earlyPage(at: offset) {
            try file.uncachedPage(at: offset, snapshot: transaction + 1, earlyFrom: uncommittedFrom)
        }
    }

    /// A page a write transaction is about to copy and replace (not cached when missing).
    func pageToCopy(at offset: UInt64) throws -> PageNode {
        guard offset >= uncommittedFrom else { return try file.pageToCopy(at: offset, snapshot: transaction) }
        return try page(at: offset)
    }

    func node(_ reference: ChildReference) throws -> NodeView {
        switch reference {
        case .page(let offset): return .page(try page(at: offset))
        case .dirty(let node): return .dirty(node)
        }
    }

    /// The bytes of a leaf value, reading an overflow frame when needed.
    func bytes(of value: LeafValue) throws -> [UInt8] {
        switch value {
        case .inline(let bytes), .pendingOverflow(let bytes): return bytes
        case .overflow(let reference):
            guard reference.offset >= uncommittedFrom else { return try file.overflowValue(reference, snapshot: transaction) }
            guard owner.mayReadEarlyPages else { throw StoreError.closed }
            return try file.overflowValue(reference, snapshot: transaction + 1)
        }
    }
}

/// A node seen the same way whether it is a page in the file or changed by the current
/// write transaction, so lookups and cursors serve both.
enum NodeView {
    case page(PageNode)
    case dirty(DirtyNode)

    var isLeaf: Bool {
        switch self {
        case .page(let page): return page.isLeaf
        case .dirty(let node): return node.isLeaf
        }
    }

    /// Entries of a leaf; children of a branch.
    var count: Int {
        switch self {
        case .page(let page): return page.count
        case .dirty(let node): return node.count
        }
    }

    func key(at index: Int) -> [UInt8] {
        switch self {
        case .page(let page): return page.key(at: index)
        case .dirty(let node): return node.isLeaf ? node.entries.key(at: index) : node.separators[index]
        }
    }

    func value(at index: Int) -> LeafValue {
        switch self {
        case .page(let page): return page.value(at: index)
        case .dirty(let node): return node.entries.value(at: index)
        }
    }

    func child(at index: Int) -> ChildReference {
        switch self {
        case .page(let page): return .page(page.children[index])
        case .dirty(let node): return node.children[index]
        }
    }

    /// The first leaf index whose key is >= `key`.
    func lowerBound(_ key: [UInt8]) -> Int {
        switch self {
        case .page(let page): return key.withUnsafeBytes { page.lowerBound($0) }
        case .dirty(let node): return node.entries.search(key).index
        }
    }

    /// The branch child that holds `key` (F16).
    func childIndex(for key: [UInt8]) -> Int {
        switch self {
        case .page(let page): return key.withUnsafeBytes { page.childIndex(for: $0) }
        case .dirty(let node): return node.childIndex(for: key)
        }
    }

    /// Encoded payload size, for merge decisions.
    var encodedSize: Int {
        switch self {
        case .page(let page): return page.payload.count
        case .dirty(let node): return node.encodedSize
        }
    }
}

/// Finds the value stored under `key` in the tree rooted at `root`.
func lookup(_ key: [UInt8], root: ChildReference?, reader: SnapshotReader) throws -> LeafValue? {
    guard let root else { return nil }
    if case .page(let offset) = root {
        return try lookupInPages(key, root: offset, reader: reader)
    }
    var node = try reader.node(root)
    while !node.isLeaf {
        let child = node.child(at: node.childIndex(for: key))
        if case .page(let offset) = child {
            return try lookupInPages(key, root: offset, reader: reader)
        }
        node = try reader.node(child)
    }
    let index = node.lowerBound(key)
    guard index < node.count, node.key(at: index) == key else { return nil }
    return node.value(at: index)
}

/// The read path proper: a subtree of committed pages, searched in place.
private func lookupInPages(_ key: [UInt8], root: UInt64, reader: SnapshotReader) throws -> LeafValue? {
    try key.withUnsafeBytes { raw -> LeafValue? in
        let page = try leafPage(for: raw, root: root, reader: reader)
        let index = page.lowerBound(raw)
        guard index < page.count, page.compareKey(at: index, with: raw) == 0 else { return nil }
        return page.value(at: index)
    }
}

/// The committed leaf under `root` whose key range holds `key`.
func leafPage(for key: UnsafeRawBufferPointer, root: UInt64, reader: SnapshotReader) throws -> PageNode {
    var page = try reader.page(at: root)
    while !page.isLeaf {
        page = try reader.page(at: page.children[page.childIndex(for: key)])
    }
    return page
}

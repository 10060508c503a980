/// Where an overflow value lives (Spec section 4.1, value kind 1).
struct OverflowReference: Equatable, Sendable {
    var offset: UInt64
    /// On-disk size of the overflow frame, counted as dead space once the value is replaced.
    var frameSize: UInt32
    var length: UInt32
}

/// A leaf entry's value inside a write transaction.
enum LeafValue: Equatable {
    case inline([UInt8])
    case overflow(OverflowReference)
    /// A large value not yet written; it becomes an overflow frame at commit.
    case pendingOverflow([UInt8])

    /// Bytes this value takes in a leaf entry after the value-kind byte (F15).
    var encodedSize: Int {
        switch self {
        case .inline(let bytes): return varintSize(bytes.count) + bytes.count
        case .overflow, .pendingOverflow: return 16
        }
    }
}

/// A child pointer inside a write transaction: a page in the file, or a node changed by
/// this transaction.
enum ChildReference {
    case page(UInt64)
    case dirty(DirtyNode)
}

/// A tree node being changed by a write transaction: mutable, and written as a new page at
/// commit (copy-on-write, F13). Never shared between threads.
final class DirtyNode {
    let isLeaf: Bool
    /// Leaf only: the entries, as page bytes.
    var entries: LeafEntries
    /// Branch only: separator keys (one fewer than children), and the children.
    private(set) var separators: [[UInt8]]
    var children: [ChildReference]
    /// A branch's payload size, kept current by every change.
    private var branchSize: Int

    private init(isLeaf: Bool, entries: LeafEntries, separators: [[UInt8]], children: [ChildReference]) {
        self.isLeaf = isLeaf
        self.entries = entries
        self.separators = separators
        self.children = children
        branchSize = 2 + 8 * children.count
        for separator in separators { branchSize += Self.separatorSize(separator) }
    }

    convenience init(leaf entries: LeafEntries = LeafEntries()) {
        self.init(isLeaf: true, entries: entries, separators: [], children: [])
    }

    convenience init(separators: [[UInt8]], children: [ChildReference]) {
        self.init(isLeaf: false, entries: LeafEntries(), separators: separators, children: children)
    }

    /// A mutable copy of a page.
    convenience init(page: PageNode) {
        if page.isLeaf {
            self.init(leaf: LeafEntries(page: page))
        } else {
            self.init(separators: (0..<page.entries.count).map { page.key(at: $0) }, children: page.children.map { .page($0) })
        }
    }

    var count: Int { isLeaf ? entries.count : children.count }

    /// The payload size this node encodes to.
    var encodedSize: Int { isLeaf ? entries.encodedSize : branchSize }

    static func separatorSize(_ key: [UInt8]) -> Int {
        2 + varintSize(key.count) + key.count
    }

    /// The child of a branch that holds `key` (F16).
    func childIndex(for key: [UInt8]) -> Int {
        var low = 0
        var high = separators.count
        while low < high {
            let middle = (low + high) / 2
            if compareBytes(separators[middle], key) <= 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }

    // MARK: Branch mutation

    /// Inserts `child` to the right of child `index`, with `separator` between them.
    func insertChild(_ child: ChildReference, separator: [UInt8], after index: Int) {
        children.insert(child, at: index + 1)
        separators.insert(separator, at: index)
        branchSize += 8 + Self.separatorSize(separator)
    }

    /// Removes child `index` and the separator that bounded it.
    func removeChild(at index: Int) {
        let separatorIndex = index == 0 ? 0 : index - 1
        children.remove(at: index)
        if !separators.isEmpty {
            branchSize -= Self.separatorSize(separators[separatorIndex])
            separators.remove(at: separatorIndex)
        }
        branchSize -= 8
    }

    // MARK: Splitting and merging

    /// Moves the entries from `index` on into a new right sibling; returns it with the
    /// separator between them (a branch's key at `index`, which moves up).
    func split(at index: Int) -> (separator: [UInt8], right: DirtyNode) {
        if isLeaf {
            let right = DirtyNode(leaf: entries.split(at: index))
            return (right.entries.key(at: 0), right)
        }
        let separator = separators[index]
        let right = DirtyNode(separators: Array(separators[(index + 1)...]), children: Array(children[(index + 1)...]))
        separators.removeSubrange(index...)
        children.removeSubrange((index + 1)...)
        branchSize = 2 + 8 * children.count
        for separator in separators { branchSize += Self.separatorSize(separator) }
        return (separator, right)
    }

    /// Where to split an over-full node: by bytes, near the middle; at the end when the
    /// last insert went there, so ascending loads leave full pages behind (section 4.4).
    func splitIndex(appending: Bool) -> Int {
        // Both halves keep at least one entry (leaf) or two children (branch).
        let maximum = isLeaf ? entries.count - 1 : separators.count - 2
        if appending { return maximum }
        var accumulated = isLeaf ? 2 : 2 + 8
        let half = encodedSize / 2
        for index in 0..<(isLeaf ? entries.count : separators.count) {
            accumulated += isLeaf ? entries.pageBytes(at: index) : Self.separatorSize(separators[index]) + 8
            if accumulated >= half { return min(max(index, 1), maximum) }
        }
        return maximum
    }

    /// Appends `right`'s contents; for branches, `separator` is the key between them.
    func absorb(_ right: DirtyNode, separator: [UInt8]) {
        if isLeaf {
            entries.absorb(right.entries)
        } else {
            for (index, child) in right.children.enumerated() {
                insertChild(child, separator: index == 0 ? separator : right.separators[index - 1], after: children.count - 1)
            }
        }
    }
}

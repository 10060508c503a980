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

/// A tree node being changed by a write transaction: decoded into arrays, mutable, and
/// written as a new page at commit (copy-on-write, F13). Never shared between threads.
final class DirtyNode {
    let isLeaf: Bool
    /// Leaf: entry keys. Branch: separator keys (one fewer than children).
    var keys: [[UInt8]]
    var values: [LeafValue]
    var children: [ChildReference]
    /// The payload size this node encodes to; kept current by every mutation.
    private(set) var encodedSize: Int

    init(isLeaf: Bool, keys: [[UInt8]] = [], values: [LeafValue] = [], children: [ChildReference] = []) {
        self.isLeaf = isLeaf
        self.keys = keys
        self.values = values
        self.children = children
        encodedSize = 0
        recomputeSize()
    }

    /// A mutable copy of a page.
    convenience init(page: PageNode) {
        let keys = (0..<page.entries.count).map { page.key(at: $0) }
        if page.isLeaf {
            self.init(isLeaf: true, keys: keys, values: (0..<page.entries.count).map { page.value(at: $0) })
        } else {
            self.init(isLeaf: false, keys: keys, children: page.children.map { .page($0) })
        }
    }

    var count: Int { isLeaf ? keys.count : children.count }

    private func recomputeSize() {
        if isLeaf {
            encodedSize = 2
            for index in keys.indices {
                encodedSize += Self.leafEntrySize(key: keys[index], value: values[index])
            }
        } else {
            encodedSize = 2 + 8 * children.count
            for key in keys { encodedSize += Self.separatorSize(key) }
        }
    }

    static func leafEntrySize(key: [UInt8], value: LeafValue) -> Int {
        2 + varintSize(key.count) + key.count + 1 + value.encodedSize
    }

    static func separatorSize(_ key: [UInt8]) -> Int {
        2 + varintSize(key.count) + key.count
    }

    // MARK: Searching

    /// The first index whose key is >= `key`, and whether it is equal.
    func search(_ key: [UInt8]) -> (index: Int, found: Bool) {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if compareBytes(keys[middle], key) < 0 { low = middle + 1 } else { high = middle }
        }
        return (low, low < keys.count && compareBytes(keys[low], key) == 0)
    }

    /// The child of a branch that holds `key` (F16).
    func childIndex(for key: [UInt8]) -> Int {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if compareBytes(keys[middle], key) <= 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }

    // MARK: Leaf mutation

    func insertEntry(_ key: [UInt8], _ value: LeafValue, at index: Int) {
        keys.insert(key, at: index)
        values.insert(value, at: index)
        encodedSize += Self.leafEntrySize(key: key, value: value)
    }

    /// Adds an entry after the last one (bulk loading: cheaper than inserting at the end).
    func appendEntry(_ key: [UInt8], _ value: LeafValue) {
        keys.append(key)
        values.append(value)
        encodedSize += Self.leafEntrySize(key: key, value: value)
    }

    func replaceValue(at index: Int, with value: LeafValue) {
        encodedSize += value.encodedSize - values[index].encodedSize
        values[index] = value
    }

    func removeEntry(at index: Int) {
        encodedSize -= Self.leafEntrySize(key: keys[index], value: values[index])
        keys.remove(at: index)
        values.remove(at: index)
    }

    // MARK: Branch mutation

    /// Inserts `child` to the right of child `index`, with `separator` between them.
    func insertChild(_ child: ChildReference, separator: [UInt8], after index: Int) {
        children.insert(child, at: index + 1)
        keys.insert(separator, at: index)
        encodedSize += 8 + Self.separatorSize(separator)
    }

    func replaceSeparator(at index: Int, with separator: [UInt8]) {
        encodedSize += Self.separatorSize(separator) - Self.separatorSize(keys[index])
        keys[index] = separator
    }

    /// Removes child `index` and the separator that bounded it.
    func removeChild(at index: Int) {
        let separatorIndex = index == 0 ? 0 : index - 1
        children.remove(at: index)
        if !keys.isEmpty {
            encodedSize -= Self.separatorSize(keys[separatorIndex])
            keys.remove(at: separatorIndex)
        }
        encodedSize -= 8
    }

    // MARK: Splitting and merging

    /// Moves the entries from `index` on into a new right sibling; for a branch, the key at
    /// `index` moves up and is returned as the separator.
    func split(at index: Int) -> (separator: [UInt8], right: DirtyNode) {
        if isLeaf {
            let right = DirtyNode(isLeaf: true, keys: Array(keys[index...]), values: Array(values[index...]))
            keys.removeSubrange(index...)
            values.removeSubrange(index...)
            recomputeSize()
            return (right.keys[0], right)
        }
        let separator = keys[index]
        let right = DirtyNode(isLeaf: false, keys: Array(keys[(index + 1)...]), children: Array(children[(index + 1)...]))
        keys.removeSubrange(index...)
        children.removeSubrange((index + 1)...)
        recomputeSize()
        return (separator, right)
    }

    /// Where to split an over-full node: by bytes, near the middle; at the end when the
    /// last insert went there, so ascending loads leave full pages behind (section 4.3).
    func splitIndex(appending: Bool) -> Int {
        // Both halves keep at least one entry (leaf) or two children (branch).
        let maximum = isLeaf ? keys.count - 1 : keys.count - 2
        if appending { return maximum }
        var accumulated = isLeaf ? 2 : 2 + 8
        let half = encodedSize / 2
        for index in keys.indices {
            accumulated += isLeaf
                ? Self.leafEntrySize(key: keys[index], value: values[index])
                : Self.separatorSize(keys[index]) + 8
            if accumulated >= half { return min(max(index, 1), maximum) }
        }
        return maximum
    }

    /// Appends `right`'s contents; for branches, `separator` is the key between them.
    func absorb(_ right: DirtyNode, separator: [UInt8]) {
        if isLeaf {
            keys.append(contentsOf: right.keys)
            values.append(contentsOf: right.values)
        } else {
            keys.append(separator)
            keys.append(contentsOf: right.keys)
            children.append(contentsOf: right.children)
        }
        recomputeSize()
    }
}

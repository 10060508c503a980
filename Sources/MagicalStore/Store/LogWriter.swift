import Dispatch

/// Appends one transaction's frames to the end of the log (Spec sections 3 and 5).
///
/// Frames are gathered in a buffer and written in large sequential pieces; nothing is
/// visible to readers until the commit frame is written and the store publishes it.
final class LogWriter {
    private let file: StoreFile
    let transaction: UInt64
    private let compress: Bool
    /// Where the next frame goes.
    private(set) var position: UInt64
    /// On-disk bytes of every frame appended so far.
    private(set) var bytesAppended: UInt64 = 0
    private var buffer: [UInt8] = []
    private var bufferStart: UInt64
    private var scratch: [UInt8] = []
    /// Pages written, to be cached once the commit succeeds (their offsets are reused if
    /// it fails, so caching them earlier could serve stale pages).
    private(set) var writtenPages: [PageNode] = []
    /// Off for compaction, which writes a whole store, and for a transaction's loaders,
    /// which write whole trees: too much to hold in memory.
    var retainsPages: Bool
    private static let flushThreshold = 4 << 20

    init(file: StoreFile, transaction: UInt64, position: UInt64, compress: Bool, retainsPages: Bool = true) {
        self.retainsPages = retainsPages
        self.file = file
        self.transaction = transaction
        self.position = position
        self.bufferStart = position
        self.compress = compress
        buffer.reserveCapacity(Self.flushThreshold + file.pageSize * 2)
    }

    /// Appends a frame; returns its offset and on-disk size.
    func append(_ type: FrameType, payload: UnsafeRawBufferPointer) throws -> (offset: UInt64, size: UInt64) {
        let offset = position
        let size = FrameEncoder.append(
            type: type, payload: payload, transaction: transaction, compress: compress, to: &buffer
        )
        position += size
        bytesAppended += size
        if buffer.count >= Self.flushThreshold { try flush() }
        return (offset, size)
    }

    func append(_ type: FrameType, payload: [UInt8]) throws -> (offset: UInt64, size: UInt64) {
        try payload.withUnsafeBytes { try append(type, payload: $0) }
    }

    /// Writes buffered frames to the file.
    func flush() throws {
        guard !buffer.isEmpty else { return }
        try file.file.write(buffer, at: bufferStart)
        bufferStart += UInt64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes a dirty subtree bottom-up, children and overflow values before their parent
    /// (F18), and returns the subtree's page offset. A large subtree's leaves are encoded and
    /// compressed on every core first, then appended in key order, then its branches.
    func writeSubtree(_ reference: ChildReference) throws -> UInt64 {
        try writeSubtrees([reference])[0]
    }

    /// Writes several dirty subtrees as ``writeSubtree(_:)`` does, their leaves encoded
    /// together (a batch's passed subtrees are often single leaves, too few each for the
    /// cores); returns each subtree's page offset, in order.
    func writeSubtrees(_ references: [ChildReference]) throws -> [UInt64] {
        var leaves: [DirtyNode] = []
        for case .dirty(let root) in references { Self.collectDirtyLeaves(root, into: &leaves) }
        var written: [ObjectIdentifier: UInt64] = [:]
        if leaves.count >= Self.parallelLeafThreshold {
            written = try writeLeavesInParallel(leaves)
        }
        return try references.map { try writeNode($0, written: written) }
    }

    private func writeNode(_ reference: ChildReference, written: [ObjectIdentifier: UInt64]) throws -> UInt64 {
        guard case .dirty(let node) = reference else {
            if case .page(let offset) = reference { return offset }
            return 0
        }
        if let offset = written[ObjectIdentifier(node)] { return offset }
        if node.isLeaf {
            try writeOverflowValues(of: node)
            node.entries.encode(into: &scratch)
            return try appendPage(isLeaf: true)
        }
        let children = try node.children.map { try writeNode($0, written: written) }
        PageEncoder.branch(separators: node.separators, children: children, into: &scratch)
        return try appendPage(isLeaf: false)
    }

    /// Dirty leaves at or below 100 of them are written one by one: not worth the threads.
    private static let parallelLeafThreshold = 100
    private static let leavesPerRound = 512

    private static func collectDirtyLeaves(_ node: DirtyNode, into leaves: inout [DirtyNode]) {
        guard !node.isLeaf else {
            leaves.append(node)
            return
        }
        for case .dirty(let child) in node.children { collectDirtyLeaves(child, into: &leaves) }
    }

    private func writeOverflowValues(of leaf: DirtyNode) throws {
        for index in 0..<leaf.entries.count where leaf.entries.isPendingOverflow(at: index) {
            try leaf.entries.resolvePendingOverflow(at: index) { bytes in
                let (offset, size) = try append(.overflow, payload: bytes)
                return OverflowReference(offset: offset, frameSize: UInt32(size), length: UInt32(bytes.count))
            }
        }
    }

    /// Encodes and frames `leaves` a round at a time on every core, then appends the frames
    /// in order; returns each leaf's page offset.
    private func writeLeavesInParallel(_ leaves: [DirtyNode]) throws -> [ObjectIdentifier: UInt64] {
        var offsets: [ObjectIdentifier: UInt64] = [:]
        offsets.reserveCapacity(leaves.count)
        let (transaction, compress) = (self.transaction, self.compress)
        var start = 0
        while start < leaves.count {
            let round = Array(leaves[start..<min(start + Self.leavesPerRound, leaves.count)])
            start += round.count
            for leaf in round { try writeOverflowValues(of: leaf) }
            var frames = [(frame: [UInt8], payload: [UInt8])](repeating: ([], []), count: round.count)
            frames.withUnsafeMutableBufferPointer { results in
                // Each task reads its own leaf (no longer changed) and fills its own slot.
                let results = UncheckedSendable(results)
                let nodes = UncheckedSendable(round)
                DispatchQueue.concurrentPerform(iterations: round.count) { index in
                    var payload: [UInt8] = []
                    nodes.value[index].entries.encode(into: &payload)
                    var frame: [UInt8] = []
                    payload.withUnsafeBytes {
                        _ = FrameEncoder.append(type: .leaf, payload: $0, transaction: transaction, compress: compress, to: &frame)
                    }
                    results.value[index] = (frame, payload)
                }
            }
            for (leaf, encoded) in zip(round, frames) {
                let offset = try appendFrame(encoded.frame)
                if retainsPages, let page = try? PageNode(
                    offset: offset, frameSize: UInt64(encoded.frame.count), transaction: transaction, isLeaf: true, payload: encoded.payload
                ) {
                    writtenPages.append(page)
                }
                offsets[ObjectIdentifier(leaf)] = offset
            }
        }
        return offsets
    }

    /// Appends a frame encoded elsewhere; returns its offset.
    private func appendFrame(_ frame: [UInt8]) throws -> UInt64 {
        let offset = position
        buffer.append(contentsOf: frame)
        position += UInt64(frame.count)
        bytesAppended += UInt64(frame.count)
        if buffer.count >= Self.flushThreshold { try flush() }
        return offset
    }

    private func appendPage(isLeaf: Bool) throws -> UInt64 {
        let (offset, size) = try append(isLeaf ? .leaf : .branch, payload: scratch)
        if retainsPages, let page = try? PageNode(offset: offset, frameSize: size, transaction: transaction, isLeaf: isLeaf, payload: scratch) {
            writtenPages.append(page)
        }
        return offset
    }
}

/// What the tasks of one `concurrentPerform` share: leaves they only read, a buffer each
/// fills at its own index.
private struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

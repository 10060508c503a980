import Dispatch
import Synchronization

/// Appends one transaction's frames to the end of the log (Spec sections 3 and 5).
///
/// Frames are gathered in a buffer and written in large sequential pieces; nothing is
/// visible to readers until the commit frame is written and the store publishes it.
final class LogWriter {
    private let file: StoreFile
    let transaction: UInt64
    private let compression: PageCompression
    /// LZ4's effort when `compression` is LZ4 (``LZ4/Acceleration``).
    private let lz4Acceleration: Int32
    private let packsLeaves: Bool
    /// Where the next frame goes.
    private(set) var position: UInt64
    /// On-disk bytes of every frame appended so far.
    private(set) var bytesAppended: UInt64 = 0
    /// On-disk bytes of leaf delta bases kept live by the leaves written on them: the
    /// transaction counted them freed when it copied those leaves (``SpaceAccounting``).
    private(set) var keptBaseBytes: UInt64 = 0
    private var buffer: [UInt8] = []
    private var bufferStart: UInt64
    private var scratch: [UInt8] = []
    /// Buffers of leaves written in an earlier round, for the next (``LeafBuffers``).
    private var spareLeafBuffers: [LeafBuffers] = []
    /// Pages written, to be cached once the commit succeeds (their offsets are reused if
    /// it fails, so caching them earlier could serve stale pages).
    private(set) var writtenPages: [PageNode] = []
    var retention: PageRetention
    /// Threads that encode a large write's leaves, the calling one among them (see
    /// ``WriteTransaction/encodingThreads``).
    var encodingThreads = WriteTransaction.defaultEncodingThreads
    /// Whether each flush starts the writeback of what it wrote (``StorageFile/startWriteback(at:count:)``):
    /// for a file synced once at the end (a compaction's), whose sync then waits for the
    /// last few megabytes only, not the whole file (21 ms against 2 for a 1M-record store).
    var startsWritebackOnFlush = false
    /// Memory the pages kept under ``PageRetention/copies(upTo:)`` hold.
    private var retainedBytes = 0
    private static let flushThreshold = 4 << 20

    init(
        file: StoreFile, transaction: UInt64, position: UInt64, compression: PageCompression, lz4Acceleration: Int32,
        packsLeaves: Bool, retention: PageRetention = .copiesAndBranches
    ) {
        self.lz4Acceleration = lz4Acceleration
        self.retention = retention
        self.file = file
        self.transaction = transaction
        self.position = position
        self.bufferStart = position
        self.compression = compression
        self.packsLeaves = packsLeaves
        buffer.reserveCapacity(Self.flushThreshold + file.pageSize * 2)
    }

    /// Appends a frame; returns its offset and on-disk size.
    func append(_ type: FrameType, payload: UnsafeRawBufferPointer) throws -> (offset: UInt64, size: UInt64) {
        let offset = position
        let size = encodeFrame(type, payload, onto: &buffer)
        position += size
        bytesAppended += size
        if buffer.count >= Self.flushThreshold { try flush() }
        return (offset, size)
    }

    /// `payload` as a frame of this writer's transaction, compressed and packed as it
    /// writes them, onto `buffer`; returns the frame's size. Reads only constants: the
    /// leaf encoders call it on other threads.
    private func encodeFrame(_ type: FrameType, _ payload: UnsafeRawBufferPointer, onto buffer: inout [UInt8]) -> UInt64 {
        FrameEncoder.append(
            type: type, payload: payload, transaction: transaction, compression: compression, lz4Acceleration: lz4Acceleration,
            packsLeaves: packsLeaves, to: &buffer
        )
    }

    func append(_ type: FrameType, payload: [UInt8]) throws -> (offset: UInt64, size: UInt64) {
        try payload.withUnsafeBytes { try append(type, payload: $0) }
    }

    /// Writes buffered frames to the file.
    func flush() throws {
        guard !buffer.isEmpty else { return }
        try file.file.write(buffer, at: bufferStart)
        if startsWritebackOnFlush { file.file.startWriteback(at: bufferStart, count: UInt64(buffer.count)) }
        bufferStart += UInt64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes a dirty subtree bottom-up, children and overflow values before their parent
    /// (F18), and returns the subtree's page offset. A large subtree's leaves are encoded and
    /// compressed first (on ``encodingThreads`` threads), then appended in key order, then
    /// its branches.
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
        if leaves.count >= Self.parallelLeafThreshold, encodingThreads > 1 {
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
            var encoded = EncodedLeaf(buffers: spareLeafBuffers.popLast() ?? LeafBuffers())
            encodeLeaf(node.entries, into: &encoded)
            defer { spareLeafBuffers.append(encoded.takeBuffers()) }
            return try appendLeaf(encoded)
        }
        let children = try node.children.map { try writeNode($0, written: written) }
        PageEncoder.branch(separators: node.separators, children: children, into: &scratch)
        return try appendBranch()
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

    /// Encodes and frames `leaves` a round at a time on ``encodingThreads`` threads, then
    /// appends the frames in order; returns each leaf's page offset.
    private func writeLeavesInParallel(_ leaves: [DirtyNode]) throws -> [ObjectIdentifier: UInt64] {
        var offsets: [ObjectIdentifier: UInt64] = [:]
        offsets.reserveCapacity(leaves.count)
        var start = 0
        while start < leaves.count {
            let round = Array(leaves[start..<min(start + Self.leavesPerRound, leaves.count)])
            start += round.count
            for leaf in round { try writeOverflowValues(of: leaf) }
            var encoded = (0..<round.count).map { _ in EncodedLeaf(buffers: spareLeafBuffers.popLast() ?? LeafBuffers()) }
            encoded.withUnsafeMutableBufferPointer { results in
                // Each task reads its own leaf (no longer changed) and fills its own slot.
                let results = UncheckedSendable(results)
                let nodes = UncheckedSendable(round)
                let encoder = UncheckedSendable(self)
                // Each thread takes the next leaf not taken: leaves differ in cost.
                let next = Atomic(0)
                DispatchQueue.concurrentPerform(iterations: min(encodingThreads, round.count)) { _ in
                    while true {
                        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                        guard index < nodes.value.count else { return }
                        encoder.value.encodeLeaf(nodes.value[index].entries, into: &results.value[index])
                    }
                }
            }
            for index in round.indices {
                offsets[ObjectIdentifier(round[index])] = try appendLeaf(encoded[index])
                spareLeafBuffers.append(encoded[index].takeBuffers())
            }
        }
        return offsets
    }

    /// A leaf's frame and scratch payload, kept from round to round: page-sized buffers,
    /// which the allocator serves from its bins rather than a thread's cache, freed on
    /// another thread than the one that made them (a tenth of an upsert's committing work
    /// went to allocating and freeing).
    struct LeafBuffers {
        var frame: [UInt8] = []
        var scratch: [UInt8] = []
    }

    /// A changed leaf ready for the log: how it goes (F29), its frame, and the leaf payload
    /// a reader sees, to keep for the cache.
    struct EncodedLeaf {
        var write = LeafEntries.LeafWrite.full
        /// The frame in `buffers`, and the payload it was made from when that is kept by
        /// no page.
        var buffers: LeafBuffers
        /// The whole leaf and where its entries lie, for the page kept when `isRetained`.
        var payload: [UInt8] = []
        var locations: [PageNode.EntryLocation] = []
        var isRetained = false

        var frame: [UInt8] { buffers.frame }

        /// The buffers, moved out for another leaf.
        mutating func takeBuffers() -> LeafBuffers {
            var taken = LeafBuffers()
            swap(&taken, &buffers)
            return taken
        }
    }

    /// Encodes a leaf as a delta of its base when small enough, else in full (F29). Reads
    /// only constants of the writer, so leaves encode on several threads at once.
    func encodeLeaf(_ entries: LeafEntries) -> EncodedLeaf {
        var encoded = EncodedLeaf(buffers: LeafBuffers())
        encodeLeaf(entries, into: &encoded)
        return encoded
    }

    /// ``encodeLeaf(_:)`` into `encoded`'s buffers, emptied first, their room reused.
    func encodeLeaf(_ entries: LeafEntries, into encoded: inout EncodedLeaf) {
        encoded.buffers.frame.removeAll(keepingCapacity: true)
        encoded.buffers.scratch.removeAll(keepingCapacity: true)
        encoded.isRetained = retains(entries)
        encoded.write = entries.encodeDelta(limit: FileFormat.leafDeltaLimit(pageSize: file.pageSize), into: &encoded.buffers.scratch)
        let type: FrameType
        switch encoded.write {
        case .unchanged:
            return
        case .delta:
            type = .leafDelta
            if encoded.isRetained { encoded.locations = entries.encodeLocating(into: &encoded.payload) }
        case .full:
            type = .leaf
            if encoded.isRetained {
                encoded.locations = entries.encodeLocating(into: &encoded.payload)
                encoded.payload.withUnsafeBytes {
                    _ = encodeFrame(type, $0, onto: &encoded.buffers.frame)
                }
                return
            }
            entries.encode(into: &encoded.buffers.scratch)
        }
        encoded.buffers.scratch.withUnsafeBytes {
            _ = encodeFrame(type, $0, onto: &encoded.buffers.frame)
        }
    }

    /// Whether the page of a leaf written now is kept (read-only: called from the tasks
    /// encoding a round of leaves; a round's pages are counted after it, so the limit may
    /// be passed by one round).
    private func retains(_ entries: LeafEntries) -> Bool {
        switch retention {
        case .none: return false
        case .copiesAndBranches: return entries.isReadAgainSoon
        case .copies(let limit): return entries.isReadAgainSoon && retainedBytes < limit
        }
    }

    /// Appends an encoded leaf; returns its page offset (its base's when unchanged).
    func appendLeaf(_ encoded: EncodedLeaf) throws -> UInt64 {
        var delta: LeafDelta?
        switch encoded.write {
        case .unchanged(let base):
            keptBaseBytes += base.frameSize
            return base.offset
        case .delta(let written):
            keptBaseBytes += written.base.frameSize
            delta = written
        case .full:
            break
        }
        let offset = try appendFrame(encoded.frame)
        if encoded.isRetained {
            let page = PageNode(
                encodedLeafAt: offset, frameSize: UInt64(encoded.frame.count), transaction: transaction,
                payload: encoded.payload, entries: encoded.locations, delta: delta
            )
            writtenPages.append(page)
            retainedBytes += page.memoryCost
        }
        return offset
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

    private func appendBranch() throws -> UInt64 {
        let (offset, size) = try append(.branch, payload: scratch)
        if case .copiesAndBranches = retention, let page = try? PageNode(offset: offset, frameSize: size, transaction: transaction, isLeaf: false, payload: scratch) {
            writtenPages.append(page)
        }
        return offset
    }
}

/// Which pages a ``LogWriter`` keeps, to be cached when the commit succeeds.
enum PageRetention {
    /// None: compaction writes a whole store, too much to hold in memory.
    case none
    /// Every branch, and every leaf copied from a page (its entries descend from one) or
    /// split from the middle of one (``LeafEntries/isReadAgainSoon``): a commit's own.
    /// Each copy replaces a cached page the commit supersedes, so the cache keeps what
    /// readers had. The other leaves it made (a loader's, the last leaf of keys added in
    /// order) are cached when first read: an import appends records nobody reads soon, and
    /// caching them as written took 25-35 MB of a million-record import's memory.
    case copiesAndBranches
    /// The same leaves, among those written before the commit, until they hold `limit`
    /// bytes of memory: a batch of scattered keys changes most leaves of a tree, and the
    /// next batch reads them again. The limit bounds what a batch of any size holds until
    /// its commit.
    case copies(upTo: Int)
}

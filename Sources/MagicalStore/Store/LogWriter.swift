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
    /// Off for compaction, which writes a whole store: too much to hold in memory.
    private let retainsPages: Bool
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
    /// (F18), and returns the subtree's page offset.
    func writeSubtree(_ reference: ChildReference) throws -> UInt64 {
        guard case .dirty(let node) = reference else {
            if case .page(let offset) = reference { return offset }
            return 0
        }
        if node.isLeaf {
            for index in node.values.indices {
                if case .pendingOverflow(let bytes) = node.values[index] {
                    let (offset, size) = try append(.overflow, payload: bytes)
                    node.values[index] = .overflow(OverflowReference(offset: offset, frameSize: UInt32(size), length: UInt32(bytes.count)))
                }
            }
            PageEncoder.leaf(keys: node.keys, values: node.values, into: &scratch)
            return try appendPage(isLeaf: true)
        }
        let children = try node.children.map { try writeSubtree($0) }
        PageEncoder.branch(separators: node.keys, children: children, into: &scratch)
        return try appendPage(isLeaf: false)
    }

    private func appendPage(isLeaf: Bool) throws -> UInt64 {
        let (offset, size) = try append(isLeaf ? .leaf : .branch, payload: scratch)
        if retainsPages, let page = try? PageNode(offset: offset, frameSize: size, transaction: transaction, isLeaf: isLeaf, payload: scratch) {
            writtenPages.append(page)
        }
        return offset
    }
}

/// The payload of a commit frame (Spec section 5): the state a snapshot reads.
struct CommitRecord: Equatable, Sendable {
    var catalogRoot: UInt64
    var catalogCount: UInt64
    var previousCommit: UInt64
    /// Every byte before this offset was synced before the commit frame was written (F23).
    var durableThrough: UInt64
    /// On-disk bytes of the frames reachable from this commit, its own frame included.
    var liveBytes: UInt64
    var firstFrame: UInt64
    var timestampMilliseconds: UInt64

    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(FileFormat.commitPayloadSize)
        for field in [catalogRoot, catalogCount, previousCommit, durableThrough, liveBytes, firstFrame, timestampMilliseconds, 0] {
            bytes.appendLittleEndian(field)
        }
        return bytes
    }

    /// Decodes a commit payload; nil when its reserved field is not zero.
    init?(payload: [UInt8]) {
        guard payload.count == FileFormat.commitPayloadSize else { return nil }
        let fields = payload.withUnsafeBytes { raw in
            (0..<8).map { raw.loadLittleEndian(at: $0 * 8, as: UInt64.self) }
        }
        guard fields[7] == 0 else { return nil }
        catalogRoot = fields[0]
        catalogCount = fields[1]
        previousCommit = fields[2]
        durableThrough = fields[3]
        liveBytes = fields[4]
        firstFrame = fields[5]
        timestampMilliseconds = fields[6]
    }

    init(
        catalogRoot: UInt64, catalogCount: UInt64, previousCommit: UInt64, durableThrough: UInt64,
        liveBytes: UInt64, firstFrame: UInt64, timestampMilliseconds: UInt64
    ) {
        self.catalogRoot = catalogRoot
        self.catalogCount = catalogCount
        self.previousCommit = previousCommit
        self.durableThrough = durableThrough
        self.liveBytes = liveBytes
        self.firstFrame = firstFrame
        self.timestampMilliseconds = timestampMilliseconds
    }
}

/// A commit as located in the file: where its frame is, and what it says.
struct CommitPoint: Equatable, Sendable {
    var offset: UInt64
    var transaction: UInt64
    var record: CommitRecord
    /// The end of the commit frame: where the next transaction's frames start.
    var end: UInt64
}

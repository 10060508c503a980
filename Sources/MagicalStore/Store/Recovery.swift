/// Finds the latest valid commit when a store is opened (Spec section 6, F22-F24).
///
/// The header names a checkpoint commit that is known durable; only the log after it is
/// scanned. Where the scan meets bytes that are not a valid frame, the question is whether
/// a crash left them (a torn tail: truncate) or they went bad after being synced
/// (corruption: refuse). A later commit frame that claims durability past the damage
/// settles it: the damage was once synced, so it is corruption (F23). LevelDB and the
/// ALICE study show how logs that cannot tell the two apart drop committed data.
struct Recovery {
    struct Outcome: Equatable {
        var latest: CommitPoint
        /// Bytes after the latest commit: a torn tail when non-zero.
        var tailBytes: UInt64
        /// Commits found after the checkpoint.
        var commitsReplayed: Int
    }

    let file: StoreFile
    let fileSize: UInt64

    func run(from superblock: Superblock) throws -> Outcome {
        let checkpointEnd = superblock.checkpointOffset + FileFormat.frameSize(storedLength: FileFormat.commitPayloadSize)
        guard checkpointEnd <= fileSize else {
            throw StoreError.truncatedFile(path: file.file.path, size: fileSize)
        }
        var latest = try readCommit(at: superblock.checkpointOffset)
        guard latest.transaction == superblock.checkpointTransaction else {
            throw StoreError.corrupt(offset: superblock.checkpointOffset, reason: "checkpoint commit has transaction \(latest.transaction), header says \(superblock.checkpointTransaction)")
        }
        var commits = 0
        var position = latest.end
        while position < fileSize {
            let frame: (header: FrameHeader, payload: [UInt8])
            do {
                frame = try scanFrame(at: position)
            } catch {
                try classifyDamage(at: position)
                break
            }
            guard frame.header.transaction == latest.transaction + 1 else {
                try classifyDamage(at: position)
                break
            }
            position += frame.header.frameSize
            if frame.header.type == .commit {
                guard let record = CommitRecord(payload: frame.payload),
                      record.firstFrame == latest.end, record.previousCommit == latest.offset
                else {
                    try classifyDamage(at: position - frame.header.frameSize)
                    break
                }
                latest = CommitPoint(offset: position - frame.header.frameSize, transaction: frame.header.transaction, record: record, end: position)
                commits += 1
            }
        }
        return Outcome(latest: latest, tailBytes: fileSize - latest.end, commitsReplayed: commits)
    }

    /// Reads and verifies a commit frame.
    func readCommit(at offset: UInt64) throws -> CommitPoint {
        let (header, payload) = try file.readFrame(at: offset, sizeHint: FileFormat.frameHeaderSize + FileFormat.commitPayloadSize)
        guard header.type == .commit, let record = CommitRecord(payload: payload) else {
            throw StoreError.corrupt(offset: offset, reason: "expected a commit frame")
        }
        return CommitPoint(offset: offset, transaction: header.transaction, record: record, end: offset + header.frameSize)
    }

    /// Reads a frame during a scan: it must lie inside the file and have zero padding.
    func scanFrame(at offset: UInt64) throws -> (header: FrameHeader, payload: [UInt8]) {
        let frame = try file.readFrame(at: offset)
        let end = offset + frame.header.frameSize
        guard end <= fileSize else { throw StoreError.corrupt(offset: offset, reason: FrameError.truncated.description) }
        let payloadEnd = offset + UInt64(FileFormat.frameHeaderSize + frame.header.storedLength)
        if end > payloadEnd {
            let padding = try file.file.read(count: Int(end - payloadEnd), at: payloadEnd)
            guard padding.allSatisfy({ $0 == 0 }) else {
                throw StoreError.corrupt(offset: payloadEnd, reason: FrameError.nonZeroPadding.description)
            }
        }
        return frame
    }

    /// Throws when damage at `offset` is corruption rather than a torn tail (F23).
    private func classifyDamage(at offset: UInt64) throws {
        if let witness = try laterCommit(durablePast: offset) {
            throw StoreError.corrupt(
                offset: offset,
                reason: "damaged frame before a later commit (at offset \(witness)) that was written after it was synced"
            )
        }
    }

    /// Looks after `offset` for a valid commit frame whose durable-through is past it.
    private func laterCommit(durablePast offset: UInt64) throws -> UInt64? {
        let chunkSize = 1 << 20
        let commitFrameSize = Int(FileFormat.frameSize(storedLength: FileFormat.commitPayloadSize))
        var chunkStart = offset + FileFormat.frameAlignment
        while chunkStart < fileSize {
            // Chunks overlap by one commit frame so none is missed at a boundary.
            let chunk = try file.file.read(count: chunkSize + commitFrameSize, at: chunkStart)
            var position = 0
            while position + commitFrameSize <= chunk.count, position < chunkSize {
                if chunk[position] == FrameType.commit.rawValue,
                   let record = commitRecord(in: chunk, at: position),
                   record.durableThrough > offset {
                    return chunkStart + UInt64(position)
                }
                position += Int(FileFormat.frameAlignment)
            }
            chunkStart += UInt64(chunkSize)
        }
        return nil
    }

    private func commitRecord(in bytes: [UInt8], at position: Int) -> CommitRecord? {
        bytes.withUnsafeBytes { raw -> CommitRecord? in
            let frame = UnsafeRawBufferPointer(rebasing: raw[position...])
            guard case .success(let header) = FrameHeader.parse(frame, pageSize: file.pageSize),
                  header.type == .commit,
                  case .success(let payload) = FrameDecoder.payload(of: header, in: frame, pageSize: file.pageSize)
            else { return nil }
            return CommitRecord(payload: payload)
        }
    }
}

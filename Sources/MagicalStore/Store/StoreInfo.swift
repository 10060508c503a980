/// What `mrstore info` reports about a store (Spec sections 2 and 5).
public struct StoreInfo: Sendable, Equatable {
    public struct Tree: Sendable, Equatable {
        public var name: String
        public var entries: Int
    }

    public var formatVersion: UInt32
    public var pageSize: Int
    public var lastTransaction: UInt64
    public var checkpointTransaction: UInt64
    public var fileBytes: UInt64
    /// Bytes of frames reachable from the latest commit.
    public var liveBytes: UInt64
    /// Bytes of superseded frames (and any torn tail): what compaction reclaims.
    public var deadBytes: UInt64
    public var trees: [Tree]
}

extension Store {
    /// Sizes, counts and trees of the latest commit.
    public func info() throws -> StoreInfo {
        let (snapshot, superblock) = try state.withLock { state -> (ReadTransaction, Superblock) in
            guard let file = state.file else { throw StoreError.closed }
            return (ReadTransaction(reader: SnapshotReader(file: file, transaction: state.latest.transaction), commit: state.latest), state.superblock)
        }
        let fileBytes = try snapshot.reader.file.file.size()
        let live = snapshot.commit.record.liveBytes
        let trees = try snapshot.treeNames().map { StoreInfo.Tree(name: $0, entries: try snapshot.tree($0).count) }
        return StoreInfo(
            formatVersion: superblock.version,
            pageSize: snapshot.reader.pageSize,
            lastTransaction: snapshot.transactionID,
            checkpointTransaction: superblock.checkpointTransaction,
            fileBytes: fileBytes,
            liveBytes: live,
            deadBytes: fileBytes - FileFormat.headerRegionSize - min(live, fileBytes - FileFormat.headerRegionSize),
            trees: trees
        )
    }
}

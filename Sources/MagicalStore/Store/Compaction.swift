/// What a compaction did.
public struct CompactionResult: Sendable, Equatable {
    public var bytesBefore: UInt64
    public var bytesAfter: UInt64
}

extension Store {
    /// Rewrites the live trees into a new file and atomically replaces the store with it
    /// (Spec section 7), reclaiming the space of superseded frames.
    ///
    /// Writers wait while it runs; readers do not, and snapshots taken before it keep
    /// reading the old file until they are released. A crash at any step leaves either the
    /// old store or the new one.
    @discardableResult
    public func compact() throws -> CompactionResult {
        guard !options.readOnly else { throw StoreError.readOnly }
        let transaction = try beginWrite()
        defer { transaction.rollback() }
        // Its threads' Zstandard contexts are not wanted until the next one.
        defer { Zstd.releaseIdleContexts() }
        var snapshot = transaction.reader
        snapshot.cachesPages = false
        let base = state.withLock { state -> CommitPoint in state.latest }
        let bytesBefore = try snapshot.file.file.size()

        let fileSystem = options.fileSystem
        let temporary = path + ".compact"
        try fileSystem.removeFile(at: temporary)
        let raw = try fileSystem.openFile(at: temporary, mode: .createNew)
        let newFile = StoreFile(file: raw, pageSize: snapshot.pageSize, cacheBytes: options.cacheBytes)
        let syncing = options.durability != .none
        let commit: CommitPoint
        let superblock: Superblock
        do {
            try raw.write([UInt8](repeating: 0, count: Int(FileFormat.headerRegionSize)), at: 0)
            let writer = LogWriter(
                file: newFile, transaction: base.transaction + 1,
                position: FileFormat.headerRegionSize, compression: options.compactionCompression ?? options.compression,
                lz4Acceleration: LZ4.Acceleration.settled, packsLeaves: options.packsLeaves, retention: .none
            )
            writer.startsWritebackOnFlush = syncing
            let catalog = try copyTrees(of: ReadTransaction(reader: snapshot, commit: base), with: writer)
            let record = CommitRecord(
                catalogRoot: catalog.root, catalogCount: catalog.count, previousCommit: 0, durableThrough: 0,
                liveBytes: writer.bytesAppended + FileFormat.frameSize(storedLength: FileFormat.commitPayloadSize),
                firstFrame: FileFormat.headerRegionSize, timestampMilliseconds: currentTimeMilliseconds()
            )
            let (offset, size) = try writer.append(.commit, payload: record.encoded())
            try writer.flush()
            if syncing { try raw.sync() }
            commit = CommitPoint(offset: offset, transaction: base.transaction + 1, record: record, end: offset + size)
            superblock = Superblock(pageSize: snapshot.pageSize, sequence: 1, checkpointOffset: offset, checkpointTransaction: commit.transaction)
            try raw.write(superblock.encoded(), at: UInt64(superblock.slotOffset))
            if syncing { try raw.sync() }
            try fileSystem.renameFile(from: temporary, to: path)
        } catch {
            raw.close()
            try? fileSystem.removeFile(at: temporary)
            throw error
        }
        // From here on the new file is the store. The cached directory reads the old one:
        // it goes here, so closing that file (and the kernel dropping its cached pages) is
        // the compaction's cost, not the next reader's.
        let oldDirectory = state.withLock { state -> TreeDirectory? in
            defer { state.directory = nil }
            state.file = newFile
            state.latest = commit
            state.superblock = superblock
            state.syncedThrough = commit.end
            state.writebackStarted = commit.end
            return state.directory
        }
        withExtendedLifetime(oldDirectory) {}
        if syncing {
            do {
                try fileSystem.syncDirectory(containing: path)
            } catch {
                state.withLock { $0.poisoned = "syncing the directory after compaction failed: \(error)" }
                throw error
            }
        }
        return CompactionResult(bytesBefore: bytesBefore, bytesAfter: commit.end)
    }

    /// Copies every tree of `snapshot` into `writer`'s file, each filled range by range on
    /// the scan threads (``TreeCopier``), then the catalog.
    private func copyTrees(of snapshot: ReadTransaction, with writer: LogWriter) throws -> (root: UInt64, count: UInt64) {
        let pageSize = snapshot.reader.pageSize
        var catalog = BulkLoader(pageSize: pageSize) { node in
            .page(try writer.writeSubtree(.dirty(node)))
        }
        for name in try snapshot.treeNames() {
            let copier = TreeCopier(
                tree: try snapshot.tree(name), writer: writer, pageSize: pageSize,
                threads: options.scanThreads, entriesPerRange: 2 * options.entriesPerScanThread
            )
            let copied = try copier.copy()
            try catalog.append(try Catalog.key(for: name), .inline(Catalog.encode(.init(root: copied.root, count: UInt64(copied.count)))))
        }
        let root = try catalog.finishTree()
        return (try root.map { try writer.writeSubtree($0) } ?? 0, UInt64(catalog.count))
    }
}

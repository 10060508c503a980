import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A store file: named B+trees of byte keys and values, with snapshot reads and one
/// writer at a time (Spec `FILE-FORMAT.md`).
///
/// Thread safety: a `Store` may be shared between threads. Any number of
/// ``ReadTransaction``s run concurrently with the writer and with each other; each sees
/// the commit that was latest when it began. Write transactions run one at a time: a
/// second ``beginWrite()`` waits until the first commits or rolls back.
///
/// Lifetime: ``close()`` checkpoints and releases the file. Snapshots taken before it keep
/// working until they are released.
public final class Store: Sendable {
    public let path: String
    public let options: StoreOptions
    private let processLock: (any StorageLock)?
    /// Serializes writers: held from `beginWrite` until the transaction ends.
    private let writerGate = DispatchSemaphore(value: 1)
    let state: Mutex<State>

    /// Which directory reads the latest commit of the open file, kept by ``State`` as it
    /// changes: ``isLatest(_:)`` reads it without the lock (a point get asks it each time).
    private let latestDirectory: LatestDirectory

    final class LatestDirectory: Sendable {
        /// The bits of the directory's identity; 0: none.
        let bits = Atomic<UInt>(0)
    }

    struct State {
        /// Nil once closed.
        var file: StoreFile? { didSet { noteLatestDirectory() } }
        var latest: CommitPoint { didSet { noteLatestDirectory() } }
        var superblock: Superblock
        /// Every byte before this offset is known to be synced.
        var syncedThrough: UInt64
        /// Every byte before this offset is synced or on its way to the device
        /// (``Store/startWriteback(through:of:)``).
        var writebackStarted: UInt64
        /// Set when a failed write or sync leaves the file in a state we cannot vouch for.
        var poisoned: String?
        /// The catalog entries readers of `latest` have looked up.
        var directory: TreeDirectory? { didSet { noteLatestDirectory() } }
        /// The store's ``Store/latestDirectory``.
        let latestDirectory: LatestDirectory

        private func noteLatestDirectory() {
            let bits = if let file, let directory, directory.isFor(file, latest) { UInt(bitPattern: ObjectIdentifier(directory)) } else { UInt(0) }
            latestDirectory.bits.store(bits, ordering: .releasing)
        }
    }

    // MARK: Opening

    /// Opens the store at `path`, creating it when missing (unless
    /// `options.createIfMissing` is false), and recovers to its latest valid commit.
    ///
    /// Throws ``StoreError/locked(path:)`` when another process has it open for writing,
    /// ``StoreError/notAStore(path:)``, ``StoreError/unsupportedVersion(path:found:supported:)``,
    /// ``StoreError/truncatedFile(path:size:)`` or ``StoreError/corrupt(offset:reason:)``
    /// for a file it cannot trust; such a file is never modified.
    public init(path: String, options: StoreOptions = StoreOptions()) throws {
        guard FileFormat.isValidPageSize(options.pageSize) else {
            throw StoreError.invalidOption("page size \(options.pageSize) is not a power of two from 512 to 65536")
        }
        for compression in [options.compression, options.compactionCompression] {
            if let reason = compression?.invalidReason { throw StoreError.invalidOption(reason) }
        }
        guard options.scanThreads >= 1, options.entriesPerScanThread >= 1 else {
            throw StoreError.invalidOption(
                "scan threads \(options.scanThreads) and entries per scan thread \(options.entriesPerScanThread) must each be at least 1"
            )
        }
        let fileSystem = options.fileSystem
        let lock = options.readOnly ? nil : try fileSystem.lockExclusively(at: path + ".lock")
        if !fileSystem.fileExists(at: path) {
            guard options.createIfMissing, !options.readOnly else { throw StoreError.fileNotFound(path: path) }
            try Self.create(at: path, options: options)
        } else if !options.readOnly {
            // A compaction that crashed before its rename leaves this behind (Spec section 7).
            try fileSystem.removeFile(at: path + ".compact")
        }
        let raw = try fileSystem.openFile(at: path, mode: options.readOnly ? .readOnly : .readWrite)
        let headerRegion = try raw.read(count: Int(FileFormat.headerRegionSize), at: 0)
        let superblock = try Superblock.inForce(headerRegion: headerRegion, path: path)
        let file = StoreFile(file: raw, pageSize: superblock.pageSize, cacheBytes: options.cacheBytes)
        let outcome = try Recovery(file: file, fileSize: try raw.size()).run(from: superblock)

        self.path = path
        self.options = options
        self.processLock = lock
        let latestDirectory = LatestDirectory()
        self.latestDirectory = latestDirectory
        self.state = Mutex(State(
            file: file, latest: outcome.latest, superblock: superblock,
            syncedThrough: outcome.latest.end, writebackStarted: outcome.latest.end, poisoned: nil, latestDirectory: latestDirectory
        ))
        if !options.readOnly {
            if outcome.tailBytes > 0 { try raw.truncate(to: outcome.latest.end) }
            // What an earlier process wrote may sit unsynced in the OS cache; our first
            // commit will claim it durable (F23), so make it so. Its name too: a process
            // that died between renaming a created or compacted file into place and
            // syncing the directory left a rename that a power cut would still undo,
            // taking every commit we acknowledge with it (Spec section 7).
            if options.durability != .none {
                try raw.sync()
                try fileSystem.syncDirectory(containing: path)
            }
            if Superblock.hasOlderVersionSlot(headerRegion: headerRegion) {
                // This process may write leaf deltas: both slots get the new version, so a
                // reader of the old one refuses the file rather than taking the other (F30).
                try state.withLock {
                    try checkpoint(&$0)
                    try checkpoint(&$0)
                }
            } else if Superblock.hasDamagedSlot(headerRegion: headerRegion) {
                try state.withLock { try checkpoint(&$0) }
            }
        }
    }

    /// Creates an empty store: written beside the path, synced, then renamed into place,
    /// so a crash leaves either no store or a whole one. The caller's open then syncs the
    /// directory, as every open for writing does, before the store is used.
    private static func create(at path: String, options: StoreOptions) throws {
        let fileSystem = options.fileSystem
        let temporary = path + ".creating"
        try fileSystem.removeFile(at: temporary)
        let file = try fileSystem.openFile(at: temporary, mode: .createNew)
        defer { file.close() }
        var bytes = [UInt8](repeating: 0, count: Int(FileFormat.headerRegionSize))
        let record = CommitRecord(
            catalogRoot: 0, catalogCount: 0, previousCommit: 0, durableThrough: 0,
            liveBytes: FileFormat.frameSize(storedLength: FileFormat.commitPayloadSize),
            firstFrame: FileFormat.headerRegionSize, timestampMilliseconds: currentTimeMilliseconds()
        )
        record.encoded().withUnsafeBytes {
            _ = FrameEncoder.append(type: .commit, payload: $0, transaction: 1, compression: .none, to: &bytes)
        }
        try file.write(bytes, at: 0)
        if options.durability != .none { try file.sync() }
        let superblock = Superblock(
            pageSize: options.pageSize, sequence: 1,
            checkpointOffset: FileFormat.headerRegionSize, checkpointTransaction: 1
        )
        try file.write(superblock.encoded(), at: UInt64(superblock.slotOffset))
        if options.durability != .none { try file.sync() }
        try fileSystem.renameFile(from: temporary, to: path)
    }

    // MARK: Reading

    /// A snapshot of the latest commit. Cheap; release it when done so compaction can
    /// free the old file.
    public func read() throws -> ReadTransaction {
        let (file, latest, directory) = try state.withLock { state -> (StoreFile, CommitPoint, TreeDirectory) in
            guard let file = state.file else { throw StoreError.closed }
            if let directory = state.directory, directory.isFor(file, state.latest) { return (file, state.latest, directory) }
            let directory = TreeDirectory(file: file, commit: state.latest)
            state.directory = directory
            return (file, state.latest, directory)
        }
        return ReadTransaction(reader: SnapshotReader(file: file, transaction: latest.transaction), commit: latest, directory: directory)
    }

    /// Whether the snapshot of `identity` (``ReadTransaction/commitIdentity``), which its
    /// holder keeps alive, still reads the latest commit of the open file: no commit or
    /// compaction has followed it, and the store is not closed.
    public func isLatest(_ identity: ObjectIdentifier) -> Bool {
        // The holder keeps the directory alive, so no other can have its identity since.
        latestDirectory.bits.load(ordering: .acquiring) == UInt(bitPattern: identity)
    }

    /// Runs `body` on a snapshot of the latest commit.
    public func read<T>(_ body: (ReadTransaction) throws -> T) throws -> T {
        try body(read())
    }

    // MARK: Writing

    /// Begins the write transaction, waiting while another one is open.
    public func beginWrite() throws -> WriteTransaction {
        guard !options.readOnly else { throw StoreError.readOnly }
        writerGate.wait()
        do {
            let (file, latest) = try state.withLock { state -> (StoreFile, CommitPoint) in
                guard let file = state.file else { throw StoreError.closed }
                if let reason = state.poisoned { throw StoreError.poisoned(reason: reason) }
                return (file, state.latest)
            }
            let reader = SnapshotReader(file: file, transaction: latest.transaction, uncommittedFrom: latest.end, owner: TransactionState())
            return try WriteTransaction(store: self, reader: reader, base: latest)
        } catch {
            writerGate.signal()
            throw error
        }
    }

    /// Runs `body` in a write transaction and commits it; rolls it back if `body` throws.
    @discardableResult
    public func write<T>(_ body: (WriteTransaction) throws -> T) throws -> T {
        let transaction = try beginWrite()
        do {
            let result = try body(transaction)
            try transaction.commit()
            return result
        } catch {
            transaction.rollback()
            throw error
        }
    }

    /// Called by the write transaction when it ends, committed or not.
    func endWrite() {
        writerGate.signal()
    }

    /// Makes a commit visible (called with the writer gate held).
    func publish(_ commit: CommitPoint, synced: Bool, pages: [PageNode], superseded: [UInt64]) {
        let file = state.withLock { state -> StoreFile? in
            state.latest = commit
            if synced { state.syncedThrough = commit.end }
            return state.file
        }
        if !synced, options.durability != .none, let file { startWriteback(through: commit.end, of: file) }
        file?.cache.remove(superseded)
        for page in pages { file?.cache.insert(page) }
        let needsCheckpoint = state.withLock {
            commit.end - ($0.superblock.checkpointOffset) >= options.checkpointInterval
        }
        // The commit is durable and visible whatever happens next; a failed checkpoint
        // poisons the store (see `checkpoint`) rather than failing the commit.
        if needsCheckpoint { try? state.withLock { try checkpoint(&$0) } }
    }

    /// Bytes appended since the last start of a writeback that make the next one (1 MiB).
    static let writebackChunk: UInt64 = 1 << 20

    /// Starts writing what commits appended, up to `end`, to the device without waiting,
    /// once that is ``writebackChunk`` or more: a checkpoint's sync then finds little left
    /// to write (it stalled the commit that crossed it by 30 ms or more, the 64 MiB since
    /// the last all at once), while small commits are left for the kernel to gather.
    private func startWriteback(through end: UInt64, of file: StoreFile) {
        let range = state.withLock { state -> Range<UInt64>? in
            let start = max(state.writebackStarted, state.syncedThrough)
            guard end >= start, end - start >= Self.writebackChunk else { return nil }
            state.writebackStarted = end
            return start..<end
        }
        if let range { file.file.startWriteback(at: range.lowerBound, count: range.upperBound - range.lowerBound) }
    }

    /// Records a failed commit: drops its partial frames when possible. After a failed sync
    /// nothing on disk can be vouched for, so the store refuses writes until reopened.
    func abandonCommit(truncatingTo end: UInt64, error: any Error, duringSync: Bool) {
        // After a failed sync another sync proves nothing (no retry that pretends).
        guard discardFrames(from: end, syncing: !duringSync), duringSync else { return }
        state.withLock { $0.poisoned = "a sync failed: \(error)" }
    }

    /// Removes the frames of a transaction that did not commit, from `end` (its base) on,
    /// and syncs the cut unless durability is `none`: the next transaction writes at the
    /// same offsets with the same id, and a power cut must not bring the old frames back
    /// between its own. False, with the store refusing writes until reopened, when the
    /// file cannot be cut or synced.
    @discardableResult
    func discardFrames(from end: UInt64, syncing: Bool = true) -> Bool {
        state.withLock { state in
            guard let file = state.file else { return true }
            do {
                try file.file.truncate(to: end)
                if syncing && options.durability != .none { try file.file.sync() }
                return true
            } catch {
                state.poisoned = "could not remove a failed transaction's frames: \(error)"
                return false
            }
        }
    }

    /// The durable-through value for the next commit, and the file and base it writes on.
    func writerSnapshot() throws -> (file: StoreFile, syncedThrough: UInt64) {
        try state.withLock { state in
            guard let file = state.file else { throw StoreError.closed }
            if let reason = state.poisoned { throw StoreError.poisoned(reason: reason) }
            return (file, state.syncedThrough)
        }
    }

    // MARK: Checkpoints

    /// Syncs the log and records the latest commit in the header, so the next open scans
    /// only what comes after it (section 6).
    public func checkpoint() throws {
        guard !options.readOnly else { throw StoreError.readOnly }
        writerGate.wait()
        defer { writerGate.signal() }
        try state.withLock { try checkpoint(&$0) }
    }

    private func checkpoint(_ state: inout State) throws {
        guard let file = state.file else { throw StoreError.closed }
        if let reason = state.poisoned { throw StoreError.poisoned(reason: reason) }
        let syncing = options.durability != .none
        do {
            if syncing { try file.file.sync() }
            state.syncedThrough = state.latest.end
            let superblock = Superblock(
                pageSize: file.pageSize, sequence: state.superblock.sequence + 1,
                checkpointOffset: state.latest.offset, checkpointTransaction: state.latest.transaction
            )
            try file.file.write(superblock.encoded(), at: UInt64(superblock.slotOffset))
            if syncing { try file.file.sync() }
            state.superblock = superblock
        } catch {
            state.poisoned = "a checkpoint failed: \(error)"
            throw error
        }
    }

    // MARK: Closing

    /// Checkpoints (for a writable store) and releases the store. Waits for an open write
    /// transaction to end first, so end it before calling this from its own thread.
    public func close() throws {
        defer { Zstd.releaseIdleContexts() }
        if options.readOnly {
            state.withLock { $0.file = nil }
            return
        }
        writerGate.wait()
        defer {
            writerGate.signal()
            processLock?.release()
        }
        try state.withLock { state in
            guard state.file != nil else { return }
            defer { state.file = nil }
            // Nothing committed since the last checkpoint: the file stays as it is.
            let upToDate = state.superblock.checkpointOffset == state.latest.offset
                && state.superblock.checkpointTransaction == state.latest.transaction
            if state.poisoned == nil && !upToDate {
                try checkpoint(&state)
            }
        }
    }

    deinit {
        if state.withLock({ $0.file != nil }) {
            try? close()
        }
    }
}

func currentTimeMilliseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return UInt64(now.tv_sec) * 1000 + UInt64(now.tv_nsec) / 1_000_000
}

import Foundation

/// When commits reach the disk (Spec section 6).
public enum Durability: String, Sendable, CaseIterable {
    /// A commit returns after its bytes are synced (`fdatasync`). Nothing acknowledged is lost.
    case full
    /// Commits are synced at checkpoints and at close. A crash may lose the latest
    /// commits, never corrupts the store.
    case normal
    /// Never syncs. For tests and scratch data.
    case none
}

/// How a store is opened.
public struct StoreOptions: Sendable {
    public var durability: Durability
    /// Opens without writing anything (no lock, no recovery truncation).
    public var readOnly: Bool
    /// Creates the store when no file exists at the path.
    public var createIfMissing: Bool
    /// Page size for a new store (a power of two, 512 to 65536). An existing store keeps its own.
    /// 16 KiB by default: against 8 KiB, a 1M-record import and upsert ran 5-6% faster, scans
    /// 5-12%, point gets level, and pages compress better (README, "How we get there").
    public var pageSize: Int
    /// How pages are compressed when that saves space: LZ4 by default (Spec F11).
    public var compression: PageCompression
    /// How a compaction compresses the pages it writes; nil: as ``compression``. A
    /// compaction writes the data that has settled, once, while commits rewrite hot pages
    /// many times: Zstandard here gives a smaller file for the cost of one pass, and keeps
    /// every commit on the faster codec.
    public var compactionCompression: PageCompression?
    /// Whether leaves are written packed (Spec F33). Off only in tests, which need stores
    /// with leaves as libraries before format 4 wrote them.
    var packsLeaves = true
    /// Memory for decoded pages, shared by all snapshots of the store.
    public var cacheBytes: Int
    /// How much log is written between checkpoints.
    public var checkpointInterval: UInt64
    /// Where files live; the real file system by default, an in-memory or fault-injecting one in tests.
    public var fileSystem: any StorageFileSystem
    /// Threads a whole-tree scan may use, each reading its own range of keys (a filtered
    /// fetch that scans an entity, a compaction's copy); 1 scans on the calling thread
    /// alone. Defaults to the active processors, at most 8.
    public var scanThreads: Int
    /// The fewest entries each scan thread is given: a smaller tree is scanned on fewer
    /// threads (starting one costs about as much as testing a few thousand records). A
    /// compaction copies ranges of about twice as many.
    public var entriesPerScanThread: Int

    public init(
        durability: Durability = .full,
        readOnly: Bool = false,
        createIfMissing: Bool = true,
        pageSize: Int = 16384,
        compression: PageCompression = .lz4,
        compactionCompression: PageCompression? = nil,
        cacheBytes: Int = 256 << 20,
        checkpointInterval: UInt64 = 64 << 20,
        fileSystem: any StorageFileSystem = PosixFileSystem(),
        scanThreads: Int = min(ProcessInfo.processInfo.activeProcessorCount, 8),
        entriesPerScanThread: Int = 16_384
    ) {
        self.durability = durability
        self.readOnly = readOnly
        self.createIfMissing = createIfMissing
        self.pageSize = pageSize
        self.compression = compression
        self.compactionCompression = compactionCompression
        self.cacheBytes = cacheBytes
        self.checkpointInterval = checkpointInterval
        self.fileSystem = fileSystem
        self.scanThreads = scanThreads
        self.entriesPerScanThread = entriesPerScanThread
    }

    /// How many threads should scan a tree of `entries` entries.
    public func scanThreads(forEntries entries: Int) -> Int {
        max(1, min(scanThreads, entries / max(entriesPerScanThread, 1)))
    }
}

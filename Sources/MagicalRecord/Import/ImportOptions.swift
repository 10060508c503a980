/// How an import treats its input. The defaults are MagicalRecord's behaviour, made strict
/// where MagicalRecord loses data silently.
public struct ImportOptions: Sendable, Hashable {
    /// What a to-many relationship's imported objects do to its current members.
    public enum RelationshipPolicy: String, Sendable, Hashable {
        /// Imported objects join the current members (MagicalRecord's behaviour).
        case add
        /// The imported objects become the whole set.
        case replace
    }

    /// Treat a JSON `null` like an absent key, so the next `mappedKeyName.N` alternate is
    /// tried and an attribute with no value left keeps what it has (off: `null` sets nil).
    public var nullAsAbsent = false
    /// Skip records that do not convert, reporting each in ``ImportResult/skipped``,
    /// instead of failing the whole import.
    public var skipInvalid = false
    /// Overrides every relationship's `relationshipImportPolicy` user-info key.
    public var relationshipPolicy: RelationshipPolicy?
    /// Accept trailing commas in JSON text (`[1, 2,]`), as some hand-written files have.
    public var allowsTrailingCommas = false
    /// Insert a record that lacks its key (absent or null) as a new object, as MagicalRecord
    /// did, instead of failing on it. A key that is present but does not convert still fails.
    public var insertsRecordsWithoutKey = false
    /// Records imported per batch (one key lookup pass each).
    public var batchSize = 10_000
    /// Commit each batch as it is imported (root saving context only), so memory stays
    /// bounded for inputs of any size. An error then undoes only the failing batch; the
    /// error says how many records earlier batches committed. What the import remembers
    /// is dropped after each commit, so ``ImportResult/objectIDs`` stays empty. Off: one
    /// transaction, all or nothing, saved when the caller saves.
    public var commitsEachBatch = false
    /// With `commitsEachBatch`, batches that need no objects are imported as states
    /// written straight into their commit (``DirectImporter``); off only to compare the
    /// two paths in tests.
    var importsWithoutObjects = true

    public init(
        nullAsAbsent: Bool = false, skipInvalid: Bool = false, relationshipPolicy: RelationshipPolicy? = nil,
        allowsTrailingCommas: Bool = false, insertsRecordsWithoutKey: Bool = false, batchSize: Int = 10_000,
        commitsEachBatch: Bool = false
    ) {
        self.nullAsAbsent = nullAsAbsent
        self.skipInvalid = skipInvalid
        self.relationshipPolicy = relationshipPolicy
        self.allowsTrailingCommas = allowsTrailingCommas
        self.insertsRecordsWithoutKey = insertsRecordsWithoutKey
        self.batchSize = batchSize
        self.commitsEachBatch = commitsEachBatch
    }
}

/// What an import did.
public struct ImportResult: Sendable {
    /// Top-level records read from the input, however each ended.
    public internal(set) var recordsRead = 0
    /// Objects created, found and changed, and found unchanged (the data held nothing new
    /// for them), counting nested ones.
    public internal(set) var created = 0
    public internal(set) var updated = 0
    public internal(set) var unchanged = 0
    /// Top-level records a `shouldImport` hook turned down.
    public internal(set) var declined = 0
    /// Records left out with ``ImportOptions/skipInvalid``, with why.
    public internal(set) var skipped: [ImportError] = []
    /// The imported top-level objects' ids, in input order (a record imported twice, once).
    /// (Empty with ``ImportOptions/commitsEachBatch``, which keeps nothing per record.)
    public internal(set) var objectIDs: [ObjectID] = []
    /// The compaction the import ran at its end, when its batch commits
    /// (``ImportOptions/commitsEachBatch``) left more dead pages than live ones; nil when
    /// it ran none.
    public internal(set) var compaction: ImportCompaction?

    /// Adds the counts and lists of `other`, a later part of the same import.
    mutating func add(_ other: ImportResult) {
        recordsRead += other.recordsRead
        created += other.created
        updated += other.updated
        unchanged += other.unchanged
        declined += other.declined
        skipped += other.skipped
        objectIDs += other.objectIDs
        compaction = other.compaction ?? compaction
    }
}

/// A compaction an import ran after its batch commits: part of the import's own time.
public struct ImportCompaction: Sendable, Equatable {
    /// The store file's size before and after.
    public let bytesBefore: UInt64
    public let bytesAfter: UInt64
    public let duration: Duration
}

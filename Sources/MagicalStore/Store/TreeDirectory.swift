import Synchronization

/// The catalog entries one commit's readers have looked up, shared by every snapshot of
/// that commit: a snapshot per lookup (an object layer's point fetch) would otherwise
/// search the catalog tree for each tree it touches. A commit's catalog never changes,
/// so entries stay valid for as long as the commit is the one read.
final class TreeDirectory: Sendable {
    let file: StoreFile
    let commit: CommitPoint
    private let entries = Mutex<[String: Catalog.Entry?]>([:])
    /// Catalogs with more trees than this are not cached in full (names are user data).
    private static let capacity = 4_096

    init(file: StoreFile, commit: CommitPoint) {
        self.file = file
        self.commit = commit
    }

    func isFor(_ file: StoreFile, _ commit: CommitPoint) -> Bool {
        self.file === file && self.commit == commit
    }

    /// The entry for `name`, from the cache or from `lookUp` (nil: no such tree).
    func entry(_ name: String, lookUp: () throws -> Catalog.Entry?) rethrows -> Catalog.Entry? {
        if let cached = entries.withLock({ $0[name] }) { return cached }
        let entry = try lookUp()
        entries.withLock { entries in
            if entries.count < Self.capacity { entries[name] = .some(entry) }
        }
        return entry
    }
}

import Synchronization

/// The catalog entries one commit's readers have looked up, shared by every snapshot of
/// that commit: a snapshot per lookup (an object layer's point fetch) would otherwise
/// search the catalog tree for each tree it touches. A commit's catalog never changes,
/// so entries stay valid for as long as the commit is the one read.
final class TreeDirectory: Sendable {
    let file: StoreFile
    let commit: CommitPoint
    private let entries = Mutex<Entries>(Entries())
    /// Catalogs with more trees than this are not cached in full (names are user data).
    private static let capacity = 4_096

    init(file: StoreFile, commit: CommitPoint) {
        self.file = file
        self.commit = commit
    }

    func isFor(_ file: StoreFile, _ commit: CommitPoint) -> Bool {
        self.file === file && self.commit == commit
    }

    private struct Entries {
        var byName: [String: Catalog.Entry?] = [:]
        /// By ``TreeHandle`` place: the handle's name and its entry.
        var byPlace: [(name: String, entry: Catalog.Entry?)?] = []
    }

    /// The entry for `name`, from the cache or from `lookUp` (nil: no such tree).
    func entry(_ name: String, lookUp: () throws -> Catalog.Entry?) rethrows -> Catalog.Entry? {
        if let cached = entries.withLock({ $0.byName[name] }) { return cached }
        let entry = try lookUp()
        entries.withLock { entries in
            if entries.byName.count < Self.capacity { entries.byName[name] = .some(entry) }
        }
        return entry
    }

    /// The entry for `handle` once looked up here through it: `.some(nil)` when there is
    /// no such tree, nil when not known by place yet.
    func cachedEntry(_ handle: TreeHandle) -> Catalog.Entry?? {
        guard let place = handle.place else { return nil }
        return entries.withLock { entries -> Catalog.Entry?? in
            guard place < entries.byPlace.count, let slot = entries.byPlace[place], slot.name == handle.name else { return nil }
            return .some(slot.entry)
        }
    }

    /// The entry for `handle` when ``cachedEntry(_:)`` has none: by name (from the cache or
    /// from `lookUp`; nil: no such tree), then kept by the handle's place.
    func entry(_ handle: TreeHandle, lookUp: () throws -> Catalog.Entry?) rethrows -> Catalog.Entry? {
        let entry = try entry(handle.name, lookUp: lookUp)
        if let place = handle.place {
            entries.withLock { entries in
                if place >= entries.byPlace.count { entries.byPlace.append(contentsOf: repeatElement(nil, count: place + 1 - entries.byPlace.count)) }
                entries.byPlace[place] = (handle.name, entry)
            }
        }
        return entry
    }
}

import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An in-memory file system that models durability precisely, for in-memory stores and
/// for crash tests.
///
/// Each file keeps the bytes reads see, its *durable* bytes (as of its last
/// ``StorageFile/sync()``) and the writes and truncates made since, in order. Names work the
/// same way: creating, renaming and removing change the current namespace, and
/// ``syncDirectory(containing:)`` makes the current entries of that one directory (the path
/// up to its last `/`) durable. ``simulatePowerLoss(_:seed:keepUnsyncedNames:)`` then
/// rebuilds every file from what a power cut could have left.
///
/// As in POSIX, an open file keeps referring to its bytes after it is renamed, replaced or
/// removed; a file with no name is dropped once its last handle closes.
///
/// `MemoryFileSystem(tracksDurability: false)` is for in-memory stores that never simulate
/// a crash: every change is durable at once, so no history of writes is kept.
///
/// Thread safety: every method may be called from any thread; one lock guards all state.
public final class MemoryFileSystem: StorageFileSystem {
    private let state: Mutex<State>

    public init(tracksDurability: Bool = true) {
        state = Mutex(State(tracksDurability: tracksDurability))
    }

    // MARK: StorageFileSystem

    public func openFile(at path: String, mode: FileOpenMode) throws -> any StorageFile {
        let (node, generation) = try state.withLock { state in
            let node: Int
            switch mode {
            case .readOnly, .readWrite:
                guard let existing = state.names[path] else { throw StoreError.fileNotFound(path: path) }
                node = existing
            case .createNew:
                guard state.names[path] == nil else { throw StoreError.fileExists(path: path) }
                node = state.createNode()
                state.names[path] = node
            }
            state.nodes[node]?.openHandles += 1
            return (node, state.generation)
        }
        return MemoryFile(path: path, fileSystem: self, node: node, generation: generation, isWritable: mode != .readOnly)
    }

    public func fileExists(at path: String) -> Bool {
        state.withLock { $0.names[path] != nil }
    }

    /// Removes the name; open handles keep the file. A missing file is not an error.
    public func removeFile(at path: String) throws {
        state.withLock { state in
            state.names[path] = nil
            state.dropUnreachableNodes()
        }
    }

    public func renameFile(from source: String, to destination: String) throws {
        try state.withLock { state in
            guard let node = state.names[source] else {
                throw StoreError.io(operation: "rename", path: source, errno: ENOENT)
            }
            guard source != destination else { return }
            state.names[destination] = node
            state.names[source] = nil
            state.dropUnreachableNodes()
        }
    }

    public func syncDirectory(containing path: String) throws {
        state.withLock { state in
            guard state.tracksDurability else { return }
            let directory = PosixFileSystem.directory(of: path)
            let entries = Set(state.names.keys).union(state.durableNames.keys)
            for name in entries where PosixFileSystem.directory(of: name) == directory {
                state.durableNames[name] = state.names[name]
            }
            state.dropUnreachableNodes()
        }
    }

    /// Locks live in a table of this file system, apart from files: no file is created.
    public func lockExclusively(at path: String) throws -> any StorageLock {
        let token = try state.withLock { state in
            guard state.locks[path] == nil else { throw StoreError.locked(path: path) }
            state.nextLockToken += 1
            state.locks[path] = state.nextLockToken
            return state.nextLockToken
        }
        return MemoryLock(path: path, token: token, fileSystem: self)
    }

    // MARK: Crash simulation

    /// Cuts the power and reboots: every file becomes its durable content plus the pending
    /// changes `policy` keeps, and the namespace reverts to its durable state (or keeps its
    /// current one with `keepUnsyncedNames`, as ext4 often does for renames). Files left
    /// without a name are gone.
    ///
    /// Every handle opened before the call is dead afterwards (its calls throw EIO, as for a
    /// process that did not survive), and every lock is released. The same `seed` replays
    /// the same outcome.
    public func simulatePowerLoss(_ policy: PowerLossPolicy, seed: UInt64, keepUnsyncedNames: Bool = false) {
        var generator = SplitMix64(seed: seed)
        simulatePowerLoss(policy, using: &generator, keepUnsyncedNames: keepUnsyncedNames)
    }

    /// ``simulatePowerLoss(_:seed:keepUnsyncedNames:)`` drawing from `generator`. Files are
    /// visited in creation order, so a seeded generator replays the same outcome.
    public func simulatePowerLoss(
        _ policy: PowerLossPolicy,
        using generator: inout some RandomNumberGenerator,
        keepUnsyncedNames: Bool = false
    ) {
        state.withLock { state in
            let survivingNames = keepUnsyncedNames || !state.tracksDurability ? state.names : state.durableNames
            var survivors: [Int: MemoryFileNode] = [:]
            for id in Set(survivingNames.values).sorted() {
                guard let node = state.nodes[id] else { continue }
                let content = state.tracksDurability ? node.contentAfterPowerLoss(policy, using: &generator) : node.current
                survivors[id] = MemoryFileNode(current: content, durable: content)
            }
            state.nodes = survivors
            state.names = survivingNames
            state.durableNames = state.tracksDurability ? survivingNames : [:]
            state.locks = [:]
            state.generation += 1
        }
    }

    // MARK: Test accessors

    /// The bytes reads of the file at `path` see now, or nil when there is no such file.
    public func contents(of path: String) -> [UInt8]? {
        state.withLock { state in state.names[path].flatMap { state.nodes[$0]?.current } }
    }

    /// Creates or replaces the file at `path`, content and name durable at once (for
    /// corruption tests). An existing file is changed in place, under its open handles too.
    public func setContents(_ bytes: [UInt8], of path: String) {
        state.withLock { state in
            let node = state.names[path] ?? state.createNode()
            state.nodes[node]?.current = bytes
            state.nodes[node]?.durable = bytes
            state.nodes[node]?.pending = []
            state.names[path] = node
            if state.tracksDurability { state.durableNames[path] = node }
            state.dropUnreachableNodes()
        }
    }

    /// Every name in the current namespace, sorted.
    public var paths: [String] {
        state.withLock { $0.names.keys.sorted() }
    }

    // MARK: For handles and locks

    /// Runs `body` on the file behind a handle, or throws EIO when a power loss killed the handle.
    func withNode<Result: Sendable>(
        _ node: Int,
        generation: Int,
        path: String,
        operation: String,
        _ body: (inout MemoryFileNode, _ tracksDurability: Bool) throws -> Result
    ) throws -> Result {
        try state.withLock { state in
            guard generation == state.generation, var file = state.nodes.removeValue(forKey: node) else {
                throw StoreError.io(operation: operation, path: path, errno: EIO)
            }
            // Moved out of the dictionary and back, so the byte arrays stay uniquely
            // referenced and are changed in place rather than copied.
            defer { state.nodes[node] = file }
            return try body(&file, state.tracksDurability)
        }
    }

    func handleClosed(node: Int, generation: Int) {
        state.withLock { state in
            guard generation == state.generation else { return }
            state.nodes[node]?.openHandles -= 1
            state.dropUnreachableNodes()
        }
    }

    /// Files a handle keeps open that no current name leads to (a replaced store file not
    /// yet let go).
    var openUnnamedFileCount: Int {
        state.withLock { state in
            let named = Set(state.names.values)
            return state.nodes.count { !named.contains($0.key) && $0.value.openHandles > 0 }
        }
    }

    func releaseLock(at path: String, token: Int) {
        state.withLock { state in
            if state.locks[path] == token { state.locks[path] = nil }
        }
    }

    private struct State: Sendable {
        let tracksDurability: Bool
        var nodes: [Int: MemoryFileNode] = [:]
        /// The current namespace: path to node.
        var names: [String: Int] = [:]
        /// The namespace a power loss reverts to. Empty when durability is not tracked.
        var durableNames: [String: Int] = [:]
        var nextNodeID = 0
        /// Bumped by each power loss; handles from an earlier generation are dead.
        var generation = 0
        /// Lock path to the token of its holder, so a stale holder cannot release a newer lock.
        var locks: [String: Int] = [:]
        var nextLockToken = 0

        init(tracksDurability: Bool) { self.tracksDurability = tracksDurability }

        mutating func createNode() -> Int {
            nextNodeID += 1
            nodes[nextNodeID] = MemoryFileNode()
            return nextNodeID
        }

        /// Forgets files that no name (current or durable) and no open handle refers to.
        mutating func dropUnreachableNodes() {
            let named = Set(names.values).union(durableNames.values)
            for (id, node) in nodes where !named.contains(id) && node.openHandles == 0 {
                nodes[id] = nil
            }
        }
    }
}

extension MemoryFileSystem {
    /// Which unsynced changes reach the disk when ``MemoryFileSystem/simulatePowerLoss(_:seed:keepUnsyncedNames:)``
    /// cuts the power. Each file is decided on its own, from its durable content (as of its
    /// last sync) and its pending writes and truncates since then.
    public enum PowerLossPolicy: Sendable, Equatable, CaseIterable {
        /// Only what was synced survives.
        case dropAllUnsynced
        /// Every change survives, as if the OS cache had been flushed just in time.
        case keepAllUnsynced
        /// Each pending change survives with probability 1/2; survivors are applied in order.
        case keepRandomSubset
        /// Every pending change survives except the last, which is torn: it keeps the prefix
        /// that ends at a random multiple of `boundary` (a sector size such as 512 or 4096,
        /// counted from file offset 0) strictly inside it, or nothing. A torn truncate is lost.
        case tearLastWrite(boundary: Int)
        /// A random subset of the pending changes survives, applied in a random order, as
        /// when the disk writes back cached blocks in its own order.
        case reorder

        /// Every policy, tearing at both common sector sizes.
        public static let allCases: [PowerLossPolicy] = [
            .dropAllUnsynced, .keepAllUnsynced, .keepRandomSubset,
            .tearLastWrite(boundary: 512), .tearLastWrite(boundary: 4096), .reorder,
        ]
    }
}

/// One file's bytes, and what a power loss could make of them.
struct MemoryFileNode: Sendable {
    /// What reads see.
    var current: [UInt8] = []
    /// The content as of the last sync.
    var durable: [UInt8] = []
    /// Changes since the last sync, oldest first. Each write keeps only its own bytes.
    var pending: [PendingChange] = []
    var openHandles = 0

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) -> Int {
        guard offset < UInt64(current.count) else { return 0 }
        let start = Int(offset)
        let count = min(buffer.count, current.count - start)
        current.withUnsafeBytes { source in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start..<start + count]))
        }
        return count
    }

    /// Like `pwrite`, an empty write changes nothing, even past the end.
    mutating func write(_ bytes: UnsafeRawBufferPointer, at offset: Int, tracksDurability: Bool) {
        guard !bytes.isEmpty else { return }
        current.overwrite(at: offset, with: bytes)
        if tracksDurability { pending.append(.write(offset: offset, bytes: Array(bytes))) }
    }

    mutating func truncate(to size: Int, tracksDurability: Bool) {
        current.resize(to: size)
        if tracksDurability { pending.append(.truncate(size: size)) }
    }

    /// Replays the pending changes onto the durable bytes: cost in proportion to what
    /// changed, not to the file's size.
    mutating func sync() {
        for change in pending { change.apply(to: &durable) }
        pending = []
    }

    func contentAfterPowerLoss(_ policy: MemoryFileSystem.PowerLossPolicy, using generator: inout some RandomNumberGenerator) -> [UInt8] {
        switch policy {
        case .dropAllUnsynced:
            return durable
        case .keepAllUnsynced:
            return current
        case .keepRandomSubset:
            return durable(after: pending.filter { _ in Bool.random(using: &generator) })
        case .reorder:
            return durable(after: pending.filter { _ in Bool.random(using: &generator) }.shuffled(using: &generator))
        case .tearLastWrite(let boundary):
            precondition(boundary > 0, "a tear boundary is a sector size")
            guard let last = pending.last else { return durable }
            var kept = Array(pending.dropLast())
            if let torn = last.torn(atMultipleOf: boundary, using: &generator) { kept.append(torn) }
            return durable(after: kept)
        }
    }

    private func durable(after changes: [PendingChange]) -> [UInt8] {
        var content = durable
        for change in changes { change.apply(to: &content) }
        return content
    }
}

/// A write or truncate not yet synced.
enum PendingChange: Sendable {
    case write(offset: Int, bytes: [UInt8])
    case truncate(size: Int)

    func apply(to content: inout [UInt8]) {
        switch self {
        case .write(let offset, let bytes):
            bytes.withUnsafeBytes { content.overwrite(at: offset, with: $0) }
        case .truncate(let size):
            content.resize(to: size)
        }
    }

    /// What a power cut in the middle of this change leaves: a write keeps the prefix that
    /// ends at a random multiple of `boundary` strictly inside it, or nothing (nil). A
    /// truncate cannot half-happen, so it is lost.
    func torn(atMultipleOf boundary: Int, using generator: inout some RandomNumberGenerator) -> PendingChange? {
        guard case .write(let offset, let bytes) = self else { return nil }
        let end = offset + bytes.count
        let boundariesInside = max(0, (end - 1) / boundary - offset / boundary)
        let choice = Int.random(in: 0...boundariesInside, using: &generator)
        guard choice > 0 else { return nil }
        let cut = (offset / boundary + choice) * boundary
        return .write(offset: offset, bytes: Array(bytes[..<(cut - offset)]))
    }
}

extension [UInt8] {
    /// Writes `bytes` at `offset` like `pwrite`: zero-filling any gap past the end, growing as needed.
    fileprivate mutating func overwrite(at offset: Int, with bytes: UnsafeRawBufferPointer) {
        if count < offset { appendZeros(offset - count) }
        let overlap = Swift.min(bytes.count, count - offset)
        if overlap > 0 {
            withUnsafeMutableBytes { target in
                UnsafeMutableRawBufferPointer(rebasing: target[offset..<offset + overlap])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[..<overlap]))
            }
        }
        append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[overlap...]))
    }

    /// Sets the size like `ftruncate`: dropping bytes past it, or zero-filling up to it.
    fileprivate mutating func resize(to size: Int) {
        if size < count {
            removeLast(count - size)
        } else {
            appendZeros(size - count)
        }
    }
}

/// A handle on a ``MemoryFileSystem`` file.
final class MemoryFile: StorageFile {
    let path: String
    private let fileSystem: MemoryFileSystem
    private let node: Int
    private let generation: Int
    private let isWritable: Bool
    private let closed = Atomic(false)

    init(path: String, fileSystem: MemoryFileSystem, node: Int, generation: Int, isWritable: Bool) {
        self.path = path
        self.fileSystem = fileSystem
        self.node = node
        self.generation = generation
        self.isWritable = isWritable
    }

    deinit { close() }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws -> Int {
        try withNode(operation: "read") { node, _ in node.read(into: buffer, at: offset) }
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        try ensureWritable(operation: "write")
        guard let start = Int(exactly: offset), start <= Int.max - bytes.count else {
            throw StoreError.io(operation: "write", path: path, errno: EFBIG)
        }
        try withNode(operation: "write") { node, tracksDurability in
            node.write(bytes, at: start, tracksDurability: tracksDurability)
        }
    }

    func sync() throws {
        try withNode(operation: "fdatasync") { node, _ in node.sync() }
    }

    func truncate(to size: UInt64) throws {
        try ensureWritable(operation: "truncate")
        guard let newSize = Int(exactly: size) else {
            throw StoreError.io(operation: "truncate", path: path, errno: EFBIG)
        }
        try withNode(operation: "truncate") { node, tracksDurability in
            node.truncate(to: newSize, tracksDurability: tracksDurability)
        }
    }

    func size() throws -> UInt64 {
        try withNode(operation: "fstat") { node, _ in UInt64(node.current.count) }
    }

    func close() {
        if !closed.exchange(true, ordering: .acquiringAndReleasing) {
            fileSystem.handleClosed(node: node, generation: generation)
        }
    }

    private func withNode<Result: Sendable>(
        operation: String,
        _ body: (inout MemoryFileNode, _ tracksDurability: Bool) throws -> Result
    ) throws -> Result {
        if closed.load(ordering: .acquiring) { throw StoreError.closed }
        return try fileSystem.withNode(node, generation: generation, path: path, operation: operation, body)
    }

    /// Like a descriptor opened `O_RDONLY`.
    private func ensureWritable(operation: String) throws {
        if !isWritable { throw StoreError.io(operation: operation, path: path, errno: EBADF) }
    }
}

/// A lock in a ``MemoryFileSystem``'s lock table.
final class MemoryLock: StorageLock {
    private let path: String
    private let token: Int
    private let fileSystem: MemoryFileSystem

    init(path: String, token: Int, fileSystem: MemoryFileSystem) {
        self.path = path
        self.token = token
        self.fileSystem = fileSystem
    }

    deinit { release() }

    func release() {
        fileSystem.releaseLock(at: path, token: token)
    }
}

import MagicalStore

/// Shared by the libFuzzer target (Fuzz/) and the corpus replay in `make test`.
///
/// Treats the input as a store file: opening, reading every tree and checking it must
/// end in data or a typed error, never a crash (Spec F9, F22-F25). A compaction (its
/// trees copied in ranges of a few entries on two threads) fails with an error or keeps
/// every entry the store read before it.
func fuzzStoreFile(_ input: UnsafeRawBufferPointer) {
    // In memory: the file system is not what is under test, and a real file per input
    // would cost more than the check itself.
    let path = "/fuzz.store"
    let fileSystem = MemoryFileSystem(tracksDurability: false)
    fileSystem.setContents(Array(input), of: path)
    _ = try? StoreChecker(path: path, fileSystem: fileSystem).run()
    let options = StoreOptions(readOnly: true, cacheBytes: 64 << 10, fileSystem: fileSystem)
    guard let store = try? Store(path: path, options: options),
          let snapshot = try? store.read(),
          let names = try? snapshot.treeNames()
    else { return }
    for name in names {
        guard let tree = try? snapshot.tree(name) else { continue }
        var keys: [[UInt8]] = []
        try? tree.scan { key, _ in
            keys.append(key)
            return keys.count < 64
        }
        try? tree.scan(reverse: true) { _, _ in true }
        fuzzBatchedReads(tree, around: keys)
    }
    try? store.close()
    fuzzCompaction(path, fileSystem)
}

/// Batched reads of `keys` and of keys just past and before them (in the gaps between
/// leaves, past the last key) end in an error or in the answers one read from the root
/// gives, whatever the tree's separators say.
private func fuzzBatchedReads(_ tree: TreeReader, around keys: [[UInt8]]) {
    var probes: [[UInt8]] = keys.flatMap { key -> [[UInt8]] in [key, key + [0], Array(key.dropLast())] }
    probes.sort { $0.lexicographicallyPrecedes($1) }
    var answers: [[UInt8]?] = []
    try? tree.getEach(EntryBatch(keys: probes)) { _, value in answers.append(value.map { Array($0) }) }
    for (probe, answer) in zip(probes, answers) {
        guard let single = try? tree.get(probe) else { continue }
        precondition(single == answer, "a batched read disagrees with a read from the root")
    }
    try? tree.scanEach(prefixes: EntryBatch(keys: probes.map { Array($0.prefix(2)) })) { _, _, _ in }
}

private func fuzzCompaction(_ path: String, _ fileSystem: MemoryFileSystem) {
    let options = StoreOptions(
        durability: .none, cacheBytes: 64 << 10, fileSystem: fileSystem, scanThreads: 2, entriesPerScanThread: 4
    )
    guard let store = try? Store(path: path, options: options) else { return }
    defer { try? store.close() }
    let before = try? entries(of: store)
    guard (try? store.compact()) != nil, let before else { return }
    precondition((try? entries(of: store)) == before, "compaction changed the store's entries")
}

/// Every tree's entries, or nil when any cannot be read.
private func entries(of store: Store) throws -> [String: [[UInt8]: [UInt8]]] {
    let snapshot = try store.read()
    var trees: [String: [[UInt8]: [UInt8]]] = [:]
    for name in try snapshot.treeNames() {
        var entries: [[UInt8]: [UInt8]] = [:]
        try snapshot.tree(name).scan { key, value in
            entries[key] = value
            return true
        }
        trees[name] = entries
    }
    return trees
}

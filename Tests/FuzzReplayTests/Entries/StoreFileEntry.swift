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
        try? tree.scan { _, _ in true }
        try? tree.scan(reverse: true) { _, _ in true }
    }
    try? store.close()
    fuzzCompaction(path, fileSystem)
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

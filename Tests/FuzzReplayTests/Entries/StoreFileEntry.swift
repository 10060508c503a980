import MagicalStore

/// Shared by the libFuzzer target (Fuzz/) and the corpus replay in `make test`.
///
/// Treats the input as a store file: opening, reading every tree and checking it must
/// end in data or a typed error, never a crash (Spec F9, F22-F25).
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
}

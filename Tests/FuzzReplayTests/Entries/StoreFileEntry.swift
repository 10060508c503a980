import Foundation
import MagicalStore

/// Shared by the libFuzzer target (Fuzz/) and the corpus replay in `make test`.
///
/// Treats the input as a store file: opening, reading every tree and checking it must
/// end in data or a typed error, never a crash (Spec F9, F22-F25).
func fuzzStoreFile(_ input: UnsafeRawBufferPointer) {
    let path = NSTemporaryDirectory() + "fuzz-store-\(getpid()).store"
    guard FileManager.default.createFile(atPath: path, contents: Data(input)) else { return }
    defer { try? FileManager.default.removeItem(atPath: path) }
    _ = try? StoreChecker(path: path).run()
    guard let store = try? Store(path: path, options: StoreOptions(readOnly: true)),
          let snapshot = try? store.read(),
          let names = try? snapshot.treeNames()
    else { return }
    for name in names {
        guard let tree = try? snapshot.tree(name) else { continue }
        try? tree.scan { _, _ in true }
        try? tree.scan(reverse: true) { _, _ in true }
    }
}

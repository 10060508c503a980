import ArgumentParser
import Foundation
import MagicalStore

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show a store's format, sizes and trees.",
        discussion: "Opens the store read-only and prints its format version, page size, last transaction, file size, live bytes (reachable from the latest commit) and dead bytes (superseded frames, which `compact` reclaims), and each tree with its entry count."
    )

    @Argument(help: "The store file.")
    var store: String

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func run() throws {
        let info = try reportingErrors {
            let opened = try Store(path: store, options: StoreOptions(readOnly: true, createIfMissing: false))
            defer { try? opened.close() }
            return try opened.info()
        }
        if json {
            let object: [String: Any] = [
                "formatVersion": info.formatVersion,
                "pageSize": info.pageSize,
                "lastTransaction": info.lastTransaction,
                "checkpointTransaction": info.checkpointTransaction,
                "fileBytes": info.fileBytes,
                "liveBytes": info.liveBytes,
                "deadBytes": info.deadBytes,
                "trees": info.trees.map { ["name": $0.name, "entries": $0.entries] as [String: Any] },
            ]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        let usable = max(info.fileBytes, 1)
        print("""
        format version:  \(info.formatVersion)
        page size:       \(info.pageSize)
        last transaction: \(info.lastTransaction) (checkpoint at \(info.checkpointTransaction))
        file size:       \(humanBytes(info.fileBytes)) (\(info.fileBytes) bytes)
        live:            \(humanBytes(info.liveBytes)) (\(info.liveBytes) bytes)
        dead:            \(humanBytes(info.deadBytes)) (\(info.deadBytes) bytes, \(String(format: "%.1f", Double(info.deadBytes) * 100 / Double(usable)))%)
        trees:           \(info.trees.count)
        """)
        for tree in info.trees {
            print("  \(tree.name): \(tree.entries) entries")
        }
    }
}

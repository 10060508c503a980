import ArgumentParser
import MagicalStore

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Verify every byte of a store.",
        discussion: """
        Reads the whole file: the header slots and their padding, every frame's checksum and \
        padding whether live or superseded, the chain of transactions, and the structure, \
        order and counts of every tree reachable from the latest commit. Bytes after the \
        last commit are reported as a torn tail (the next open for writing removes them). \
        Never modifies the file. A sound store is summed up with each tree's entries and the \
        bytes its pages take on disk: where the store's size goes.

        Exit status: 0 sound; 1 problems found (each printed with its file offset); \
        2 the file could not be checked (missing, unreadable, not a store).
        """
    )

    @Argument(help: "The store file.")
    var store: String

    func run() throws {
        let report = try reportingErrors(exitCode: 2) { try StoreChecker(path: store).run() }
        guard report.isSound else {
            for problem in report.problems {
                printError("\(store): \(problem)")
            }
            throw ExitCode(1)
        }
        print("ok: \(report.frames) frames (\(report.lz4Frames) lz4, \(report.zstdFrames) zstd), \(report.commits) commits, last transaction \(report.latestTransaction), \(report.treeEntries) entries, \(report.leafDeltas) leaf deltas")
        for tree in report.trees {
            let tenths = tree.entries == 0 ? 0 : (tree.bytes * 10 + UInt64(tree.entries / 2)) / UInt64(tree.entries)
            let perEntry = tree.entries == 0 ? "" : ", \(tenths / 10).\(tenths % 10) B/entry"
            print("  \(tree.name): \(tree.entries) entries, \(tree.bytes) bytes\(perEntry)")
        }
    }
}

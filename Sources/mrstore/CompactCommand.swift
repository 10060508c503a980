import ArgumentParser
import MagicalStore

struct CompactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Rewrite a store without its dead space.",
        discussion: "Copies every live tree into a new file, its pages compressed as --compression says (Zstandard level 3 unless told otherwise: what a compaction writes has settled, and takes about a fifth less room than with LZ4, the codec of commits), syncs it and renames it over the store, so a crash leaves the old store or the new one. Needs the store's write lock: it fails with \"store is locked\" while another process has it open for writing."
    )

    @Argument(help: "The store file.")
    var store: String

    @Option(help: CompressionChoice.helpText)
    var compression = CompressionChoice(.zstd(level: 3))

    func run() throws {
        let result = try reportingErrors {
            let opened = try Store(path: store, options: StoreOptions(createIfMissing: false, compression: compression.value))
            let result = try opened.compact()
            try opened.close()
            return result
        }
        let reclaimed = result.bytesBefore - min(result.bytesBefore, result.bytesAfter)
        print("compacted \(store): \(humanBytes(result.bytesBefore)) -> \(humanBytes(result.bytesAfter)), reclaimed \(humanBytes(reclaimed))")
    }
}

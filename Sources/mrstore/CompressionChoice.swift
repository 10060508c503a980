import ArgumentParser
import MagicalStore

/// `--compression none|lz4|zstd|zstd:LEVEL`: how the pages a command writes are compressed.
struct CompressionChoice: ExpressibleByArgument {
    let value: PageCompression

    init(_ value: PageCompression) {
        self.value = value
    }

    init?(argument: String) {
        guard let value = PageCompression(parsing: argument) else { return nil }
        self.value = value
    }

    var defaultValueDescription: String { value.description }

    static var helpText: ArgumentHelp {
        "How written pages are compressed: lz4 (fast), zstd or zstd:LEVEL (smaller files; levels \(PageCompression.zstdLevels.lowerBound)-\(PageCompression.zstdLevels.upperBound), 3 by default), or none."
    }
}

/// How a store compresses the pages it writes (Spec F11). Every frame names its own codec,
/// so a store may hold pages of several and reads them all whatever it writes.
public enum PageCompression: Sendable, Hashable, CustomStringConvertible {
    /// Pages are stored as they are.
    case none
    /// LZ4 (the system liblz4): fast to write and to read back, the default.
    case lz4
    /// Zstandard at `level` (the system libzstd): an entropy coder, so smaller files than
    /// LZ4 (about a fifth smaller on typical records), at two to three times the cost of
    /// compressing and decompressing a page. Levels run from ``zstdLevels``; 1-3 suit
    /// stores that are written often, higher levels a compaction of a store mostly read.
    case zstd(level: Int)

    /// Zstandard at its usual level, 3.
    public static let zstd = PageCompression.zstd(level: 3)

    /// The levels libzstd takes: negative levels trade size for speed, 1-22 the reverse.
    public static var zstdLevels: ClosedRange<Int> { Zstd.levels }

    /// `none`, `lz4`, `zstd` or `zstd:LEVEL`, as ``init(parsing:)`` reads it.
    public var description: String {
        switch self {
        case .none: return "none"
        case .lz4: return "lz4"
        case .zstd(let level): return "zstd:\(level)"
        }
    }

    /// Reads `none`, `lz4`, `zstd` (level 3) or `zstd:LEVEL`, as a tool's option gives it;
    /// nil for anything else. The level is checked when a store opens with it.
    public init?(parsing text: String) {
        switch text.lowercased() {
        case "none": self = .none
        case "lz4": self = .lz4
        case "zstd": self = .zstd
        case let other where other.hasPrefix("zstd:"):
            guard let level = Int(other.dropFirst(5)) else { return nil }
            self = .zstd(level: level)
        default: return nil
        }
    }

    /// Why a store cannot open with this compression, or nil when it can.
    var invalidReason: String? {
        if case .zstd(let level) = self, !Zstd.levels.contains(level) || level == 0 {
            return "zstd level \(level) is not a level libzstd takes: \(Zstd.levels.lowerBound) to -1 (faster), or 1 to \(Zstd.levels.upperBound) (smaller)"
        }
        return nil
    }
}

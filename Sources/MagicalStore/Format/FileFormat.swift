/// Every constant of the store file format, in one place. Section and statement numbers
/// refer to `Spec/FILE-FORMAT.md`.
enum FileFormat {
    /// Format version written by this library, and the newest it reads (F9).
    static let version: UInt32 = 4
    /// The oldest version it reads: version 1 lacks leaf deltas (F30), versions 1 and 2
    /// Zstandard pages (F32), versions 1-3 packed leaves (F33).
    static let oldestReadableVersion: UInt32 = 1

    /// "MRSTORE" then 0x1A (section 2).
    static let magic: [UInt8] = [0x4D, 0x52, 0x53, 0x54, 0x4F, 0x52, 0x45, 0x1A]

    /// The header region before the first frame (F2).
    static let headerRegionSize: UInt64 = 4096
    /// Byte offsets of the two header slots, each in its own 512-byte sector (section 2).
    static let headerSlotOffsets: [Int] = [0, 512]
    static let headerSlotSize = 64

    static let minimumPageSize = 512
    static let maximumPageSize = 65536

    /// Frames start at multiples of this (F4).
    static let frameAlignment: UInt64 = 8
    /// Frame header bytes (section 3).
    static let frameHeaderSize = 24
    /// The largest overflow value (F12).
    static let maximumValueLength = 256 << 20
    static let commitPayloadSize = 64

    /// Catalog names are at most this many UTF-8 bytes (section 5).
    static let maximumTreeNameLength = 255
    /// A catalog value: root offset, entry count, 8 zero bytes (section 5).
    static let catalogValueSize = 24

    /// Largest key for a page size (F15).
    static func maximumKeyLength(pageSize: Int) -> Int {
        min(1024, pageSize / 8)
    }

    /// Values with `key + value` above this go to an overflow frame (F15).
    static func inlineEntryLimit(pageSize: Int) -> Int {
        pageSize / 4 - 16
    }

    /// A leaf delta's fixed part: base offset and base frame size (section 4.3).
    static let leafDeltaHeaderSize = 12

    /// The largest leaf delta a writer makes, header included; past it the leaf is
    /// written in full (F29).
    static func leafDeltaLimit(pageSize: Int) -> Int {
        pageSize / 4
    }

    /// The largest leaf, leaf delta or branch payload (F12): the page size, and below 64 KiB
    /// (positions within a page are 16-bit).
    static func maximumPagePayload(pageSize: Int) -> Int {
        min(pageSize, Int(UInt16.max))
    }

    static func isValidPageSize(_ size: Int) -> Bool {
        size >= minimumPageSize && size <= maximumPageSize && size & (size - 1) == 0
    }

    /// On-disk size of a frame with a payload of `storedLength` bytes (F10).
    static func frameSize(storedLength: Int) -> UInt64 {
        align(UInt64(frameHeaderSize + storedLength))
    }

    static func align(_ offset: UInt64) -> UInt64 {
        (offset + frameAlignment - 1) & ~(frameAlignment - 1)
    }
}

/// Frame types (section 3).
enum FrameType: UInt8, Sendable {
    case leaf = 1
    case branch = 2
    case overflow = 3
    case commit = 4
    case leafDelta = 5
    /// A leaf without its table of positions (F33): what this library writes for a leaf.
    case packedLeaf = 6

    /// A full leaf, packed or not: what a leaf delta's base may be (F28).
    var isLeaf: Bool { self == .leaf || self == .packedLeaf }

    /// Raw payload limit for this type (F12).
    func maximumRawLength(pageSize: Int) -> Int {
        switch self {
        case .leaf, .packedLeaf, .leafDelta, .branch: return FileFormat.maximumPagePayload(pageSize: pageSize)
        case .overflow: return FileFormat.maximumValueLength
        case .commit: return FileFormat.commitPayloadSize
        }
    }
}

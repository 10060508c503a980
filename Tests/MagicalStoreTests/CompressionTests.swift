import Testing
@testable import MagicalStore

/// Page compression with LZ4 and Zstandard (Spec F11, F32): round trips, the 1/16 rule,
/// and decompression that rejects any malformed input without crashing.
@Suite struct CompressionTests {
    /// A codec's two halves, as frames call them.
    enum Codec: CaseIterable, CustomTestStringConvertible {
        /// LZ4 as compactions run it, and as commits do (``LZ4/Acceleration``).
        case lz4, lz4ForCommits, zstd

        var testDescription: String {
            switch self {
            case .lz4: "lz4"
            case .lz4ForCommits: "lz4 for commits"
            case .zstd: "zstd"
            }
        }

        func compressIfWorthwhile(_ source: UnsafeRawBufferPointer, appendingTo buffer: inout [UInt8]) -> Int? {
            switch self {
            case .lz4: LZ4.compressIfWorthwhile(source, acceleration: LZ4.Acceleration.settled, appendingTo: &buffer)
            case .lz4ForCommits: LZ4.compressIfWorthwhile(source, acceleration: LZ4.Acceleration.commit, appendingTo: &buffer)
            case .zstd: Zstd.compressIfWorthwhile(source, level: 3, appendingTo: &buffer)
            }
        }

        func decompress(_ source: UnsafeRawBufferPointer, rawLength: Int) -> [UInt8]? {
            switch self {
            case .lz4, .lz4ForCommits: LZ4.decompress(source, rawLength: rawLength)
            case .zstd: Zstd.decompress(source, rawLength: rawLength)
            }
        }
    }

    /// Text-like bytes that compress well.
    static func compressible(count: Int) -> [UInt8] {
        let words = ["{\"name\": ", "\"Ada\", ", "\"age\": ", "36, ", "\"city\": ", "\"London\"}, "].map { Array($0.utf8) }
        var bytes: [UInt8] = []
        var index = 0
        while bytes.count < count {
            bytes += words[index % words.count]
            index += index % 7 + 1
        }
        return Array(bytes.prefix(count))
    }

    /// Compressed onto bytes already in the buffer, which stay as they were.
    static func compress(_ bytes: [UInt8], _ codec: Codec) -> [UInt8]? {
        let before: [UInt8] = [7, 7, 7]
        var buffer = before
        let length = bytes.withUnsafeBytes { codec.compressIfWorthwhile($0, appendingTo: &buffer) }
        #expect(buffer.prefix(3) == before[...])
        #expect(buffer.count == 3 + (length ?? 0))
        return length.map { _ in Array(buffer.dropFirst(3)) }
    }

    static func decompress(_ bytes: [UInt8], rawLength: Int, _ codec: Codec) -> [UInt8]? {
        bytes.withUnsafeBytes { codec.decompress($0, rawLength: rawLength) }
    }

    /// Sizes from a small page up; a Zstandard frame's own header takes more of 64 bytes
    /// than the 1/16 rule leaves.
    static let roundTrips: [(Codec, Int)] = [(.lz4, 64), (.lz4ForCommits, 64)] + Codec.allCases.flatMap { codec in
        [512, 4096, 65536, 1 << 20].map { (codec, $0) }
    }

    @Test(arguments: roundTrips)
    func compressibleDataRoundTrips(codec: Codec, count: Int) throws {
        let raw = Self.compressible(count: count)
        let compressed = try #require(Self.compress(raw, codec))
        #expect(compressed.count <= count - count / 16)
        #expect(Self.decompress(compressed, rawLength: count, codec) == raw)
    }

    /// Letters drawn at random carry under 5 bits each: an entropy coder stores them in
    /// fewer bytes, LZ4 (which only finds repeats) not at all.
    @Test func zstandardCompressesWhatLZ4CannotRepeat() throws {
        var random = SeededGenerator(seed: 5)
        let letters = (0..<8192).map { _ in UInt8(ascii: "a") + UInt8.random(in: 0..<26, using: &random) }
        #expect(Self.compress(letters, .lz4) == nil)
        let compressed = try #require(Self.compress(letters, .zstd))
        #expect(compressed.count < 8192 * 5 / 8 + 256)
        #expect(Self.decompress(compressed, rawLength: 8192, .zstd) == letters)
    }

    @Test(arguments: [1, 3, 19, -5])
    func everyZstandardLevelRoundTrips(level: Int) throws {
        let raw = Self.compressible(count: 8192)
        var buffer: [UInt8] = []
        let length = try #require(raw.withUnsafeBytes { Zstd.compressIfWorthwhile($0, level: level, appendingTo: &buffer) })
        #expect(buffer.count == length)
        #expect(Self.decompress(buffer, rawLength: raw.count, .zstd) == raw)
    }

    @Test(arguments: Codec.allCases)
    func randomAndShortInputIsNotWorthCompressing(codec: Codec) {
        var random = SeededGenerator(seed: 3)
        for count in [64, 100, 4096, 65536] {
            #expect(Self.compress(random.bytes(count: count), codec) == nil, "\(count) random bytes")
        }
        for count in [0, 1, 63] {
            #expect(Self.compress([UInt8](repeating: 0, count: count), codec) == nil, "\(count) zero bytes")
        }
    }

    @Test(arguments: Codec.allCases)
    func aWrongRawLengthIsRejected(codec: Codec) throws {
        let raw = Self.compressible(count: 4096)
        let compressed = try #require(Self.compress(raw, codec))
        for rawLength in [0, 1, 4095, 4097, 8192, -1] {
            #expect(Self.decompress(compressed, rawLength: rawLength, codec) == nil, "raw length \(rawLength)")
        }
        #expect(Self.decompress([], rawLength: 4096, codec) == nil)
    }

    @Test(arguments: Codec.allCases)
    func truncatedInputIsRejected(codec: Codec) throws {
        let raw = Self.compressible(count: 2048)
        let compressed = try #require(Self.compress(raw, codec))
        for length in 0..<compressed.count {
            #expect(Self.decompress(Array(compressed.prefix(length)), rawLength: 2048, codec) == nil, "first \(length) bytes")
        }
    }

    /// Random bytes, and valid streams with random bytes changed: decompression returns nil
    /// or exactly `rawLength` bytes, and never crashes or overruns.
    @Test(arguments: Codec.allCases)
    func garbageNeverCrashes(codec: Codec) throws {
        var random = SeededGenerator(seed: 21)
        for _ in 0..<(2000 * testScale) {
            let garbage = random.bytes(count: Int.random(in: 1...300, using: &random))
            let rawLength = Int.random(in: 1...2000, using: &random)
            if let output = Self.decompress(garbage, rawLength: rawLength, codec) {
                #expect(output.count == rawLength)
            }
        }
        let raw = Self.compressible(count: 4096)
        let compressed = try #require(Self.compress(raw, codec))
        for _ in 0..<(2000 * testScale) {
            var damaged = compressed
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                damaged[Int.random(in: 0..<damaged.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            if let output = Self.decompress(damaged, rawLength: raw.count, codec) {
                #expect(output.count == raw.count)
            }
        }
    }
}

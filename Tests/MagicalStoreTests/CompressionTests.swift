import Testing
@testable import MagicalStore

/// LZ4 page compression (Spec F11): round trips, the 1/16 rule, and decompression that
/// rejects any malformed input without crashing.
@Suite struct CompressionTests {
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
    static func compress(_ bytes: [UInt8]) -> [UInt8]? {
        let before: [UInt8] = [7, 7, 7]
        var buffer = before
        let length = bytes.withUnsafeBytes { LZ4.compressIfWorthwhile($0, appendingTo: &buffer) }
        #expect(buffer.prefix(3) == before[...])
        #expect(buffer.count == 3 + (length ?? 0))
        return length.map { _ in Array(buffer.dropFirst(3)) }
    }

    static func decompress(_ bytes: [UInt8], rawLength: Int) -> [UInt8]? {
        bytes.withUnsafeBytes { LZ4.decompress($0, rawLength: rawLength) }
    }

    @Test(arguments: [64, 512, 4096, 65536, 1 << 20])
    func compressibleDataRoundTrips(count: Int) throws {
        let raw = Self.compressible(count: count)
        let compressed = try #require(Self.compress(raw))
        #expect(compressed.count <= count - count / 16)
        #expect(Self.decompress(compressed, rawLength: count) == raw)
    }

    @Test func randomAndShortInputIsNotWorthCompressing() {
        var random = SeededGenerator(seed: 3)
        for count in [64, 100, 4096, 65536] {
            #expect(Self.compress(random.bytes(count: count)) == nil, "\(count) random bytes")
        }
        for count in [0, 1, 63] {
            #expect(Self.compress([UInt8](repeating: 0, count: count)) == nil, "\(count) zero bytes")
        }
    }

    @Test func aWrongRawLengthIsRejected() throws {
        let raw = Self.compressible(count: 4096)
        let compressed = try #require(Self.compress(raw))
        for rawLength in [0, 1, 4095, 4097, 8192, -1] {
            #expect(Self.decompress(compressed, rawLength: rawLength) == nil, "raw length \(rawLength)")
        }
        #expect(Self.decompress([], rawLength: 4096) == nil)
    }

    @Test func truncatedInputIsRejected() throws {
        let raw = Self.compressible(count: 2048)
        let compressed = try #require(Self.compress(raw))
        for length in 0..<compressed.count {
            #expect(Self.decompress(Array(compressed.prefix(length)), rawLength: 2048) == nil, "first \(length) bytes")
        }
    }

    /// Random bytes, and valid streams with random bytes changed: decompression returns nil
    /// or exactly `rawLength` bytes, and never crashes or overruns.
    @Test func garbageNeverCrashes() throws {
        var random = SeededGenerator(seed: 21)
        for _ in 0..<(2000 * testScale) {
            let garbage = random.bytes(count: Int.random(in: 1...300, using: &random))
            let rawLength = Int.random(in: 1...2000, using: &random)
            if let output = Self.decompress(garbage, rawLength: rawLength) {
                #expect(output.count == rawLength)
            }
        }
        let raw = Self.compressible(count: 4096)
        let compressed = try #require(Self.compress(raw))
        for _ in 0..<(2000 * testScale) {
            var damaged = compressed
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                damaged[Int.random(in: 0..<damaged.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            if let output = Self.decompress(damaged, rawLength: raw.count) {
                #expect(output.count == raw.count)
            }
        }
    }
}

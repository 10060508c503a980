import Foundation
import Testing
@testable import MagicalStore

/// The store's page compression option (Spec F11, F32): every codec writes a store that
/// reads back and checks clean, one file may mix codecs, and older stores are raised to the
/// format version that names Zstandard before anything is written.
@Suite struct PageCompressionTests {
    static func options(_ compression: PageCompression) -> StoreOptions {
        StoreOptions(durability: .none, pageSize: 4096, compression: compression)
    }

    /// Entries whose values compress (words repeated) but not only by repeats (random
    /// letters), so both codecs compress every leaf.
    static func entries(from first: Int, count: Int, seed: UInt64) -> [[UInt8]: [UInt8]] {
        var random = SeededGenerator(seed: seed)
        var entries: [[UInt8]: [UInt8]] = [:]
        for number in first..<first + count {
            let letters = (0..<Int.random(in: 8...24, using: &random)).map { _ in UInt8(ascii: "a") + UInt8.random(in: 0..<26, using: &random) }
            entries[numberKey(number)] = Array("name \(number): ".utf8) + letters
        }
        return entries
    }

    /// The codec of every page frame of `types` (by default leaves, packed or not, leaf
    /// deltas and branches) in the file, from `start` on.
    static func pageCodecs(
        in bytes: [UInt8], from start: Int = 0, types: [FrameType] = [.leaf, .packedLeaf, .leafDelta, .branch]
    ) -> [FrameCodec: Int] {
        var codecs: [FrameCodec: Int] = [:]
        for offset in frameOffsets(in: bytes) where offset >= start && types.map(\.rawValue).contains(bytes[offset]) {
            codecs[FrameCodec(rawValue: bytes[offset + 1]) ?? .none, default: 0] += 1
        }
        return codecs
    }

    static func write(_ entries: [[UInt8]: [UInt8]], to path: String, with compression: PageCompression) throws {
        let store = try Store(path: path, options: options(compression))
        try store.write { transaction in
            let tree = try transaction.treeIfPresent("tree") ?? transaction.createTree("tree")
            try tree.putBatch(entries.map { ($0.key, $0.value) })
        }
        try store.close()
    }

    static func readAndCheck(_ path: String, equals expected: [[UInt8]: [UInt8]]) throws {
        #expect(try StoreChecker(path: path).run().problems == [])
        let store = try Store(path: path, options: StoreOptions(readOnly: true))
        #expect(try allEntries(store.read().tree("tree")) == expected)
        try store.close()
    }

    @Test(arguments: [PageCompression.none, .lz4, .zstd, .zstd(level: 19), .zstd(level: -3)])
    func everyCodecWritesAStoreThatReadsBack(compression: PageCompression) throws {
        let directory = TemporaryDirectory()
        let expected = Self.entries(from: 0, count: 3_000, seed: 1)
        try Self.write(expected, to: directory.file(), with: compression)
        try Self.readAndCheck(directory.file(), equals: expected)

        let codecs = Self.pageCodecs(in: readFile(directory.file()))
        let leaves = Self.pageCodecs(in: readFile(directory.file()), types: [.packedLeaf])
        switch compression {
        case .none: #expect(Set(codecs.keys) == [.none])
        case .lz4: #expect(leaves[.lz4, default: 0] > 0 && codecs[.zstd] == nil)
        case .zstd: #expect(leaves[.zstd, default: 0] > 0 && codecs[.lz4] == nil)
        }
    }

    /// Zstandard's entropy coding stores the random letters in fewer bits than LZ4 can.
    @Test func zstandardWritesASmallerFileThanLZ4() throws {
        let directory = TemporaryDirectory()
        let entries = Self.entries(from: 0, count: 3_000, seed: 2)
        try Self.write(entries, to: directory.file("lz4"), with: .lz4)
        try Self.write(entries, to: directory.file("zstd"), with: .zstd)
        let lz4 = readFile(directory.file("lz4")).count
        let zstd = readFile(directory.file("zstd")).count
        #expect(zstd < lz4 * 9 / 10, "zstd \(zstd) bytes, lz4 \(lz4)")
    }

    /// Commits with one codec, then another, then none: the file mixes them, and leaf
    /// deltas of one codec land on bases of another.
    @Test func oneStoreMixesCodecs() throws {
        let directory = TemporaryDirectory()
        var expected = Self.entries(from: 0, count: 2_000, seed: 3)
        try Self.write(expected, to: directory.file(), with: .lz4)
        let changed = Self.entries(from: 1_000, count: 2_000, seed: 4)
        try Self.write(changed, to: directory.file(), with: .zstd)
        expected.merge(changed) { $1 }
        let single = Self.entries(from: 500, count: 1, seed: 5)
        try Self.write(single, to: directory.file(), with: .none)
        expected.merge(single) { $1 }
        try Self.readAndCheck(directory.file(), equals: expected)

        let codecs = Self.pageCodecs(in: readFile(directory.file()))
        let leaves = Self.pageCodecs(in: readFile(directory.file()), types: [.packedLeaf])
        #expect(leaves[.lz4, default: 0] > 0 && leaves[.zstd, default: 0] > 0 && codecs[.none, default: 0] > 0)
    }

    /// A compaction writes every page with the store's compaction codec, else its codec;
    /// commits keep to the codec.
    @Test(arguments: [(PageCompression.zstd(level: 9), PageCompression?.none), (.lz4, PageCompression.zstd(level: 9))])
    func compactionRewritesPagesWithItsCodec(compression: PageCompression, compactionCompression: PageCompression?) throws {
        let directory = TemporaryDirectory()
        var expected = Self.entries(from: 0, count: 3_000, seed: 6)
        try Self.write(expected, to: directory.file(), with: .lz4)
        var options = Self.options(compression)
        options.compactionCompression = compactionCompression
        let store = try Store(path: directory.file(), options: options)
        let result = try store.compact()
        #expect(result.bytesAfter < result.bytesBefore)
        let compacted = readFile(directory.file()).count
        let codecs = Self.pageCodecs(in: readFile(directory.file()))
        #expect(Self.pageCodecs(in: readFile(directory.file()), types: [.packedLeaf])[.zstd, default: 0] > 0 && codecs[.lz4] == nil)

        let changed = Self.entries(from: 2_000, count: 50, seed: 9)
        try store.write { try $0.tree("tree").putBatch(changed.map { ($0.key, $0.value) }) }
        try store.close()
        expected.merge(changed) { $1 }
        try Self.readAndCheck(directory.file(), equals: expected)
        let written = Self.pageCodecs(in: readFile(directory.file()), from: compacted)
        #expect(written[compression == .lz4 ? .lz4 : .zstd, default: 0] > 0)
    }

    /// The raw and stored lengths of the file's packed leaves, in file order.
    static func packedLeafLengths(in bytes: [UInt8]) -> [(raw: Int, stored: Int)] {
        frameOffsets(in: bytes).filter { bytes[$0] == FrameType.packedLeaf.rawValue }.map { offset in
            bytes.withUnsafeBytes {
                (Int($0.loadLittleEndian(at: offset + 8, as: UInt32.self)), Int($0.loadLittleEndian(at: offset + 4, as: UInt32.self)))
            }
        }
    }

    /// LZ4 works faster in commits, whose pages the next commits often supersede, than in a
    /// compaction, whose pages have settled (``LZ4/Acceleration``): the same leaves, copied
    /// by a compaction with LZ4, come out smaller.
    @Test func anLZ4CompactionCompressesHarderThanCommits() throws {
        let directory = TemporaryDirectory()
        var random = SeededGenerator(seed: 12)
        let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa"]
        let entries = (0..<3_000).map { number in
            (numberKey(number), Array((0..<6).map { _ in words[Int.random(in: 0..<words.count, using: &random)] }.joined(separator: " ").utf8))
        }
        let store = try Store(path: directory.file(), options: Self.options(.lz4))
        try store.write { try $0.createTree("tree").putBatch(entries) }
        let committed = Self.packedLeafLengths(in: readFile(directory.file()))
        try store.compact()
        try store.close()
        let compacted = Self.packedLeafLengths(in: readFile(directory.file()))

        // One bulk commit fills its leaves as a compaction does: the same raw pages.
        try #require(committed.count > 10)
        #expect(compacted.map(\.raw) == committed.map(\.raw))
        let committedBytes = committed.map(\.stored).reduce(0, +)
        let compactedBytes = compacted.map(\.stored).reduce(0, +)
        #expect(compactedBytes < committedBytes, "compacted leaves \(compactedBytes) bytes, committed \(committedBytes)")
        try Self.readAndCheck(directory.file(), equals: Dictionary(uniqueKeysWithValues: entries))
    }

    @Test(arguments: [0, 23, -200_000, 1_000], [false, true])
    func aZstandardLevelOutOfRangeIsRefused(level: Int, forCompaction: Bool) {
        let directory = TemporaryDirectory()
        var options = Self.options(forCompaction ? .lz4 : .zstd(level: level))
        if forCompaction { options.compactionCompression = .zstd(level: level) }
        #expect {
            try Store(path: directory.file(), options: options)
        } throws: { error in
            guard case StoreError.invalidOption(let message) = error else { return false }
            return message.contains("zstd level \(level)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file()))
    }

    @Test func compressionNamesParse() {
        #expect(PageCompression(parsing: "none") == PageCompression.none)
        #expect(PageCompression(parsing: "LZ4") == .lz4)
        #expect(PageCompression(parsing: "zstd") == .zstd(level: 3))
        #expect(PageCompression(parsing: "zstd:19") == .zstd(level: 19))
        #expect(PageCompression(parsing: "zstd:-5") == .zstd(level: -5))
        for text in ["", "zstd:", "zstd:x", "gzip", "lz4:1", "zstd19"] {
            #expect(PageCompression(parsing: text) == nil, "\(text)")
        }
        for compression in [PageCompression.none, .lz4, .zstd, .zstd(level: 12)] {
            #expect(PageCompression(parsing: compression.description) == compression)
        }
    }

    /// A frame whose flags name no codec is damage, reported, never decoded, even with a
    /// checksum that matches.
    @Test func aFrameWithAnUnknownCodecIsCorrupt() throws {
        let directory = TemporaryDirectory()
        try Self.write(Self.entries(from: 0, count: 500, seed: 7), to: directory.file(), with: .zstd)
        let bytes = readFile(directory.file())
        let frame = try #require(frameOffsets(in: bytes).first { bytes[$0 + 1] == FrameCodec.zstd.rawValue })
        for flags: UInt8 in [3, 4, 0x80] {
            var damaged = bytes
            damaged[frame + 1] = flags
            let stored = damaged.withUnsafeBytes { Int($0.loadLittleEndian(at: frame + 4, as: UInt32.self)) }
            let checksum = damaged.withUnsafeBytes {
                FrameHeader.checksum(
                    header: UnsafeRawBufferPointer(rebasing: $0[frame..<frame + 24]),
                    payload: UnsafeRawBufferPointer(rebasing: $0[frame + 24..<frame + 24 + stored])
                )
            }
            damaged.storeLittleEndian(checksum, at: frame + 12)
            writeFile(directory.file(), damaged)
            let problems = try StoreChecker(path: directory.file()).run().problems
            #expect(problems.contains { $0.message.contains(FrameError.reservedBitsSet.description) }, "flags \(flags): \(problems)")
        }
    }

    /// A store whose headers name version 2 or 3 (before Zstandard pages, F32, or packed
    /// leaves, F33) is read as it is, and raised to the current version in both header
    /// slots before a process opened for writing writes anything.
    @Test(arguments: [UInt32(2), 3])
    func anOlderVersionStoreIsReadAndRaisedWhenOpenedForWriting(version: UInt32) throws {
        let directory = TemporaryDirectory()
        let expected = Self.entries(from: 0, count: 2_000, seed: 8)
        try Self.write(expected, to: directory.file(), with: .lz4)
        let bytes = stampHeaderVersion(version, onStoreAt: directory.file())

        let reader = try Store(path: directory.file(), options: StoreOptions(readOnly: true))
        #expect(try reader.info().formatVersion == version)
        #expect(try allEntries(reader.read().tree("tree")) == expected)
        try reader.close()
        #expect(readFile(directory.file()) == bytes)

        let writer = try Store(path: directory.file(), options: Self.options(.zstd))
        #expect(headerVersions(ofStoreAt: directory.file()) == [FileFormat.version, FileFormat.version])
        try writer.close()
    }
}

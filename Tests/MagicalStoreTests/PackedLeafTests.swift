import Testing
@testable import MagicalStore

/// Leaves are stored packed, without their table of positions (Spec F33): packing and
/// unpacking give back the same leaf, stores write only packed leaves, older unpacked
/// leaves still read, and a malformed packed leaf is refused, never trapped on.
@Suite struct PackedLeafTests {
    /// A leaf payload of `count` random entries (inline values of 0-60 bytes, now and then
    /// an overflow reference), as a commit encodes it.
    static func leaf(count: Int, random: inout SeededGenerator) -> [UInt8] {
        var entries = LeafEntries()
        var number = 0
        for _ in 0..<count {
            number += Int.random(in: 1...50, using: &random)
            let value: LeafValue = Int.random(in: 0..<10, using: &random) == 0
                ? .overflow(OverflowReference(offset: random.next(), frameSize: 4096, length: 5000))
                : .inline(random.bytes(count: Int.random(in: 0...60, using: &random)))
            entries.append(numberKey(number) + random.bytes(count: Int.random(in: 0...6, using: &random)), value)
        }
        var payload: [UInt8] = []
        entries.encode(into: &payload)
        return payload
    }

    static func pack(_ leaf: [UInt8]) -> [UInt8]? {
        var packed: [UInt8] = [7]
        guard leaf.withUnsafeBytes({ PackedLeaf.pack($0, appendingTo: &packed) }) else {
            #expect(packed == [7])
            return nil
        }
        #expect(packed.first == 7)
        return Array(packed.dropFirst())
    }

    static func unpack(_ packed: [UInt8], limit: Int = 65535) -> [UInt8]? {
        packed.withUnsafeBytes { PackedLeaf.unpack($0, limit: limit) }
    }

    @Test func leavesPackAndUnpackToThemselves() throws {
        var random = SeededGenerator(seed: 60)
        for _ in 0..<(200 * testScale) {
            let count = Int.random(in: 1...150, using: &random)
            let leaf = Self.leaf(count: count, random: &random)
            let packed = try #require(Self.pack(leaf))
            #expect(packed.count == leaf.count - 2 * count)
            #expect(Self.unpack(packed) == leaf)
        }
    }

    /// Entries are packed in the order of the leaf's table, wherever they lie: back to back
    /// as a commit writes them (copied as one run), or apart and in any order.
    @Test func entriesPackInTableOrderWhereverTheyLie() throws {
        var random = SeededGenerator(seed: 62)
        let count = 30
        let leaf = Self.leaf(count: count, random: &random)
        let starts = (0..<count).map { (index: Int) -> Int in
            let low = Int(leaf[2 + 2 * index])
            return low | Int(leaf[3 + 2 * index]) << 8
        }
        let ends = Array(starts.dropFirst()) + [leaf.count]
        // The same entries laid out backwards, a stray byte before each.
        var body: [UInt8] = []
        var table: [UInt8] = []
        var places = [Int](repeating: 0, count: count)
        for index in (0..<count).reversed() {
            body.append(0xEE)
            places[index] = 2 + 2 * count + body.count
            body += leaf[starts[index]..<ends[index]]
        }
        for place in places { table += [UInt8(place & 0xFF), UInt8(place >> 8)] }
        let scattered = Array(leaf[0..<2]) + table + body
        let packed = try #require(Self.pack(scattered))
        #expect(packed == Self.pack(leaf))
        #expect(Self.unpack(packed) == leaf)
    }

    @Test func malformedPackedLeavesAreRefused() throws {
        var random = SeededGenerator(seed: 61)
        let leaf = Self.leaf(count: 20, random: &random)
        let packed = try #require(Self.pack(leaf))
        #expect(Self.unpack([]) == nil)
        #expect(Self.unpack([0, 0]) == nil, "no entries")
        #expect(Self.unpack(packed + [0]) == nil, "a byte after the last entry")
        #expect(Self.unpack(Array(packed.dropLast())) == nil, "the last entry cut short")
        var more = packed
        more[0] += 1
        #expect(Self.unpack(more) == nil, "a count past the entries")
        var fewer = packed
        fewer[0] -= 1
        #expect(Self.unpack(fewer) == nil, "a count short of the entries")
        #expect(Self.unpack(packed, limit: leaf.count - 1) == nil, "a leaf longer than a page")
        #expect(Self.unpack(packed, limit: leaf.count) == leaf)
        // Every prefix, and random damage: refused, or a leaf that packs back to the bytes.
        for length in 0..<packed.count {
            #expect(Self.unpack(Array(packed.prefix(length))) == nil, "first \(length) bytes")
        }
        for _ in 0..<(2000 * testScale) {
            var damaged = packed
            damaged[Int.random(in: 0..<damaged.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            if let unpacked = Self.unpack(damaged) {
                #expect(Self.pack(unpacked) == damaged)
            }
        }
    }

    /// A page made straight from a packed leaf (its entries located while it unpacks) is
    /// the page of the leaf it unpacks to, and a packed leaf that does not unpack makes none.
    @Test func aPageFromAPackedLeafIsThePageOfItsLeaf() throws {
        func fields(_ page: PageNode) -> [[UInt64]] {
            page.entries.map { [$0.keyPrefix, UInt64($0.keyStart), UInt64($0.keyLength), UInt64($0.valueStart), UInt64($0.valueLength), $0.isOverflow ? 1 : 0] }
        }
        func expectAlike(_ packed: [UInt8], limit: Int = 65535) throws {
            let direct = try? PageNode(offset: 8192, frameSize: 100, transaction: 2, packedLeaf: packed, limit: limit)
            guard let leaf = Self.unpack(packed, limit: limit) else {
                #expect(direct == nil)
                return
            }
            let parsed = try PageNode(offset: 8192, frameSize: 100, transaction: 2, isLeaf: true, payload: leaf)
            let made = try #require(direct)
            #expect(made.payload == parsed.payload)
            #expect(fields(made) == fields(parsed))
            #expect(made.memoryCost == parsed.memoryCost)
        }
        var random = SeededGenerator(seed: 62)
        for _ in 0..<(100 * testScale) {
            let leaf = Self.leaf(count: Int.random(in: 1...150, using: &random), random: &random)
            let packed = try #require(Self.pack(leaf))
            try expectAlike(packed)
            try expectAlike(packed, limit: leaf.count - 1)
            try expectAlike(Array(packed.dropLast()))
            var damaged = packed
            damaged[Int.random(in: 0..<damaged.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            try expectAlike(damaged)
        }
    }

    /// A table whose positions do not read is not packed (the frame keeps the leaf as it is).
    @Test func aMalformedLeafIsNotPacked() {
        #expect(Self.pack([]) == nil)
        #expect(Self.pack([0, 0]) == nil)
        #expect(Self.pack([1, 0, 200, 0, 1, 9, 0, 0]) == nil)
    }

    /// Every leaf a store writes is a packed leaf frame, and reads back.
    @Test func storesWriteOnlyPackedLeaves() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none, pageSize: 4096, compression: .none))
        var random = SeededGenerator(seed: 62)
        var expected: [[UInt8]: [UInt8]] = [:]
        for number in 0..<3_000 { expected[numberKey(number * 3)] = random.bytes(count: Int.random(in: 0...80, using: &random)) }
        try store.write { try $0.createTree("tree").putBatch(expected.map { ($0.key, $0.value) }) }
        try store.close()
        #expect(try StoreChecker(path: directory.file()).run().problems == [])
        let reopened = try Store(path: directory.file(), options: StoreOptions(readOnly: true))
        #expect(try allEntries(reopened.read().tree("tree")) == expected)
        try reopened.close()

        let bytes = readFile(directory.file())
        let types = frameTypes(in: bytes)
        #expect(types.contains(FrameType.packedLeaf.rawValue))
        #expect(!types.contains(FrameType.leaf.rawValue))
    }

    /// A store of leaves as libraries before format 4 wrote them (type 1, with their
    /// tables), under each codec: it reads and checks clean, takes leaf deltas on those
    /// leaves once a library that packs writes to it, and compacts into packed leaves.
    @Test(arguments: [PageCompression.none, .lz4, .zstd])
    func aStoreOfUnpackedLeavesReadsTakesDeltasAndCompacts(compression: PageCompression) throws {
        let directory = TemporaryDirectory()
        var options = StoreOptions(durability: .none, pageSize: 4096, compression: compression)
        options.packsLeaves = false
        var random = SeededGenerator(seed: 64)
        var expected: [[UInt8]: [UInt8]] = [:]
        for number in 0..<3_000 { expected[numberKey(number * 3)] = random.bytes(count: Int.random(in: 0...80, using: &random)) }
        let old = try Store(path: directory.file(), options: options)
        try old.write { try $0.createTree("tree").putBatch(expected.map { ($0.key, $0.value) }) }
        try old.close()
        stampHeaderVersion(3, onStoreAt: directory.file())
        var types = frameTypes(in: readFile(directory.file()))
        #expect(types.contains(FrameType.leaf.rawValue) && !types.contains(FrameType.packedLeaf.rawValue))
        #expect(try StoreChecker(path: directory.file()).run().problems == [])

        options.packsLeaves = true
        let store = try Store(path: directory.file(), options: options)
        #expect(try allEntries(store.read().tree("tree")) == expected)
        for round in 0..<3 {
            let number = round * 1_000 + 7
            try store.write { try $0.tree("tree").put(numberKey(number * 3), [UInt8(round)]) }
            expected[numberKey(number * 3)] = [UInt8(round)]
        }
        try store.close()
        let bytes = readFile(directory.file())
        types = frameTypes(in: bytes)
        #expect(types.contains(FrameType.leafDelta.rawValue))
        let report = try StoreChecker(path: directory.file()).run()
        #expect(report.problems == [])
        #expect(report.leafDeltas > 0)

        let compacting = try Store(path: directory.file(), options: options)
        #expect(try allEntries(compacting.read().tree("tree")) == expected)
        _ = try compacting.compact()
        try compacting.close()
        let compacted = readFile(directory.file())
        types = frameTypes(in: compacted)
        #expect(types.contains(FrameType.packedLeaf.rawValue) && !types.contains(FrameType.leaf.rawValue))
        #expect(try StoreChecker(path: directory.file()).run().problems == [])
        let reopened = try Store(path: directory.file(), options: StoreOptions(readOnly: true))
        #expect(try allEntries(reopened.read().tree("tree")) == expected)
        try reopened.close()
    }

    /// A leaf frame as libraries before packed leaves wrote it (type 1, with its table)
    /// decodes to its payload as it is; the same leaf packed decodes to the same payload.
    @Test func unpackedAndPackedLeafFramesDecodeAlike() throws {
        var random = SeededGenerator(seed: 63)
        let leaf = Self.leaf(count: 40, random: &random)
        let packed = try #require(Self.pack(leaf))
        for (type, payload) in [(FrameType.leaf, leaf), (.packedLeaf, packed)] {
            var frame: [UInt8] = [type.rawValue, 0, 0, 0]
            frame.appendLittleEndian(UInt32(payload.count))
            frame.appendLittleEndian(UInt32(payload.count))
            frame.appendLittleEndian(UInt32(0))
            frame.appendLittleEndian(UInt64(1))
            frame += payload
            let checksum = frame.withUnsafeBytes {
                FrameHeader.checksum(header: UnsafeRawBufferPointer(rebasing: $0[0..<24]), payload: UnsafeRawBufferPointer(rebasing: $0[24...]))
            }
            frame.storeLittleEndian(checksum, at: 12)
            let decoded = try frame.withUnsafeBytes { raw in
                let header = try FrameHeader.parse(raw, pageSize: 8192).get()
                return try FrameDecoder.payload(of: header, in: raw, pageSize: 8192).get()
            }
            #expect(decoded == leaf, "\(type)")
        }
        // The frame encoder packs a leaf on its own.
        var written: [UInt8] = []
        leaf.withUnsafeBytes { _ = FrameEncoder.append(type: .leaf, payload: $0, transaction: 1, compression: .none, to: &written) }
        #expect(written[0] == FrameType.packedLeaf.rawValue)
        #expect(Array(written[24..<24 + packed.count]) == packed)
    }
}

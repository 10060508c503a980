import Foundation
import Testing
@testable import MagicalStore

/// Leaves changed in a few entries go to the log as deltas of an earlier leaf (Spec section
/// 4.3): small on disk, read back merged, carried on by later commits, folded into a full
/// leaf when large, and checked like any page.
@Suite struct LeafDeltaTests {
    static let pageSize = 4096

    static func options(compression: PageCompression = .none) -> StoreOptions {
        StoreOptions(durability: .none, pageSize: pageSize, compression: compression)
    }

    /// A store with one tree of `count` entries in full leaves (a bulk load).
    static func makeStore(in directory: TemporaryDirectory, count: Int = 4_000) throws -> (Store, [[UInt8]: [UInt8]]) {
        let store = try Store(path: directory.file(), options: options())
        var entries: [[UInt8]: [UInt8]] = [:]
        for number in 0..<count { entries[numberKey(number * 2)] = Array("value \(number) of the tree".utf8) }
        try store.write { try $0.createTree("tree").putBatch(entries.map { ($0.key, $0.value) }) }
        return (store, entries)
    }

    static func fileSize(_ path: String) -> UInt64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.uint64Value ?? 0
    }

    /// Reopens the store (a cold cache: every delta is merged from the file), checks that the
    /// tree holds `expected` and that the file passes the checker; returns the reopened store.
    static func reopenAndCheck(_ store: Store, at directory: TemporaryDirectory, equals expected: [[UInt8]: [UInt8]]) throws -> (Store, StoreChecker.Report) {
        try store.close()
        let report = try StoreChecker(path: directory.file()).run()
        #expect(report.problems == [])
        let reopened = try Store(path: directory.file(), options: options())
        #expect(try allEntries(reopened.read().tree("tree")) == expected)
        return (reopened, report)
    }

    /// A base whose key lengths take more bytes than they need (any LEB128 reads, Spec
    /// section 1) merges with a delta into the leaf the two describe.
    @Test func aDeltaMergesOntoABaseWithLongerLengthEncodings() throws {
        let first: [UInt8] = [0x83, 0x00] + Array("abc".utf8) + [0, 0x01, 7]
        let second: [UInt8] = [0x03] + Array("xyz".utf8) + [0, 0x01, 8]
        let basePayload: [UInt8] = [2, 0, 6, 0, UInt8(6 + first.count), 0] + first + second
        let base = try PageNode(offset: 4096, frameSize: 100, transaction: 1, isLeaf: true, payload: basePayload)
        var delta: [UInt8] = []
        delta.appendLittleEndian(UInt64(4096))
        delta.appendLittleEndian(UInt32(100))
        delta += [1, 0, 4, 0, 0x03] + Array("mmm".utf8) + [0, 0x01, 9]
        let merged = try delta.withUnsafeBytes { raw in
            let parsed = try #require(LeafDelta.parse(raw))
            return try #require(LeafDelta.merge(parsed, delta: raw, base: base, pageSize: Self.pageSize))
        }
        let page = try PageNode(offset: 8192, frameSize: 100, transaction: 2, isLeaf: true, payload: merged.payload)
        #expect((0..<page.count).map { page.key(at: $0) } == ["abc", "mmm", "xyz"].map { Array($0.utf8) })
        #expect((0..<page.count).map { page.value(at: $0) } == [.inline([7]), .inline([9]), .inline([8])])
    }

    @Test func aOneEntryChangeWritesADeltaNotALeaf() throws {
        let directory = TemporaryDirectory()
        var (store, expected) = try Self.makeStore(in: directory)
        let before = Self.fileSize(directory.file())
        try store.write { try $0.tree("tree").put(numberKey(200), Array("changed".utf8)) }
        expected[numberKey(200)] = Array("changed".utf8)
        // The delta, the path above it, the catalog's leaf and the commit: well under the
        // leaf a full copy would write.
        let grown = Self.fileSize(directory.file()) - before
        #expect(grown < UInt64(Self.pageSize) / 2, "grew by \(grown) bytes")
        let (reopened, report) = try Self.reopenAndCheck(store, at: directory, equals: expected)
        #expect(report.leafDeltas >= 1)
        try reopened.close()
    }

    @Test func aLaterDeltaOfALeafCarriesEveryDifferenceFromTheSameBase() throws {
        let directory = TemporaryDirectory()
        var (store, expected) = try Self.makeStore(in: directory)
        // Three commits change the same leaf in different entries, one removing an entry and
        // the last putting it back: each delta names the first base.
        let changes: [(key: [UInt8], value: [UInt8]?)] = [
            (numberKey(100), Array("first".utf8)), (numberKey(102), nil), (numberKey(101), Array("new".utf8)),
            (numberKey(102), Array("back".utf8)),
        ]
        for (key, value) in changes {
            try store.write { transaction in
                let tree = try transaction.tree("tree")
                if let value { try tree.put(key, value) } else { #expect(try tree.delete(key)) }
            }
            expected[key] = value
            // Still read right from the cache the commit filled.
            #expect(try allEntries(store.read().tree("tree")) == expected)
        }
        let (reopened, report) = try Self.reopenAndCheck(store, at: directory, equals: expected)
        #expect(report.leafDeltas >= 1)
        try reopened.close()
    }

    @Test func aRemovalInADeltaHidesTheBaseEntryAfterAReopen() throws {
        let directory = TemporaryDirectory()
        var (store, expected) = try Self.makeStore(in: directory)
        try store.write { transaction in
            let tree = try transaction.tree("tree")
            for number in [300, 302, 306] {
                #expect(try tree.delete(numberKey(number)))
                expected[numberKey(number)] = nil
            }
        }
        var (reopened, _) = try Self.reopenAndCheck(store, at: directory, equals: expected)
        // A copy of the merged page carries the removals on to the next delta.
        try reopened.write { try $0.tree("tree").put(numberKey(304), [1]) }
        expected[numberKey(304)] = [1]
        (reopened, _) = try Self.reopenAndCheck(reopened, at: directory, equals: expected)
        #expect(try reopened.read().tree("tree").get(numberKey(302)) == nil)
        try reopened.close()
    }

    @Test func aLeafChangedInManyEntriesIsWrittenInFull() throws {
        let directory = TemporaryDirectory()
        var (store, expected) = try Self.makeStore(in: directory, count: 400)
        try store.write { transaction in
            let tree = try transaction.tree("tree")
            for number in 0..<400 {
                try tree.put(numberKey(number * 2), Array("every entry changed \(number)".utf8))
                expected[numberKey(number * 2)] = Array("every entry changed \(number)".utf8)
            }
        }
        let (reopened, report) = try Self.reopenAndCheck(store, at: directory, equals: expected)
        // Only the catalog's one-entry change may be a delta.
        #expect(report.leafDeltas <= 1)
        try reopened.close()
    }

    @Test func compactionWritesEveryLeafInFull() throws {
        let directory = TemporaryDirectory()
        var (store, expected) = try Self.makeStore(in: directory)
        for number in stride(from: 0, to: 8_000, by: 400) {
            try store.write { try $0.tree("tree").put(numberKey(number), [UInt8(number % 256)]) }
            expected[numberKey(number)] = [UInt8(number % 256)]
        }
        _ = try store.compact()
        let (reopened, report) = try Self.reopenAndCheck(store, at: directory, equals: expected)
        #expect(report.leafDeltas == 0)
        try reopened.close()
    }

    /// Small random commits against a reference: puts, deletes, overflow values, batches,
    /// splits and merges, so deltas are made, carried on, folded and dropped every way.
    @Test(arguments: [PageCompression.none, .lz4, .zstd])
    func randomCommitsMatchAReference(compression: PageCompression) throws {
        var random = SeededGenerator(seed: compression == .none ? 40 : 41)
        let directory = TemporaryDirectory()
        var store = try Store(path: directory.file(), options: Self.options(compression: compression))
        var expected: [[UInt8]: [UInt8]] = [:]
        try store.write { _ = try $0.createTree("tree") }
        let keySpace = 3_000
        for round in 0..<(150 * testScale) {
            try store.write { transaction in
                let tree = try transaction.tree("tree")
                switch Int.random(in: 0..<10, using: &random) {
                case 0:
                    // A scattered batch, wide enough to reach many leaves.
                    let batch = (0..<Int.random(in: 1...300, using: &random)).map { _ in
                        (numberKey(Int.random(in: 0..<keySpace, using: &random)), random.bytes(count: Int.random(in: 1...40, using: &random)))
                    }
                    try tree.putBatch(batch)
                    for (key, value) in batch { expected[key] = value }
                case 1:
                    let keys = (0..<Int.random(in: 1...200, using: &random)).map { _ in numberKey(Int.random(in: 0..<keySpace, using: &random)) }
                    _ = try tree.deleteBatch(keys)
                    for key in keys { expected[key] = nil }
                default:
                    for _ in 0..<Int.random(in: 1...6, using: &random) {
                        let key = numberKey(Int.random(in: 0..<keySpace, using: &random))
                        if Bool.random(using: &random) {
                            let large = Int.random(in: 0..<20, using: &random) == 0
                            let value = random.bytes(count: large ? Self.pageSize : Int.random(in: 0...60, using: &random))
                            try tree.put(key, value)
                            expected[key] = value
                        } else {
                            try tree.delete(key)
                            expected[key] = nil
                        }
                    }
                }
            }
            if round % 25 == 24 {
                (store, _) = try Self.reopenAndCheck(store, at: directory, equals: expected)
            }
        }
        let (reopened, report) = try Self.reopenAndCheck(store, at: directory, equals: expected)
        #expect(report.leafDeltas > 0)
        try reopened.close()
    }

    // MARK: Damage

    /// The file's leaf delta frames, by offset (compression off, so payloads are plain).
    static func deltaFrames(in bytes: [UInt8]) -> [Int] {
        frameOffsets(in: bytes).filter { bytes[$0] == FrameType.leafDelta.rawValue }
    }

    /// Rewrites the base named by the delta frame at `offset`, with a fresh checksum.
    static func pointDelta(at offset: Int, in bytes: inout [UInt8], toBase base: UInt64, size: UInt32? = nil) {
        let payload = offset + FileFormat.frameHeaderSize
        bytes.storeLittleEndian(base, at: payload)
        if let size { bytes.storeLittleEndian(size, at: payload + 8) }
        let stored = bytes.withUnsafeBytes { Int($0.loadLittleEndian(at: offset + 4, as: UInt32.self)) }
        let checksum = bytes.withUnsafeBytes { raw in
            FrameHeader.checksum(
                header: UnsafeRawBufferPointer(rebasing: raw[offset..<payload]),
                payload: UnsafeRawBufferPointer(rebasing: raw[payload..<payload + stored])
            )
        }
        bytes.storeLittleEndian(checksum, at: offset + 12)
    }

    @Test func aDeltaWhoseBaseIsNotAnEarlierLeafOfItsSizeIsCorruption() throws {
        let directory = TemporaryDirectory()
        let (store, _) = try Self.makeStore(in: directory)
        try store.write { try $0.tree("tree").put(numberKey(400), [7]) }
        try store.close()
        let original = readFile(directory.file())
        guard let delta = Self.deltaFrames(in: original).first else {
            Issue.record("the commit wrote no leaf delta")
            return
        }
        let base = original.withUnsafeBytes { $0.loadLittleEndian(at: delta + FileFormat.frameHeaderSize, as: UInt64.self) }
        let damages: [(name: String, base: UInt64, size: UInt32?)] = [
            ("itself", UInt64(delta), nil),
            ("the first commit", FileFormat.headerRegionSize, nil),
            ("a misaligned offset", base + 4, nil),
            ("the right leaf with the wrong size", base, 8),
        ]
        for damage in damages {
            var bytes = original
            Self.pointDelta(at: delta, in: &bytes, toBase: damage.base, size: damage.size)
            writeFile(directory.file(), bytes)
            let store = try Store(path: directory.file(), options: StoreOptions(readOnly: true))
            #expect(throws: StoreError.self, "base: \(damage.name)") { try allEntries(store.read().tree("tree")) }
            try store.close()
            #expect(try StoreChecker(path: directory.file()).run().problems.isEmpty == false, "base: \(damage.name)")
            #expect(readFile(directory.file()) == bytes)
        }
    }

    @Test func aDamagedLiveByteCountIsAnErrorWhenTheNextCommitFreesMore() throws {
        let directory = TemporaryDirectory()
        let (store, _) = try Self.makeStore(in: directory)
        try store.close()
        // The last commit frame's live bytes (payload offset 32) set to 1, checksum redone.
        var bytes = readFile(directory.file())
        let commit = bytes.count - Int(FileFormat.frameSize(storedLength: FileFormat.commitPayloadSize))
        #expect(bytes[commit] == FrameType.commit.rawValue)
        bytes.storeLittleEndian(UInt64(1), at: commit + FileFormat.frameHeaderSize + 32)
        let checksum = bytes.withUnsafeBytes { raw in
            FrameHeader.checksum(
                header: UnsafeRawBufferPointer(rebasing: raw[commit..<commit + FileFormat.frameHeaderSize]),
                payload: UnsafeRawBufferPointer(rebasing: raw[(commit + FileFormat.frameHeaderSize)...])
            )
        }
        bytes.storeLittleEndian(checksum, at: commit + 12)
        writeFile(directory.file(), bytes)

        let damaged = try Store(path: directory.file(), options: Self.options())
        // Dropping the tree frees every page of it: more than the count says is live.
        #expect(throws: StoreError.self) { try damaged.write { try $0.dropTree("tree") } }
        try damaged.close()
    }

    @Test func aPagePast64KiBIsRefusedNotTrappedOn() throws {
        // Two entries whose second, with an empty value, ends at byte 65,536 (F31).
        var payload: [UInt8] = []
        payload.appendLittleEndian(UInt16(2))
        payload.appendLittleEndian(UInt16(6))
        let valueLength = 65_536 - 6 - 4 - 6
        payload.appendLittleEndian(UInt16(6 + 6 + valueLength))
        payload += [1, 1, 0]
        payload.appendVarint(valueLength)
        payload += [UInt8](repeating: 7, count: valueLength)
        payload += [1, 2, 0, 0]
        #expect(payload.count == 65_536)
        #expect(throws: FrameError.badStructure) {
            try PageNode(offset: 4096, frameSize: 64, transaction: 1, isLeaf: true, payload: payload)
        }
        #expect(FileFormat.maximumPagePayload(pageSize: 65_536) == 65_535)
    }

    // MARK: Format versions

    @Test func anUpgradeLeftHalfDoneIsFinishedByTheNextWriter() throws {
        let directory = TemporaryDirectory()
        let (store, expected) = try Self.makeStore(in: directory)
        try store.close()
        // Both slots are valid now; the older one goes back to version 1, as a process
        // stopped between the upgrade's two header writes leaves it.
        var bytes = readFile(directory.file())
        let slots = FileFormat.headerSlotOffsets.compactMap { slot -> (Int, UInt64)? in
            guard case .valid(let superblock) = Superblock.decode(slot: bytes[slot..<slot + FileFormat.headerSlotSize]) else { return nil }
            return (slot, superblock.sequence)
        }
        #expect(slots.count == 2)
        guard let older = slots.min(by: { $0.1 < $1.1 })?.0 else { return }
        bytes.storeLittleEndian(UInt32(1), at: older + 8)
        bytes.storeLittleEndian(CRC32C.checksum(Array(bytes[older..<older + 60])), at: older + 60)
        writeFile(directory.file(), bytes)

        let writer = try Store(path: directory.file(), options: Self.options())
        let header = Array(readFile(directory.file()).prefix(Int(FileFormat.headerRegionSize)))
        #expect(!Superblock.hasOlderVersionSlot(headerRegion: header))
        #expect(try allEntries(writer.read().tree("tree")) == expected)
        try writer.close()
    }

    @Test func aVersionOneStoreIsReadAndUpgradedWhenOpenedForWriting() throws {
        let directory = TemporaryDirectory()
        let (store, expected) = try Self.makeStore(in: directory)
        try store.close()
        // Before any delta, the file is a version 1 file but for its headers' version
        // and its leaves' packing (PackedLeafTests reads unpacked leaves).
        let bytes = stampHeaderVersion(1, onStoreAt: directory.file())

        let reader = try Store(path: directory.file(), options: StoreOptions(readOnly: true))
        #expect(try reader.info().formatVersion == 1)
        #expect(try allEntries(reader.read().tree("tree")) == expected)
        try reader.close()
        #expect(readFile(directory.file()) == bytes)

        let writer = try Store(path: directory.file(), options: Self.options())
        #expect(headerVersions(ofStoreAt: directory.file()) == [FileFormat.version, FileFormat.version])
        #expect(try writer.info().formatVersion == FileFormat.version)
        #expect(try allEntries(writer.read().tree("tree")) == expected)
        try writer.close()
    }
}

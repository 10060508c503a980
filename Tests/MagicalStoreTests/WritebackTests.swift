import Foundation
import Synchronization
import Testing
@testable import MagicalStore

/// With `normal` durability, commits start the writeback of what they appended once that
/// is a megabyte or more, so a checkpoint's sync has little left to write, and small
/// commits are left for the kernel to gather; `full` syncs anyway and `none` never writes
/// back early. A hint only: the file reads the same.
@Suite struct WritebackTests {
    @Test func commitsStartTheWritebackOfWhatTheyAppendedAMegabyteAtATime() throws {
        let directory = TemporaryDirectory()
        let fileSystem = RecordingFileSystem()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .normal, fileSystem: fileSystem))
        let start = try fileSystem.fileSize(directory.file())
        var random = SeededGenerator(seed: 3)
        // Small commits first: nothing started until they add up to a megabyte.
        try store.write { transaction in try transaction.createTree("tree").put(numberKey(0), random.bytes(count: 100)) }
        #expect(fileSystem.ranges.isEmpty)
        var ends: [UInt64] = []
        for round in 1...12 {
            try store.write { transaction in
                let tree = try transaction.tree("tree")
                // Incompressible values: about 300 KB a commit.
                for index in 0..<600 { try tree.put(numberKey(round * 10_000 + index), random.bytes(count: 500)) }
            }
            ends.append(try fileSystem.fileSize(directory.file()))
        }
        let ranges = fileSystem.ranges
        try store.close()
        // Each where the one before ended, from where the store stood, each a megabyte or
        // more, ending where a commit ended, and together all but the last few commits.
        #expect(ranges.count >= 2)
        #expect(ranges.first?.lowerBound == start)
        #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        #expect(ranges.allSatisfy { $0.count >= Store.writebackChunk })
        #expect(ranges.allSatisfy { ends.contains($0.upperBound) })
        #expect(ranges.last.map { ends.last! - $0.upperBound < Store.writebackChunk } == true)
    }

    /// A compaction writes a new, shorter file: the commits after it start their writeback
    /// from where it ends, not from where the old file had reached.
    @Test func commitsAfterACompactionStartFromItsEnd() throws {
        let directory = TemporaryDirectory()
        let fileSystem = RecordingFileSystem()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .normal, fileSystem: fileSystem))
        var random = SeededGenerator(seed: 5)
        // The same keys rewritten: the file grows, the live part does not.
        for _ in 0..<8 {
            try store.write { transaction in
                let tree = try transaction.treeIfPresent("tree") ?? transaction.createTree("tree")
                for index in 0..<600 { try tree.put(numberKey(index), random.bytes(count: 500)) }
            }
        }
        try store.compact()
        let compacted = try fileSystem.fileSize(directory.file())
        let before = fileSystem.ranges.count
        for round in 0..<5 {
            try store.write { transaction in
                let tree = try transaction.tree("tree")
                for index in 0..<600 { try tree.put(numberKey(100_000 + round * 1_000 + index), random.bytes(count: 500)) }
            }
        }
        let after = Array(fileSystem.ranges.dropFirst(before))
        try store.close()
        #expect(after.first?.lowerBound == compacted)
    }

    @Test(arguments: [Durability.full, .none])
    func otherDurabilitiesStartNoWriteback(durability: Durability) throws {
        let directory = TemporaryDirectory()
        let fileSystem = RecordingFileSystem()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: durability, fileSystem: fileSystem))
        try store.write { transaction in try transaction.createTree("tree").put(numberKey(1), [1, 2, 3]) }
        try store.close()
        #expect(fileSystem.ranges.isEmpty)
    }

    /// A compaction writes the new file out as it goes: its sync at the end then waits for
    /// the last of it only.
    @Test(arguments: [Durability.normal, .full, .none])
    func aCompactionStartsTheWritebackOfTheNewFileAsItGoes(durability: Durability) throws {
        let directory = TemporaryDirectory()
        let fileSystem = RecordingFileSystem()
        var random = SeededGenerator(seed: 4)
        let store = try Store(path: directory.file(), options: StoreOptions(durability: durability, fileSystem: fileSystem))
        try store.write { transaction in
            let tree = try transaction.createTree("tree")
            // Incompressible values: the new file is over a flush's 4 MiB.
            for index in 0..<9_000 { try tree.put(numberKey(index), random.bytes(count: 520)) }
        }
        let committed = fileSystem.ranges.count
        try store.compact()
        let ranges = Array(fileSystem.ranges.dropFirst(committed))
        let end = try fileSystem.fileSize(directory.file())
        try store.close()
        guard durability != .none else {
            #expect(ranges.isEmpty)
            return
        }
        #expect(ranges.count >= 2)
        #expect(ranges.first?.lowerBound == FileFormat.headerRegionSize)
        #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        #expect(ranges.last?.upperBound == end)
    }

    /// On a real file: the bytes read back as written, and a hint on a closed file, or of
    /// no bytes, or past the end, is ignored.
    @Test func aHintLeavesTheFileAsWritten() throws {
        let directory = TemporaryDirectory()
        let file = try PosixFileSystem().openFile(at: directory.file("hinted"), mode: .createNew)
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        try file.write(bytes, at: 0)
        file.startWriteback(at: 0, count: UInt64(bytes.count))
        file.startWriteback(at: 5_000, count: 0)
        file.startWriteback(at: 1 << 40, count: 4_096)
        file.startWriteback(at: .max, count: .max)
        try file.sync()
        #expect(try file.read(count: bytes.count, at: 0) == bytes)
        file.close()
        file.startWriteback(at: 0, count: UInt64(bytes.count))
    }
}

/// The real file system, noting the writeback each file is asked to start.
private final class RecordingFileSystem: StorageFileSystem {
    private let wrapped = PosixFileSystem()
    private let started = Mutex<[Range<UInt64>]>([])

    var ranges: [Range<UInt64>] { started.withLock { $0 } }

    func fileSize(_ path: String) throws -> UInt64 {
        let file = try wrapped.openFile(at: path, mode: .readOnly)
        defer { file.close() }
        return try file.size()
    }

    func openFile(at path: String, mode: FileOpenMode) throws -> any StorageFile {
        RecordingFile(try wrapped.openFile(at: path, mode: mode)) { range in self.started.withLock { $0.append(range) } }
    }

    func fileExists(at path: String) -> Bool { wrapped.fileExists(at: path) }
    func removeFile(at path: String) throws { try wrapped.removeFile(at: path) }
    func renameFile(from source: String, to destination: String) throws { try wrapped.renameFile(from: source, to: destination) }
    func syncDirectory(containing path: String) throws { try wrapped.syncDirectory(containing: path) }
    func lockExclusively(at path: String) throws -> any StorageLock { try wrapped.lockExclusively(at: path) }
}

private final class RecordingFile: StorageFile {
    private let wrapped: any StorageFile
    private let note: @Sendable (Range<UInt64>) -> Void

    init(_ wrapped: any StorageFile, note: @escaping @Sendable (Range<UInt64>) -> Void) {
        self.wrapped = wrapped
        self.note = note
    }

    var path: String { wrapped.path }
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws -> Int { try wrapped.read(into: buffer, at: offset) }
    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws { try wrapped.write(bytes, at: offset) }
    func sync() throws { try wrapped.sync() }
    func truncate(to size: UInt64) throws { try wrapped.truncate(to: size) }
    func size() throws -> UInt64 { try wrapped.size() }
    func close() { wrapped.close() }

    func startWriteback(at offset: UInt64, count: UInt64) {
        note(offset..<(offset + count))
        wrapped.startWriteback(at: offset, count: count)
    }
}

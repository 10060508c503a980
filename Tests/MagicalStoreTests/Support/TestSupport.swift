import Foundation
@testable import MagicalStore

/// A fresh directory under the system's temporary folder, removed when released.
final class TemporaryDirectory {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "magicalstore-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String = "test.store") -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// The engine's seeded generator, so every randomized test can be replayed.
typealias SeededGenerator = SplitMix64

extension SplitMix64 {
    mutating func bytes(count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) }
    }
}

/// How big randomized tests run: `MAGICALSTORE_TEST_SCALE` multiplies their sizes
/// (default 1, a few seconds each; 10 or more for long runs).
let testScale: Int = {
    ProcessInfo.processInfo.environment["MAGICALSTORE_TEST_SCALE"].flatMap(Int.init) ?? 1
}()

/// A big-endian 8-byte key, so byte order equals numeric order.
func numberKey(_ number: Int) -> [UInt8] {
    withUnsafeBytes(of: UInt64(number).bigEndian) { Array($0) }
}

func readFile(_ path: String) -> [UInt8] {
    Array(FileManager.default.contents(atPath: path) ?? Data())
}

func writeFile(_ path: String, _ bytes: [UInt8]) {
    _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
}

/// Every entry of a tree, in order.
func allEntries(_ tree: TreeReader) throws -> [[UInt8]: [UInt8]] {
    var entries: [[UInt8]: [UInt8]] = [:]
    try tree.scan { key, value in
        entries[key] = value
        return true
    }
    return entries
}

/// Rewrites the format version of each header slot in use, with a fresh checksum: the
/// file as a library of that version left it (when its frames are ones that version
/// knows). Returns the file's bytes as written.
@discardableResult
func stampHeaderVersion(_ version: UInt32, onStoreAt path: String) -> [UInt8] {
    var bytes = readFile(path)
    for slot in FileFormat.headerSlotOffsets where bytes[slot] != 0 {
        bytes.storeLittleEndian(version, at: slot + 8)
        bytes.storeLittleEndian(CRC32C.checksum(Array(bytes[slot..<slot + 60])), at: slot + 60)
    }
    writeFile(path, bytes)
    return bytes
}

/// The format version of each header slot of the store at `path`; nil for a slot that is
/// not a valid header.
func headerVersions(ofStoreAt path: String) -> [UInt32?] {
    let header = Array(readFile(path).prefix(Int(FileFormat.headerRegionSize)))
    return FileFormat.headerSlotOffsets.map { slot in
        guard case .valid(let superblock) = Superblock.decode(slot: header[slot..<slot + FileFormat.headerSlotSize]) else { return nil }
        return superblock.version
    }
}

/// Where each frame of a store file's bytes starts.
func frameOffsets(in bytes: [UInt8]) -> [Int] {
    var offsets: [Int] = []
    var position = Int(FileFormat.headerRegionSize)
    while position + FileFormat.frameHeaderSize <= bytes.count {
        offsets.append(position)
        let stored = bytes.withUnsafeBytes { Int($0.loadLittleEndian(at: position + 4, as: UInt32.self)) }
        position += Int(FileFormat.frameSize(storedLength: stored))
    }
    return offsets
}

/// The frame types a store file's bytes hold.
func frameTypes(in bytes: [UInt8]) -> Set<UInt8> {
    Set(frameOffsets(in: bytes).map { bytes[$0] })
}

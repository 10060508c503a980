/// A header slot (Spec section 2): where the latest checkpoint is, so that opening a store
/// reads only the log written since then.
struct Superblock: Equatable, Sendable {
    /// The format version of the file; headers this library writes carry its own (F30).
    var version = FileFormat.version
    var pageSize: Int
    var sequence: UInt64
    var checkpointOffset: UInt64
    var checkpointTransaction: UInt64

    /// The slot this header is written to (F7): never the one holding its predecessor.
    var slotOffset: Int { FileFormat.headerSlotOffsets[Int(sequence % 2)] }

    func encoded() -> [UInt8] {
        var bytes = FileFormat.magic
        bytes.reserveCapacity(FileFormat.headerSlotSize)
        bytes.appendLittleEndian(version)
        bytes.appendLittleEndian(UInt32(pageSize))
        bytes.appendLittleEndian(sequence)
        bytes.appendLittleEndian(checkpointOffset)
        bytes.appendLittleEndian(checkpointTransaction)
        bytes.appendZeros(20)
        bytes.appendLittleEndian(CRC32C.checksum(bytes))
        return bytes
    }

    /// What a header slot holds (F6).
    enum Slot: Equatable {
        case empty
        case valid(Superblock)
        case badMagic
        case badChecksum
        case unsupportedVersion(UInt32)
        case badPageSize(UInt32)
    }

    static func decode(slot bytes: ArraySlice<UInt8>) -> Slot {
        precondition(bytes.count == FileFormat.headerSlotSize)
        if bytes.allSatisfy({ $0 == 0 }) { return .empty }
        return Array(bytes).withUnsafeBytes { raw in
            guard raw.prefix(8).elementsEqual(FileFormat.magic) else { return .badMagic }
            let storedChecksum = raw.loadLittleEndian(at: 60, as: UInt32.self)
            guard CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<60])) == storedChecksum else {
                return .badChecksum
            }
            let version = raw.loadLittleEndian(at: 8, as: UInt32.self)
            guard (FileFormat.oldestReadableVersion...FileFormat.version).contains(version) else {
                return .unsupportedVersion(version)
            }
            let pageSize = raw.loadLittleEndian(at: 12, as: UInt32.self)
            guard FileFormat.isValidPageSize(Int(pageSize)) else { return .badPageSize(pageSize) }
            return .valid(Superblock(
                version: version,
                pageSize: Int(pageSize),
                sequence: raw.loadLittleEndian(at: 16, as: UInt64.self),
                checkpointOffset: raw.loadLittleEndian(at: 24, as: UInt64.self),
                checkpointTransaction: raw.loadLittleEndian(at: 32, as: UInt64.self)
            ))
        }
    }

    /// Picks the header in force from the header region (F7, F9).
    static func inForce(headerRegion: [UInt8], path: String) throws -> Superblock {
        guard headerRegion.count >= Int(FileFormat.headerRegionSize) else {
            if !headerRegion.starts(with: FileFormat.magic) {
                throw StoreError.notAStore(path: path)
            }
            throw StoreError.truncatedFile(path: path, size: UInt64(headerRegion.count))
        }
        let slots = FileFormat.headerSlotOffsets.map {
            decode(slot: headerRegion[$0..<$0 + FileFormat.headerSlotSize])
        }
        let valid = slots.compactMap { slot -> Superblock? in
            if case .valid(let superblock) = slot { return superblock }
            return nil
        }
        if let newest = valid.max(by: { $0.sequence < $1.sequence }) { return newest }
        if slots.allSatisfy({ $0 == .badMagic || $0 == .empty }) {
            throw StoreError.notAStore(path: path)
        }
        for slot in slots {
            if case .unsupportedVersion(let version) = slot {
                throw StoreError.unsupportedVersion(path: path, found: version, supported: FileFormat.version)
            }
        }
        throw StoreError.corrupt(offset: 0, reason: "no valid header slot")
    }
}

extension Superblock {
    /// Whether a slot holds something that is neither empty nor valid, as a torn header
    /// write leaves behind; the next checkpoint overwrites it.
    /// Whether a valid slot names an older format version: a process that upgrades the
    /// file (F30) rewrites both, and one that stopped between the two left one behind.
    static func hasOlderVersionSlot(headerRegion: [UInt8]) -> Bool {
        FileFormat.headerSlotOffsets.contains { offset in
            guard case .valid(let superblock) = decode(slot: headerRegion[offset..<offset + FileFormat.headerSlotSize]) else { return false }
            return superblock.version < FileFormat.version
        }
    }

    static func hasDamagedSlot(headerRegion: [UInt8]) -> Bool {
        FileFormat.headerSlotOffsets.contains { offset in
            switch decode(slot: headerRegion[offset..<offset + FileFormat.headerSlotSize]) {
            case .empty, .valid: return false
            default: return true
            }
        }
    }
}

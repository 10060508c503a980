/// A frame of the log (Spec section 3): a typed, checksummed, possibly compressed payload.
struct FrameHeader: Equatable, Sendable {
    var type: FrameType
    var codec: FrameCodec
    var storedLength: Int
    var rawLength: Int
    var checksum: UInt32
    var transaction: UInt64

    /// On-disk size including header and padding (F10).
    var frameSize: UInt64 { FileFormat.frameSize(storedLength: storedLength) }

    /// Parses and sanity-checks the 24 header bytes; the checksum is verified separately,
    /// once the payload is read. Returns the reason when the bytes cannot be a frame.
    static func parse(_ bytes: UnsafeRawBufferPointer, pageSize: Int) -> Result<FrameHeader, FrameError> {
        guard bytes.count >= FileFormat.frameHeaderSize else { return .failure(.truncated) }
        guard let type = FrameType(rawValue: bytes[0]) else { return .failure(.unknownType(bytes[0])) }
        let flags = bytes[1]
        guard let codec = FrameCodec(rawValue: flags), bytes[2] == 0, bytes[3] == 0 else { return .failure(.reservedBitsSet) }
        let stored = Int(bytes.loadLittleEndian(at: 4, as: UInt32.self))
        let raw = Int(bytes.loadLittleEndian(at: 8, as: UInt32.self))
        let compressed = codec != .none
        let limit = type.maximumRawLength(pageSize: pageSize)
        guard raw <= limit, stored <= raw else { return .failure(.badLength) }
        guard compressed ? stored > 0 && raw > 0 && type != .commit : stored == raw else {
            return .failure(.badLength)
        }
        guard type != .commit || raw == FileFormat.commitPayloadSize else { return .failure(.badLength) }
        return .success(FrameHeader(
            type: type,
            codec: codec,
            storedLength: stored,
            rawLength: raw,
            checksum: bytes.loadLittleEndian(at: 12, as: UInt32.self),
            transaction: bytes.loadLittleEndian(at: 16, as: UInt64.self)
        ))
    }

    /// The frame checksum: header bytes 0..<12 and 16..<24, then the stored payload.
    static func checksum(header: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer) -> UInt32 {
        var crc = CRC32C.extend(0, UnsafeRawBufferPointer(rebasing: header[0..<12]))
        crc = CRC32C.extend(crc, UnsafeRawBufferPointer(rebasing: header[16..<24]))
        return CRC32C.extend(crc, payload)
    }
}

/// Why bytes at an offset are not a valid frame.
enum FrameError: Error, Equatable, CustomStringConvertible {
    case truncated
    case unknownType(UInt8)
    case reservedBitsSet
    case badLength
    case checksumMismatch
    case decompressionFailed
    case nonZeroPadding
    case badStructure

    var description: String {
        switch self {
        case .truncated: return "frame extends past the end of the file"
        case .unknownType(let type): return "unknown frame type \(type)"
        case .reservedBitsSet: return "reserved frame header bits are set"
        case .badLength: return "frame lengths are out of range"
        case .checksumMismatch: return "frame checksum mismatch"
        case .decompressionFailed: return "frame payload does not decompress to its raw length"
        case .nonZeroPadding: return "frame padding is not zero"
        case .badStructure: return "page structure is malformed"
        }
    }
}

enum FrameEncoder {
    /// Appends a complete frame (header, payload, zero padding) to `buffer` and returns its
    /// on-disk size. The payload is compressed as `compression` says when that saves space
    /// (F11); commit frames never are. A leaf is written packed, as a packed leaf frame
    /// (F33), unless `packsLeaves` is off. `lz4Acceleration` is LZ4's effort
    /// (``LZ4/Acceleration``) when `compression` is LZ4.
    @discardableResult
    static func append(
        type: FrameType,
        payload: UnsafeRawBufferPointer,
        transaction: UInt64,
        compression: PageCompression,
        lz4Acceleration: Int32 = LZ4.Acceleration.settled,
        packsLeaves: Bool = true,
        to buffer: inout [UInt8]
    ) -> UInt64 {
        if type == .leaf, packsLeaves {
            var packed: [UInt8] = []
            if PackedLeaf.pack(payload, appendingTo: &packed) {
                return packed.withUnsafeBytes {
                    appendFrame(
                        type: .packedLeaf, payload: $0, transaction: transaction, compression: compression, lz4Acceleration: lz4Acceleration, to: &buffer
                    )
                }
            }
        }
        return appendFrame(type: type, payload: payload, transaction: transaction, compression: compression, lz4Acceleration: lz4Acceleration, to: &buffer)
    }

    private static func appendFrame(
        type: FrameType,
        payload: UnsafeRawBufferPointer,
        transaction: UInt64,
        compression: PageCompression,
        lz4Acceleration: Int32,
        to buffer: inout [UInt8]
    ) -> UInt64 {
        let start = buffer.count
        let payloadStart = start + FileFormat.frameHeaderSize
        // Room for the whole frame at once, compressed or not (LZ4's bound covers both),
        // growing geometrically: `buffer` may collect many frames.
        let needed = payloadStart + payload.count + payload.count / 255 + 16 + Int(FileFormat.frameAlignment)
        if buffer.capacity < needed { buffer.reserveCapacity(max(needed, 2 * buffer.capacity)) }
        buffer.append(type.rawValue)
        buffer.append(0)
        buffer.append(contentsOf: [0, 0])
        buffer.appendLittleEndian(UInt32(payload.count))
        buffer.appendLittleEndian(UInt32(payload.count))
        buffer.appendLittleEndian(UInt32(0))
        buffer.appendLittleEndian(transaction)
        if type != .commit, let (codec, storedLength) = compress(payload, as: compression, lz4Acceleration: lz4Acceleration, appendingTo: &buffer) {
            buffer[start + 1] = codec.rawValue
            buffer.storeLittleEndian(UInt32(storedLength), at: start + 4)
        } else {
            buffer.append(contentsOf: payload)
        }
        let checksum = buffer.withUnsafeBytes { all in
            FrameHeader.checksum(
                header: UnsafeRawBufferPointer(rebasing: all[start..<start + FileFormat.frameHeaderSize]),
                payload: UnsafeRawBufferPointer(rebasing: all[(start + FileFormat.frameHeaderSize)...])
            )
        }
        buffer.storeLittleEndian(checksum, at: start + 12)
        let size = Int(FileFormat.align(UInt64(buffer.count - start)))
        buffer.appendZeros(start + size - buffer.count)
        return UInt64(size)
    }

    /// The payload compressed onto `buffer` with its codec and length, or nil (and `buffer`
    /// as it was) when it is not to be compressed or would not save enough.
    private static func compress(
        _ payload: UnsafeRawBufferPointer, as compression: PageCompression, lz4Acceleration: Int32, appendingTo buffer: inout [UInt8]
    ) -> (FrameCodec, Int)? {
        switch compression {
        case .none:
            return nil
        case .lz4:
            return LZ4.compressIfWorthwhile(payload, acceleration: lz4Acceleration, appendingTo: &buffer).map { (.lz4, $0) }
        case .zstd(let level):
            return Zstd.compressIfWorthwhile(payload, level: level, appendingTo: &buffer).map { (.zstd, $0) }
        }
    }
}

/// How a frame's payload is stored: its flags byte (F11).
enum FrameCodec: UInt8, Sendable {
    case none = 0
    case lz4 = 1
    case zstd = 2
}

enum FrameDecoder {
    /// Verifies the checksum of a frame whose header and stored payload are in `bytes`
    /// (header at 0), then returns the raw payload (decompressed when needed); a packed
    /// leaf's as the leaf it holds, table and all (F33), at most a page of `pageSize`,
    /// unless `unpacksLeaves` is false (the caller unpacks it, as ``PageNode`` does).
    static func payload(
        of header: FrameHeader, in bytes: UnsafeRawBufferPointer, pageSize: Int, unpacksLeaves: Bool = true
    ) -> Result<[UInt8], FrameError> {
        let stored = storedPayload(of: header, in: bytes)
        guard unpacksLeaves, header.type == .packedLeaf, case .success(let packed) = stored else { return stored }
        guard let leaf = packed.withUnsafeBytes({ PackedLeaf.unpack($0, limit: FileFormat.maximumPagePayload(pageSize: pageSize)) }) else {
            return .failure(.badStructure)
        }
        return .success(leaf)
    }

    private static func storedPayload(of header: FrameHeader, in bytes: UnsafeRawBufferPointer) -> Result<[UInt8], FrameError> {
        let end = FileFormat.frameHeaderSize + header.storedLength
        guard bytes.count >= end else { return .failure(.truncated) }
        let stored = UnsafeRawBufferPointer(rebasing: bytes[FileFormat.frameHeaderSize..<end])
        let computed = FrameHeader.checksum(header: bytes, payload: stored)
        guard computed == header.checksum else { return .failure(.checksumMismatch) }
        let raw: [UInt8]?
        switch header.codec {
        case .none: return .success(Array(stored))
        case .lz4: raw = LZ4.decompress(stored, rawLength: header.rawLength)
        case .zstd: raw = Zstd.decompress(stored, rawLength: header.rawLength)
        }
        guard let raw else { return .failure(.decompressionFailed) }
        return .success(raw)
    }
}

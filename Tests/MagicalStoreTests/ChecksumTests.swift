import Testing
@testable import MagicalStore

/// CRC32C as Spec section 3 defines it, checked against a bit-at-a-time reference.
@Suite struct ChecksumTests {
    /// The definition, one bit at a time: reflected polynomial 0x82F63B78, initial value and
    /// final xor 0xFFFFFFFF.
    static func reference(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        return ~crc
    }

    @Test func knownAnswer() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(Self.reference(Array("123456789".utf8)) == 0xE306_9283)
        // RFC 3720 (iSCSI) B.4: 32 bytes of zeros, and of 0xFF.
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
    }

    @Test func emptyInput() {
        #expect(CRC32C.checksum([]) == 0)
        #expect([UInt8]().withUnsafeBytes { CRC32C.extend(0x1234_5678, $0) } == 0x1234_5678)
    }

    /// Every length around the 8-byte stride, at every alignment, matches the reference.
    @Test func matchesTheReferenceAtEveryLengthAndAlignment() {
        var random = SeededGenerator(seed: 5)
        let buffer = random.bytes(count: 300)
        for start in 0..<8 {
            for length in 0..<(300 - start) {
                let piece = Array(buffer[start..<start + length])
                #expect(CRC32C.checksum(piece) == Self.reference(piece), "start \(start), length \(length)")
            }
        }
    }

    @Test func extendingPieceByPieceEqualsTheWhole() {
        var random = SeededGenerator(seed: 9)
        let bytes = random.bytes(count: 5000)
        let whole = CRC32C.checksum(bytes)
        bytes.withUnsafeBytes { all in
            for split in [0, 1, 7, 8, 9, 63, 64, 2500, 4999, 5000] {
                let first = CRC32C.extend(0, UnsafeRawBufferPointer(rebasing: all[..<split]))
                #expect(CRC32C.extend(first, UnsafeRawBufferPointer(rebasing: all[split...])) == whole)
            }
            var crc: UInt32 = 0
            var offset = 0
            while offset < all.count {
                let length = min(Int.random(in: 0...100, using: &random), all.count - offset)
                crc = CRC32C.extend(crc, UnsafeRawBufferPointer(rebasing: all[offset..<offset + length]))
                offset += length
            }
            #expect(crc == whole)
        }
    }
}

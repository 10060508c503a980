/// The 128-bit FNV-1a hash (Fowler, Noll, Vo; IETF draft-eastlake-fnv): simple, fixed and
/// the same on every machine and Swift version, unlike `Hasher`, which is seeded per
/// process. Not cryptographic: it tells models apart, it does not resist forgery.
struct FNV1a128 {
    private var high: UInt64 = 0x6c62_272e_07bb_0142
    private var low: UInt64 = 0x62b8_2175_6295_c58d

    mutating func add<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        for byte in bytes {
            low ^= UInt64(byte)
            // Multiply by the FNV prime 2^88 + 0x13B, modulo 2^128, on two 64-bit halves.
            let (carry, product) = low.multipliedFullWidth(by: 0x13B)
            high = high &* 0x13B &+ carry &+ (low << 24)
            low = product
        }
    }

    /// 32 lower-case hex digits, most significant first.
    var hex: String {
        [high, low].map { half in
            let digits = String(half, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }
}

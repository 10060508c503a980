import MagicalStore

/// The engine's headline workload: N keys of 16 bytes with 100-byte values, deterministic.
struct Workload {
    let count: Int
    let randomValues: Bool

    /// Key `index`: 8 bytes of the index and 8 of a hash of it, big-endian, so keys sort by
    /// index and lookups can rebuild any key without a table.
    static func key(_ index: Int) -> [UInt8] {
        var key = [UInt8](repeating: 0, count: 16)
        key.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: UInt64(index).bigEndian, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: (UInt64(index) &* 0x9E37_79B9_7F4A_7C15).bigEndian, toByteOffset: 8, as: UInt64.self)
        }
        return key
    }

    /// A 100-byte value: record-like text (compressible, as app data is) or random bytes.
    func value(_ index: Int, generator: inout SplitMix64) -> [UInt8] {
        if randomValues {
            return (0..<100).map { _ in UInt8.random(in: 0...255, using: &generator) }
        }
        let names = ["Abbott", "Baker", "Chandra", "Dubois", "Eriksen", "Fischer", "Garcia", "Haddad"]
        let text = #"{"id":\#(index),"name":"\#(names[index % names.count])","age":\#(18 + index % 70),"dept":\#(index % 100),"salary":\#(30_000 + index % 90_000)}"#
        var bytes = Array(text.utf8.prefix(100))
        bytes.append(contentsOf: repeatElement(0x20, count: 100 - bytes.count))
        return bytes
    }

    /// All entries in ascending key order.
    func sortedEntries() -> [(key: [UInt8], value: [UInt8])] {
        var generator = SplitMix64(seed: 1)
        return (0..<count).map { (Self.key($0), value($0, generator: &generator)) }
    }
}

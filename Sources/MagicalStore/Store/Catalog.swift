/// The catalog's records (Spec section 5): tree name to root page and entry count.
enum Catalog {
    struct Entry: Equatable, Sendable {
        var root: UInt64
        var count: UInt64
    }

    static func key(for name: String) throws -> [UInt8] {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= FileFormat.maximumTreeNameLength else {
            throw StoreError.invalidTreeName(name)
        }
        return bytes
    }

    static func encode(_ entry: Entry) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(FileFormat.catalogValueSize)
        bytes.appendLittleEndian(entry.root)
        bytes.appendLittleEndian(entry.count)
        bytes.appendLittleEndian(UInt64(0))
        return bytes
    }

    /// Decodes a catalog value; `offset` locates the catalog page for the error.
    static func decode(_ bytes: [UInt8], name: [UInt8]) throws -> Entry {
        guard bytes.count == FileFormat.catalogValueSize else {
            throw StoreError.corrupt(offset: 0, reason: "catalog entry for \"\(String(decoding: name, as: UTF8.self))\" has \(bytes.count) bytes")
        }
        return bytes.withUnsafeBytes { raw in
            Entry(root: raw.loadLittleEndian(at: 0, as: UInt64.self), count: raw.loadLittleEndian(at: 8, as: UInt64.self))
        }
    }
}

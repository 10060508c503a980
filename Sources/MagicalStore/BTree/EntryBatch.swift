/// Entries for one tree, their keys and values laid end to end in one buffer: a batch of
/// thousands costs a few allocations, where an array per key and per value cost two
/// allocations and two frees an entry, and a batch put read each key's array out of the
/// heap in sorted order, a cache miss a key.
///
/// Build it with ``append(key:value:)``, or with ``append(writingKey:value:)`` to encode a
/// key and value straight into the buffer; `TreeWriter.putBatch` stores it.
public struct EntryBatch: Sendable {
    /// Each entry's key bytes and then its value bytes, entry after entry.
    private var bytes: [UInt8] = []
    /// Where each entry's key starts in `bytes`, and where its value does (its key's end);
    /// a value ends where the next key starts, the last at the end of `bytes`.
    private var keyStarts: [Int] = []
    private var valueStarts: [Int] = []

    public init() {}

    /// An empty batch with room for `entries` entries of `bytes` bytes in all.
    public init(minimumCapacity entries: Int, bytes: Int) {
        keyStarts.reserveCapacity(entries)
        valueStarts.reserveCapacity(entries)
        self.bytes.reserveCapacity(bytes)
    }

    /// The entries of `pairs`, in order.
    public init(_ pairs: [(key: [UInt8], value: [UInt8])]) {
        self.init(minimumCapacity: pairs.count, bytes: pairs.reduce(0) { $0 + $1.key.count + $1.value.count })
        for (key, value) in pairs { append(key: key, value: value) }
    }

    /// Entries of `keys` with empty values: keys to look up or prefixes to scan.
    public init(keys: [[UInt8]]) {
        self.init(keys.map { ($0, []) })
    }

    /// Entries with empty values whose keys are each one integer of `numbers`, in order
    /// (``KeyEncoding/encode(_:)`` of `.int`): an import's keys to look up, its objects'
    /// numbers. Written in one pass into storage sized first: appended value by value, byte
    /// by byte, they were a fifth of an import's key look-up (callgrind, 1M records).
    public init(integerKeys numbers: [Int64]) {
        let byteCount = numbers.reduce(0) { $0 + KeyEncoding.encodedLength(ofInteger: $1) }
        var starts = [Int](repeating: 0, count: numbers.count)
        var ends = [Int](repeating: 0, count: numbers.count)
        bytes = [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, initialized in
            var offset = 0
            for (index, number) in numbers.enumerated() {
                starts[index] = offset
                offset += KeyEncoding.writeInteger(number, to: UnsafeMutableRawPointer(buffer.baseAddress! + offset))
                ends[index] = offset
            }
            initialized = offset
        }
        keyStarts = starts
        valueStarts = ends
    }

    public var count: Int { keyStarts.count }
    public var isEmpty: Bool { keyStarts.isEmpty }

    public mutating func append(key: some Collection<UInt8>, value: some Collection<UInt8>) {
        keyStarts.append(bytes.count)
        bytes.append(contentsOf: key)
        valueStarts.append(bytes.count)
        bytes.append(contentsOf: value)
    }

    /// Appends an entry whose key `key` and then value `value` append to the buffer they
    /// are given (neither may change what is already there).
    public mutating func append(writingKey key: (inout [UInt8]) -> Void, value: (inout [UInt8]) -> Void) {
        keyStarts.append(bytes.count)
        key(&bytes)
        valueStarts.append(bytes.count)
        value(&bytes)
    }

    /// Appends the entries of `other`, in order.
    public mutating func append(contentsOf other: EntryBatch) {
        let shift = bytes.count
        keyStarts.append(contentsOf: other.keyStarts.lazy.map { $0 + shift })
        valueStarts.append(contentsOf: other.valueStarts.lazy.map { $0 + shift })
        bytes.append(contentsOf: other.bytes)
    }

    /// The indices of the entries in ascending key order (equal keys by index).
    public func keyOrder() -> [Int] {
        withEntries { entries in KeyOrder.ascending(count: entries.count) { entries.key($0) } }
    }

    /// The entries at `order`'s indices, in that order.
    public func reordered(_ order: [Int]) -> EntryBatch {
        var reordered = EntryBatch(minimumCapacity: order.count, bytes: bytes.count)
        withEntries { entries in
            for index in order { reordered.append(key: entries.key(index), value: entries.value(index)) }
        }
        return reordered
    }

    /// Drops the last entry (one found unfit after it was written); the batch must not be
    /// empty.
    public mutating func removeLast() {
        bytes.removeSubrange(keyStarts.removeLast()...)
        valueStarts.removeLast()
    }

    /// The byte length of entry `index`'s key.
    public func keyLength(at index: Int) -> Int {
        valueStarts[index] - keyStarts[index]
    }

    /// The key and value of entry `index`, as arrays.
    public subscript(index: Int) -> (key: [UInt8], value: [UInt8]) {
        (Array(bytes[keyStarts[index]..<valueStarts[index]]), Array(bytes[valueStarts[index]..<end(of: index)]))
    }

    private func end(of index: Int) -> Int {
        index + 1 < keyStarts.count ? keyStarts[index + 1] : bytes.count
    }

    /// Calls `body` with the batch's entries as borrowed bytes (valid only during the call).
    func withEntries<T>(_ body: (Entries) throws -> T) rethrows -> T {
        try bytes.withUnsafeBytes { raw in
            try keyStarts.withUnsafeBufferPointer { keyStarts in
                try valueStarts.withUnsafeBufferPointer { valueStarts in
                    try body(Entries(raw: raw, keyStarts: keyStarts, valueStarts: valueStarts))
                }
            }
        }
    }

    /// A batch's entries, borrowed.
    struct Entries {
        let raw: UnsafeRawBufferPointer
        let keyStarts: UnsafeBufferPointer<Int>
        let valueStarts: UnsafeBufferPointer<Int>

        var count: Int { keyStarts.count }

        func key(_ index: Int) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(rebasing: raw[keyStarts[index]..<valueStarts[index]])
        }

        func value(_ index: Int) -> UnsafeRawBufferPointer {
            let end = index + 1 < keyStarts.count ? keyStarts[index + 1] : raw.count
            return UnsafeRawBufferPointer(rebasing: raw[valueStarts[index]..<end])
        }
    }
}

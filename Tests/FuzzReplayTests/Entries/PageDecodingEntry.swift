@testable import MagicalStore

/// Shared by the libFuzzer target (Fuzz/) and the corpus replay in `make test`.
///
/// The first byte picks a page size and a page kind; the rest is taken six ways, each of
/// which must end in a typed failure or in values that answer every accessor without
/// trapping (Spec F10-F18, F25, F27, F32, F33): as a frame (header then stored payload),
/// as an LZ4 block and as Zstandard frames of a claimed length, as a packed leaf (unpacked,
/// and read straight into a page), as a page payload handed straight to the page parser
/// (the frame checksum would keep most mutations away from the last four), and as a leaf
/// delta applied to a sound leaf.
func fuzzPageDecoding(_ input: UnsafeRawBufferPointer) {
    guard let selector = input.first else { return }
    let pageSize = 512 << Int(selector & 7)
    let bytes = UnsafeRawBufferPointer(rebasing: input.dropFirst())
    fuzzLeafDelta(bytes, pageSize: pageSize)

    if case .success(let header) = FrameHeader.parse(bytes, pageSize: pageSize),
       case .success(let payload) = FrameDecoder.payload(of: header, in: bytes, pageSize: pageSize) {
        precondition(
            header.type == .packedLeaf ? payload.count > header.rawLength : payload.count == header.rawLength,
            "a decoded frame's payload has the wrong length"
        )
    }
    // As a packed leaf: it unpacks to a leaf whose entries pack back to the same bytes, or not at all.
    let unpacked = PackedLeaf.unpack(bytes, limit: pageSize)
    if let leaf = unpacked {
        var packed: [UInt8] = []
        precondition(leaf.withUnsafeBytes { PackedLeaf.pack($0, appendingTo: &packed) } && packed.elementsEqual(bytes), "a leaf does not pack back to its bytes")
    }
    fuzzPackedLeafPage(bytes, unpacked: unpacked, pageSize: pageSize)
    if let raw = LZ4.decompress(bytes, rawLength: pageSize) {
        precondition(raw.count == pageSize, "decompression produced the wrong length")
    }
    if let raw = Zstd.decompress(bytes, rawLength: pageSize) {
        precondition(raw.count == pageSize, "Zstandard decompression produced the wrong length")
    }

    let isLeaf = selector & 8 != 0
    guard let page = try? PageNode(offset: 4096, frameSize: 64, transaction: 1, isLeaf: isLeaf, payload: Array(bytes)) else { return }
    var keys: [[UInt8]] = []
    for index in 0..<page.entries.count {
        keys.append(page.key(at: index))
        if isLeaf {
            _ = page.value(at: index)
            let stored = try? page.withEntry(at: index, overflow: { _ in [] }) { key, _ in Array(key) }
            precondition(stored.map { $0 == keys[index] } ?? true, "a key rebuilt from its prefix differs from the page's bytes")
        }
    }
    precondition(isLeaf || page.children.count == page.entries.count + 1, "a branch needs one more child than separators")
    // Keys in order (as a sound page has them) are searched as a linear scan finds them.
    let ordered = zip(keys, keys.dropFirst()).allSatisfy { $0.lexicographicallyPrecedes($1) }
    for key in keys + keys.map({ $0 + [0] }) + [[], [0xFF, 0xFF]] {
        let lowerBound = key.withUnsafeBytes { page.lowerBound($0) }
        let childIndex = key.withUnsafeBytes { page.childIndex(for: $0) }
        precondition((0...page.entries.count).contains(lowerBound), "lowerBound out of range")
        precondition((0...page.entries.count).contains(childIndex), "childIndex out of range")
        guard ordered else { continue }
        precondition(lowerBound == (keys.firstIndex { !$0.lexicographicallyPrecedes(key) } ?? keys.count), "lowerBound misses")
        precondition(childIndex == (keys.firstIndex { key.lexicographicallyPrecedes($0) } ?? keys.count), "childIndex misses")
    }
}

/// A sound leaf of a few short keys, the base deltas are applied to.
private let deltaBaseEntries: [[UInt8]: [UInt8]] = [[1]: [10], [3]: [30], [5, 0]: [50, 50], [0x80]: []]

/// `bytes` as a leaf delta payload on a sound base: it parses or not, and a merge it
/// passes is a sound leaf with exactly the base's entries updated by the delta's.
private func fuzzLeafDelta(_ bytes: UnsafeRawBufferPointer, pageSize: Int) {
    guard let parsed = LeafDelta.parse(bytes) else { return }
    var entries = LeafEntries()
    for key in deltaBaseEntries.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
        entries.append(key, .inline(deltaBaseEntries[key]!))
    }
    var payload: [UInt8] = []
    entries.encode(into: &payload)
    guard let base = try? PageNode(offset: 4096, frameSize: 64, transaction: 1, isLeaf: true, payload: payload) else {
        preconditionFailure("the fuzz base leaf does not parse")
    }
    guard let merged = LeafDelta.merge(parsed, delta: bytes, base: base, pageSize: pageSize) else { return }
    guard let page = try? PageNode(offset: 8192, frameSize: 64, transaction: 1, isLeaf: true, payload: merged.payload, delta: merged.delta) else {
        preconditionFailure("a merged leaf does not parse")
    }
    var expected = deltaBaseEntries.mapValues { LeafValue.inline($0) }
    for entry in parsed.entries {
        let key = Array(bytes[entry.keyStart..<entry.keyStart + entry.keyLength])
        if entry.isRemoval {
            expected[key] = nil
        } else {
            expected[key] = try? PageNode(offset: 4096, frameSize: 64, transaction: 1, isLeaf: true, payload: deltaEntryAsLeaf(bytes, entry)).value(at: 0)
        }
    }
    precondition(page.count == expected.count, "a merged leaf has the wrong number of entries")
    for index in 0..<page.count {
        let key = page.key(at: index)
        precondition(index == 0 || page.key(at: index - 1).lexicographicallyPrecedes(key), "a merged leaf's keys are out of order")
        precondition(expected[key] == page.value(at: index), "a merged leaf's entry differs from the base updated by the delta")
    }
    // A copy of the merged page carries the delta on: its changed entries are the puts.
    precondition(merged.delta.changedEntries.count == parsed.entries.filter { !$0.isRemoval }.count, "changed entries miscounted")
}

/// One delta entry as a one-entry leaf payload, to read its value the way a page does.
private func deltaEntryAsLeaf(_ bytes: UnsafeRawBufferPointer, _ entry: LeafDelta.Parsed.Entry) -> [UInt8] {
    var leaf: [UInt8] = [1, 0, 4, 0]
    leaf.append(contentsOf: bytes[entry.start..<entry.end])
    return leaf
}

/// `bytes` as a packed leaf frame's payload read straight into a page (the page cache's
/// path): a page exactly when unpacking and parsing make one, and then the same page,
/// to every entry's location and the memory it is counted as.
private func fuzzPackedLeafPage(_ bytes: UnsafeRawBufferPointer, unpacked: [UInt8]?, pageSize: Int) {
    let direct = try? PageNode(offset: 4096, frameSize: 64, transaction: 1, packedLeaf: Array(bytes), limit: pageSize)
    let parsed = unpacked.flatMap { try? PageNode(offset: 4096, frameSize: 64, transaction: 1, isLeaf: true, payload: $0) }
    guard let direct, let parsed else {
        precondition(direct == nil && parsed == nil, "a packed leaf reads as a page one way and not the other")
        return
    }
    precondition(direct.payload == parsed.payload, "a packed leaf read straight into a page has another payload")
    precondition(direct.memoryCost == parsed.memoryCost, "a packed leaf read straight into a page costs other memory")
    precondition(direct.entries.count == parsed.entries.count, "a packed leaf read straight into a page has other entries")
    for (made, expected) in zip(direct.entries, parsed.entries) {
        precondition(
            made.keyPrefix == expected.keyPrefix && made.keyStart == expected.keyStart && made.keyLength == expected.keyLength
                && made.valueStart == expected.valueStart && made.valueLength == expected.valueLength && made.isOverflow == expected.isOverflow,
            "a packed leaf read straight into a page locates an entry elsewhere"
        )
    }
}

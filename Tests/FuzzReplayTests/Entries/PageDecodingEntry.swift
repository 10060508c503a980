@testable import MagicalStore

/// Shared by the libFuzzer target (Fuzz/) and the corpus replay in `make test`.
///
/// The first byte picks a page size and a page kind; the rest is taken three ways, each of
/// which must end in a typed failure or in values that answer every accessor without
/// trapping (Spec F10-F18, F25): as a frame (header then stored payload), as an LZ4 block
/// of a claimed length, and as a page payload handed straight to the page parser (the
/// frame checksum would keep most mutations away from it).
func fuzzPageDecoding(_ input: UnsafeRawBufferPointer) {
    guard let selector = input.first else { return }
    let pageSize = 512 << Int(selector & 7)
    let bytes = UnsafeRawBufferPointer(rebasing: input.dropFirst())

    if case .success(let header) = FrameHeader.parse(bytes, pageSize: pageSize),
       case .success(let payload) = FrameDecoder.payload(of: header, in: bytes) {
        precondition(payload.count == header.rawLength, "a decoded frame's payload has the wrong length")
    }
    if let raw = LZ4.decompress(bytes, rawLength: pageSize) {
        precondition(raw.count == pageSize, "decompression produced the wrong length")
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

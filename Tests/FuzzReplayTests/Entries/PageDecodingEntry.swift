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
            _ = try? page.withEntry(at: index, overflow: { _ in [] }) { key, value in key.count + value.count }
        }
    }
    precondition(isLeaf || page.children.count == page.entries.count + 1, "a branch needs one more child than separators")
    for key in keys + [[], [0xFF, 0xFF]] {
        key.withUnsafeBytes { key in
            precondition((0...page.entries.count).contains(page.lowerBound(key)), "lowerBound out of range")
            precondition((0...page.entries.count).contains(page.childIndex(for: key)), "childIndex out of range")
        }
    }
}

import MagicalStore

/// Arbitrary bytes either fail to decode with a typed error or decode to values that
/// encode back to exactly the same bytes (Spec/KEY-ENCODING.md).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeyDecoding(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let values = try? KeyEncoding.decode(bytes) else { return 0 }
    precondition(KeyEncoding.encode(values) == bytes, "decode then encode changed the bytes")
    return 0
}

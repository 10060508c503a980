import MagicalStore

/// Shared by the libFuzzer target (Fuzz/) and the corpus replay in `make test`.
///
/// Arbitrary bytes either fail to decode with a typed error or decode to values that
/// encode back to exactly the same bytes (Spec/KEY-ENCODING.md).
func fuzzKeyDecoding(_ input: UnsafeRawBufferPointer) {
    let bytes = Array(input)
    guard let values = try? KeyEncoding.decode(bytes) else { return }
    precondition(KeyEncoding.encode(values) == bytes, "decode then encode changed the bytes")
}

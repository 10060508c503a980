/// libFuzzer's entry point; the check itself is shared with the corpus replay in
/// `make test` (Tests/FuzzReplayTests/Entries, linked here).
@_cdecl("LLVMFuzzerTestOneInput")
public func llvmFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzMemberRuns(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

import Testing
@testable import MagicalStore

/// Bytes appended to a buffer: zeros of any count, in and past the block they are copied
/// from, after what the buffer held.
struct ByteCodingTests {
    @Test(arguments: [0, 1, 17, 4_095, 4_096, 4_097, 10_000])
    func zerosFollowWhatWasThere(count: Int) {
        var bytes: [UInt8] = [7, 8, 9]
        bytes.appendZeros(count)
        #expect(bytes.count == 3 + count)
        #expect(bytes.prefix(3) == [7, 8, 9])
        #expect(bytes.dropFirst(3).allSatisfy { $0 == 0 })
    }
}

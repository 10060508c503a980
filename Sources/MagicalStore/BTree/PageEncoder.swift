/// Encodes branch pages into their payload bytes (Spec section 4.2); leaves encode
/// themselves (``LeafEntries/encode(into:)``).
enum PageEncoder {
    /// A branch payload: child offsets, then separator slots and keys.
    static func branch(separators: [[UInt8]], children: [UInt64], into payload: inout [UInt8]) {
        payload.removeAll(keepingCapacity: true)
        payload.appendLittleEndian(UInt16(children.count))
        for child in children { payload.appendLittleEndian(child) }
        let slotsStart = payload.count
        payload.appendZeros(2 * separators.count)
        for index in separators.indices {
            payload.storeLittleEndian(UInt16(payload.count), at: slotsStart + 2 * index)
            payload.appendVarint(separators[index].count)
            payload.append(contentsOf: separators[index])
        }
    }
}

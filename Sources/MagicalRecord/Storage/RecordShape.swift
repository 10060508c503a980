/// What a record's presence mask (O11) says of where its values lie, remembered from one
/// record to the next of a scan: an entity's records mostly share one mask, and the
/// baseline x86-64 target has no POPCNT instruction, so each bit count a header and a
/// field look-up make is a dozen instructions. One scan uses a shape at a time.
final class RecordShape {
    /// Slot numbers by attribute position.
    private let slots: [Int]
    /// The mask last seen and its value count.
    private let mask: UnsafeMutablePointer<(presence: UInt64, count: Int)>
    /// By attribute position: its value's index under that mask, -1 when absent.
    private let indices: UnsafeMutableBufferPointer<Int>

    init(attributeSlots: [Int]) {
        slots = attributeSlots
        mask = .allocate(capacity: 1)
        indices = .allocate(capacity: max(attributeSlots.count, 1))
        learn(0)
    }

    deinit {
        mask.deallocate()
        indices.deallocate()
    }

    /// The number of values `presence` holds, learning its layout when it is not the
    /// last one seen: pass it as a header's value count.
    @inline(__always)
    func valueCount(_ presence: UInt64) -> Int {
        if presence != mask.pointee.presence { learn(presence) }
        return mask.pointee.count
    }

    /// The value index of attribute `position` in the record whose header was read last
    /// with ``valueCount(_:)``; nil when that record lacks it.
    @inline(__always)
    func valueIndex(ofAttribute position: Int) -> Int? {
        let index = indices[position]
        return index >= 0 ? index : nil
    }

    private func learn(_ presence: UInt64) {
        mask.pointee = (presence, presence.nonzeroBitCount)
        for position in slots.indices {
            let slot = slots[position]
            let present = slot < RecordLayout.maskedSlots && presence & (1 << UInt64(slot)) != 0
            indices[position] = present ? (presence & ((1 << UInt64(slot)) - 1)).nonzeroBitCount : -1
        }
    }
}

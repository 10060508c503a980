/// Encodes tree pages into their payload bytes (Spec sections 4.1 and 4.2).
enum PageEncoder {
    /// A leaf payload. Every value must already be inline or a written overflow reference.
    static func leaf(keys: [[UInt8]], values: [LeafValue], into payload: inout [UInt8]) {
        payload.removeAll(keepingCapacity: true)
        payload.appendLittleEndian(UInt16(keys.count))
        let slotsStart = payload.count
        payload.append(contentsOf: repeatElement(0, count: 2 * keys.count))
        for index in keys.indices {
            payload.storeLittleEndian(UInt16(payload.count), at: slotsStart + 2 * index)
            payload.appendVarint(keys[index].count)
            payload.append(contentsOf: keys[index])
            switch values[index] {
            case .inline(let bytes):
                payload.append(0)
                payload.appendVarint(bytes.count)
                payload.append(contentsOf: bytes)
            case .overflow(let reference):
                payload.append(1)
                payload.appendLittleEndian(reference.offset)
                payload.appendLittleEndian(reference.frameSize)
                payload.appendLittleEndian(reference.length)
            case .pendingOverflow:
                preconditionFailure("overflow values are written before their leaf")
            }
        }
    }

    /// A branch payload: child offsets, then separator slots and keys.
    static func branch(separators: [[UInt8]], children: [UInt64], into payload: inout [UInt8]) {
        payload.removeAll(keepingCapacity: true)
        payload.appendLittleEndian(UInt16(children.count))
        for child in children { payload.appendLittleEndian(child) }
        let slotsStart = payload.count
        payload.append(contentsOf: repeatElement(0, count: 2 * separators.count))
        for index in separators.indices {
            payload.storeLittleEndian(UInt16(payload.count), at: slotsStart + 2 * index)
            payload.appendVarint(separators[index].count)
            payload.append(contentsOf: separators[index])
        }
    }
}

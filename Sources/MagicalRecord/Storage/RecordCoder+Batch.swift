import Dispatch
import MagicalStore

extension RecordCoder {
    /// The object-tree key and record of each state at `positions` of `states` (read where
    /// they lie), in that order, in one buffer. A commit's batch of thousands is encoded in
    /// parts on up to `threads` threads (at most four), the calling one among them.
    func encodedRecords(_ states: [ObjectState], at positions: ArraySlice<Int>, threads: Int) -> EntryBatch {
        let parts = positions.count < Self.statesPerPart ? 1 : min(threads, 4)
        guard parts > 1 else { return encodedRecords(states, at: positions) }
        var batches = [EntryBatch](repeating: EntryBatch(), count: parts)
        batches.withUnsafeMutableBufferPointer { buffer in
            // Each part writes only its own slot.
            let slots = PartSlots(buffer)
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                let start = positions.startIndex
                let range = start + positions.count * part / parts..<start + positions.count * (part + 1) / parts
                slots.buffer[part] = encodedRecords(states, at: positions[range])
            }
        }
        var records = batches[0]
        for part in batches.dropFirst() { records.append(contentsOf: part) }
        return records
    }

    private func encodedRecords(_ states: [ObjectState], at positions: ArraySlice<Int>) -> EntryBatch {
        var records = EntryBatch(minimumCapacity: positions.count, bytes: positions.count * Self.typicalEntryBytes)
        appendRecords(states, at: positions, to: &records)
        return records
    }

    /// Appends the object-tree key and record of each state at `positions` of `states` to
    /// `records`, on the calling thread.
    func appendRecords(_ states: [ObjectState], at positions: ArraySlice<Int>, to records: inout EntryBatch) {
        var builder = RecordLayout.Builder()
        for position in positions {
            let state = states[position]
            records.append(
                writingKey: { StoreLayout.appendObjectKey(state.id.number, to: &$0) },
                value: { encode(state, using: &builder, into: &$0) }
            )
        }
    }

    /// Below this many states a batch is encoded on the calling thread.
    static let statesPerPart = 4096

    /// Room reserved per record: most are smaller, and the buffer grows for the others.
    static let typicalEntryBytes = 64
}

/// The result slots of a parallel encoding, shared by parts that write disjoint slots.
private struct PartSlots: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<EntryBatch>
    init(_ buffer: UnsafeMutableBufferPointer<EntryBatch>) { self.buffer = buffer }
}

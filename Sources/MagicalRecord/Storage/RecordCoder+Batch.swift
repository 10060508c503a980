import Dispatch
import Foundation

extension RecordCoder {
    /// The object-tree key and record of each state at `positions` of `states` (read where
    /// they lie), in that order. A commit's batch of thousands is encoded in parts on every
    /// core: the committing thread is an import's whole time, while the core that reads the
    /// next batch ahead is often idle.
    func encodedRecords(_ states: [ObjectState], at positions: [Int]) -> [(key: [UInt8], value: [UInt8])] {
        let parts = positions.count < Self.statesPerPart ? 1 : min(ProcessInfo.processInfo.activeProcessorCount, 4)
        guard parts > 1 else {
            var builder = RecordLayout.Builder()
            return positions.map { (StoreLayout.objectKey(states[$0].id.number), encode(states[$0], using: &builder)) }
        }
        var records = [(key: [UInt8], value: [UInt8])](repeating: ([], []), count: positions.count)
        records.withUnsafeMutableBufferPointer { buffer in
            // Each part writes only its own range of slots.
            let slots = RecordSlots(buffer)
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                var builder = RecordLayout.Builder()
                for index in positions.count * part / parts..<positions.count * (part + 1) / parts {
                    let state = positions[index]
                    slots.buffer[index] = (StoreLayout.objectKey(states[state].id.number), encode(states[state], using: &builder))
                }
            }
        }
        return records
    }

    /// Below this many states a batch is encoded on the calling thread.
    static let statesPerPart = 4096
}

/// The result slots of a parallel encoding, shared by parts that write disjoint ranges.
private struct RecordSlots: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<(key: [UInt8], value: [UInt8])>
    init(_ buffer: UnsafeMutableBufferPointer<(key: [UInt8], value: [UInt8])>) { self.buffer = buffer }
}

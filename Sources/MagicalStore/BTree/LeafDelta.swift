/// A full leaf frame that a leaf delta applies to (Spec F28).
struct LeafBase: Equatable, Sendable {
    var offset: UInt64
    /// On-disk size of the base frame: live while a delta on it is (F28).
    var frameSize: UInt64
}

/// What a page read from a leaf delta frame keeps beside its merged entries: the base, and
/// what the delta changes, which a write transaction copying the page carries on so its
/// next delta still holds every difference from the base (F28).
struct LeafDelta: Sendable {
    var base: LeafBase
    /// Indices of the merged entries the delta puts, ascending.
    var changedEntries: [UInt16]
    /// The keys the delta removes, each as `varint length` and its bytes.
    var removedKeys: [UInt8]

    /// Bytes the page holds for this beside its entries.
    var memoryCost: Int { changedEntries.count * 2 + removedKeys.count + 64 }


    /// A delta frame's payload, read up to its entries (section 4.3).
    struct Parsed {
        /// One delta entry: the whole entry's bytes, and its key's.
        struct Entry {
            var start: Int
            var end: Int
            var keyStart: Int
            var keyLength: Int
            var isRemoval: Bool
        }

        var base: LeafBase
        var entries: [Entry]
    }

    /// Reads a delta payload's header and entries, checking that each lies inside the
    /// payload, has a known kind, and that keys ascend strictly (F27). Nil when not.
    static func parse(_ raw: UnsafeRawBufferPointer) -> Parsed? {
        var header = ByteReader(raw)
        guard let baseOffset = header.read(UInt64.self), let baseSize = header.read(UInt32.self),
              let count = header.read(UInt16.self), count > 0
        else { return nil }
        let bodyStart = FileFormat.leafDeltaHeaderSize
        let body = UnsafeRawBufferPointer(rebasing: raw[bodyStart...])
        var entries: [Parsed.Entry] = []
        entries.reserveCapacity(Int(count))
        for index in 0..<Int(count) {
            guard let read = LeafLayoutEntry.read(body, entry: index, allowsRemoval: true) else { return nil }
            let entry = Parsed.Entry(
                start: bodyStart + read.start, end: bodyStart + read.end, keyStart: bodyStart + read.keyStart,
                keyLength: read.keyLength, isRemoval: read.kind == LeafLayoutEntry.removedKind
            )
            if let previous = entries.last, compareBytes(key(of: previous, in: raw), key(of: entry, in: raw)) >= 0 {
                return nil
            }
            entries.append(entry)
        }
        return Parsed(base: LeafBase(offset: baseOffset, frameSize: UInt64(baseSize)), entries: entries)
    }

    private static func key(of entry: Parsed.Entry, in raw: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: raw[entry.keyStart..<entry.keyStart + entry.keyLength])
    }

    /// The leaf payload of `base` with the delta's entries applied (F27), with what the page
    /// keeps of the delta, or nil when that leaf would be empty or larger than a page.
    static func merge(
        _ parsed: Parsed, delta raw: UnsafeRawBufferPointer, base: PageNode, pageSize: Int
    ) -> (payload: [UInt8], delta: LeafDelta)? {
        // Pieces of the merged leaf in key order: entry bytes from the base or the delta.
        var pieces: [(fromDelta: Bool, start: Int, end: Int)] = []
        pieces.reserveCapacity(base.entries.count + parsed.entries.count)
        var changedEntries: [UInt16] = []
        var removedKeys: [UInt8] = []
        var baseIndex = 0
        // The base's entries below `key`, found by a search, not a comparison per entry: a
        // delta changes a few entries of hundreds.
        func takeBase(below key: UnsafeRawBufferPointer?) {
            let stop = key.map { max(baseIndex, base.lowerBound($0)) } ?? base.entries.count
            while baseIndex < stop {
                let location = base.entries[baseIndex]
                pieces.append((false, base.entryStart(at: baseIndex), Int(location.valueStart) + Int(location.valueLength)))
                baseIndex += 1
            }
        }
        for entry in parsed.entries {
            let key = key(of: entry, in: raw)
            takeBase(below: key)
            // The delta's entry replaces or removes the base's under the same key.
            if baseIndex < base.entries.count, base.compareKey(at: baseIndex, with: key) == 0 { baseIndex += 1 }
            if entry.isRemoval {
                removedKeys.appendVarint(key.count)
                removedKeys.append(contentsOf: key)
            } else {
                changedEntries.append(UInt16(truncatingIfNeeded: pieces.count))
                pieces.append((true, entry.start, entry.end))
            }
        }
        takeBase(below: nil)
        guard !pieces.isEmpty else { return nil }
        var size = 2 + 2 * pieces.count
        for piece in pieces { size += piece.end - piece.start }
        guard size <= pageSize, pieces.count <= Int(UInt16.max) else { return nil }
        var payload: [UInt8] = []
        payload.reserveCapacity(size)
        payload.appendLittleEndian(UInt16(pieces.count))
        var offset = 2 + 2 * pieces.count
        for piece in pieces {
            payload.appendLittleEndian(UInt16(offset))
            offset += piece.end - piece.start
        }
        // Pieces that follow each other in one source are copied at once: a base's
        // unchanged entries lie end to end.
        base.payload.withUnsafeBytes { basePayload in
            var run: (fromDelta: Bool, start: Int, end: Int)?
            func copyRun() {
                guard let run else { return }
                let source = run.fromDelta ? raw : basePayload
                payload.append(contentsOf: UnsafeRawBufferPointer(rebasing: source[run.start..<run.end]))
            }
            for piece in pieces {
                if let current = run, piece.fromDelta == current.fromDelta, piece.start == current.end {
                    run?.end = piece.end
                    continue
                }
                copyRun()
                run = piece
            }
            copyRun()
        }
        return (payload, LeafDelta(base: parsed.base, changedEntries: changedEntries, removedKeys: removedKeys))
    }
}

/// One store file as readers see it: its descriptor and its page cache. Compaction
/// replaces the file with a new `StoreFile`; snapshots of the old one keep it (and its
/// open descriptor) alive until they end, so they read on undisturbed (Spec section 7).
final class StoreFile: Sendable {
    let file: any StorageFile
    let pageSize: Int
    let cache: PageCache

    init(file: any StorageFile, pageSize: Int, cacheBytes: Int) {
        self.file = file
        self.pageSize = pageSize
        self.cache = PageCache(capacityBytes: cacheBytes, pageSize: pageSize)
    }

    deinit { file.close() }

    /// Reads and verifies the frame at `offset` (F22, F25). `sizeHint` is how many bytes to
    /// read first: most frames fit, so one read usually does.
    func readFrame(at offset: UInt64, sizeHint: Int? = nil, unpacksLeaves: Bool = true) throws -> (header: FrameHeader, payload: [UInt8]) {
        guard offset >= FileFormat.headerRegionSize, offset % FileFormat.frameAlignment == 0 else {
            throw StoreError.corrupt(offset: offset, reason: "frame offset is not a valid frame position")
        }
        var bytes = try file.read(count: sizeHint ?? (FileFormat.frameHeaderSize + pageSize), at: offset)
        let header = try located(at: offset) { () throws(FrameError) in
            try bytes.withUnsafeBytes { FrameHeader.parse($0, pageSize: pageSize) }.get()
        }
        let needed = FileFormat.frameHeaderSize + header.storedLength
        if bytes.count < needed {
            bytes = try file.read(count: needed, at: offset)
            guard bytes.count == needed else { throw StoreError.corrupt(offset: offset, reason: FrameError.truncated.description) }
        }
        let payload = try located(at: offset) { () throws(FrameError) in
            try bytes.withUnsafeBytes { FrameDecoder.payload(of: header, in: $0, pageSize: pageSize, unpacksLeaves: unpacksLeaves) }.get()
        }
        return (header, payload)
    }

    /// The tree page at `offset`, from the cache or the file. `snapshot` is the reading
    /// snapshot's transaction id: a page from a later transaction is corruption (F25).
    func page(at offset: UInt64, snapshot: UInt64) throws -> PageNode {
        if let cached = cache.page(at: offset) {
            guard cached.transaction <= snapshot else { throw Self.pageFromTheFuture(offset) }
            return cached
        }
        let page = try uncachedPage(at: offset, snapshot: snapshot)
        cache.insert(page)
        return page
    }

    /// The tree page at `offset` for one use, to copy: from the cache when it is there, else
    /// read and not cached. A write transaction copies the pages its commit replaces, and
    /// compaction each page once; caching them would fill the cache with pages no one reads
    /// again (a large import evicted every useful page that way).
    func pageToCopy(at offset: UInt64, snapshot: UInt64) throws -> PageNode {
        if let cached = cache.page(at: offset) {
            guard cached.transaction <= snapshot else { throw Self.pageFromTheFuture(offset) }
            return cached
        }
        return try uncachedPage(at: offset, snapshot: snapshot)
    }

    /// The tree page at `offset`, read from the file and not cached. A leaf delta's base
    /// comes from the cache when there, else from the file without caching it (the merged
    /// page is what readers use); bases at or past `earlyFrom` (a write transaction's early
    /// pages, F21) always from the file.
    func uncachedPage(at offset: UInt64, snapshot: UInt64, earlyFrom: UInt64 = .max) throws -> PageNode {
        let (header, payload) = try readFrame(at: offset, unpacksLeaves: false)
        guard header.transaction <= snapshot else { throw Self.pageFromTheFuture(offset) }
        switch header.type {
        case .leaf, .packedLeaf, .branch:
            return try treePage(at: offset, header: header, payload: payload)
        case .leafDelta:
            return try deltaPage(at: offset, header: header, payload: payload, earlyFrom: earlyFrom)
        case .overflow, .commit:
            throw StoreError.corrupt(offset: offset, reason: "expected a tree page, found a \(header.type) frame")
        }
    }

    /// A leaf delta frame's page: its base's entries with the delta's applied (F27, F28).
    private func deltaPage(
        at offset: UInt64, header: FrameHeader, payload: [UInt8], earlyFrom: UInt64
    ) throws -> PageNode {
        guard let parsed = payload.withUnsafeBytes({ LeafDelta.parse($0) }) else {
            throw StoreError.corrupt(offset: offset, reason: FrameError.badStructure.description)
        }
        guard parsed.base.offset < offset else {
            throw StoreError.corrupt(offset: offset, reason: "leaf delta's base at \(parsed.base.offset) does not precede it")
        }
        let base = try leafBase(at: parsed.base.offset, transaction: header.transaction, cached: parsed.base.offset < earlyFrom)
        guard base.frameSize == parsed.base.frameSize else {
            throw StoreError.corrupt(offset: offset, reason: "leaf delta's base at \(parsed.base.offset) is not of the recorded size")
        }
        guard let merged = payload.withUnsafeBytes({ LeafDelta.merge(parsed, delta: $0, base: base, pageSize: FileFormat.maximumPagePayload(pageSize: pageSize)) }) else {
            throw StoreError.corrupt(offset: offset, reason: "leaf delta leaves its base empty or larger than a page")
        }
        return try located(at: offset) { () throws(FrameError) in
            try PageNode(
                offset: offset, frameSize: header.frameSize, transaction: header.transaction, isLeaf: true,
                payload: merged.payload, delta: merged.delta
            )
        }
    }

    /// A leaf delta's base: a full leaf frame of the delta's transaction or an earlier one
    /// (F28). Read as a plain leaf, never merged, so a damaged file cannot chain deltas.
    private func leafBase(at offset: UInt64, transaction: UInt64, cached mayBeCached: Bool) throws -> PageNode {
        let notALeaf = StoreError.corrupt(offset: offset, reason: "a leaf delta's base is not a leaf frame")
        if mayBeCached, let cached = cache.page(at: offset) {
            guard cached.isLeaf, cached.delta == nil else { throw notALeaf }
            guard cached.transaction <= transaction else { throw Self.pageFromTheFuture(offset) }
            return cached
        }
        let (header, payload) = try readFrame(at: offset, unpacksLeaves: false)
        guard header.type.isLeaf else { throw notALeaf }
        guard header.transaction <= transaction else { throw Self.pageFromTheFuture(offset) }
        return try treePage(at: offset, header: header, payload: payload)
    }

    /// The page of a leaf, packed leaf or branch frame at `offset`, from its payload as
    /// stored (a packed leaf's not yet unpacked).
    private func treePage(at offset: UInt64, header: FrameHeader, payload: [UInt8]) throws -> PageNode {
        try located(at: offset) { () throws(FrameError) in
            guard header.type == .packedLeaf else {
                return try PageNode(
                    offset: offset, frameSize: header.frameSize, transaction: header.transaction, isLeaf: header.type.isLeaf, payload: payload
                )
            }
            return try PageNode(
                offset: offset, frameSize: header.frameSize, transaction: header.transaction, packedLeaf: payload,
                limit: FileFormat.maximumPagePayload(pageSize: pageSize)
            )
        }
    }

    /// The bytes of an overflow value (F15).
    func overflowValue(_ reference: OverflowReference, snapshot: UInt64) throws -> [UInt8] {
        let (header, payload) = try readFrame(at: reference.offset, sizeHint: Int(reference.frameSize))
        guard header.type == .overflow, header.transaction <= snapshot,
              payload.count == Int(reference.length), header.frameSize == UInt64(reference.frameSize)
        else {
            throw StoreError.corrupt(offset: reference.offset, reason: "overflow frame does not match the reference to it")
        }
        return payload
    }

    private static func pageFromTheFuture(_ offset: UInt64) -> StoreError {
        .corrupt(offset: offset, reason: "page belongs to a transaction after the snapshot reading it")
    }
}

/// Runs `body`, turning a `FrameError` into a corruption error naming `offset`.
func located<T>(at offset: UInt64, _ body: () throws(FrameError) -> T) throws(StoreError) -> T {
    do {
        return try body()
    } catch {
        throw StoreError.corrupt(offset: offset, reason: error.description)
    }
}

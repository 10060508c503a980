/// Verifies a whole store file (Spec section 9), the way `bbolt check` does: every byte of
/// the header region, every frame live or superseded, the transaction chain, and every
/// tree reachable from the latest commit. Reads only; never modifies the file.
public struct StoreChecker {
    /// One thing wrong, located.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public var offset: UInt64
        public var message: String
        public var description: String { "offset \(offset): \(message)" }
    }

    public struct Report: Sendable {
        public var problems: [Problem] = []
        public var frames = 0
        /// Frames stored compressed, by codec (Spec F11): the rest are stored as they are.
        public var lz4Frames = 0
        public var zstdFrames = 0
        public var commits = 0
        public var latestTransaction: UInt64 = 0
        public var treeEntries = 0
        /// Leaves of the latest commit written as deltas of an earlier leaf (section 4.3).
        public var leafDeltas = 0
        /// Each tree of the latest commit, in name order, with what it takes on disk.
        public var trees: [TreeUsage] = []
        public var isSound: Bool { problems.isEmpty }
    }

    /// One tree's entries and the bytes of its frames (pages and overflow values): where a
    /// store's size goes.
    public struct TreeUsage: Sendable, Equatable {
        public var name: String
        public var entries: Int
        public var bytes: UInt64
    }

    let path: String
    let fileSystem: any StorageFileSystem
    /// Stop after this many problems: past the first few, the rest are usually echoes.
    var problemLimit = 20

    public init(path: String, fileSystem: any StorageFileSystem = PosixFileSystem()) {
        self.path = path
        self.fileSystem = fileSystem
    }

    /// Checks the file. Throws only when it cannot be read at all (missing, I/O error) or
    /// is not a store; everything else is a problem in the report.
    public func run() throws -> Report {
        let raw = try fileSystem.openFile(at: path, mode: .readOnly)
        let size = try raw.size()
        let headerRegion = try raw.read(count: Int(FileFormat.headerRegionSize), at: 0)
        let superblock = try Superblock.inForce(headerRegion: headerRegion, path: path)
        let file = StoreFile(file: raw, pageSize: superblock.pageSize, cacheBytes: 8 << 20)
        var report = Report()
        checkHeaderRegion(headerRegion, into: &report)
        guard let latest = checkLog(file: file, size: size, superblock: superblock, into: &report) else {
            return report
        }
        report.latestTransaction = latest.transaction
        var walker = TreeWalker(reader: SnapshotReader(file: file, transaction: latest.transaction), report: report, limit: problemLimit)
        let reachable = walker.checkAll(commit: latest)
        report = walker.report
        if report.isSound && reachable != latest.record.liveBytes {
            report.problems.append(Problem(
                offset: latest.offset,
                message: "commit says \(latest.record.liveBytes) live bytes, \(reachable) are reachable"
            ))
        }
        return report
    }

    private func checkHeaderRegion(_ region: [UInt8], into report: inout Report) {
        for offset in FileFormat.headerSlotOffsets {
            let slot = Superblock.decode(slot: region[offset..<offset + FileFormat.headerSlotSize])
            switch slot {
            case .empty, .valid: break
            default: report.problems.append(Problem(offset: UInt64(offset), message: "header slot is damaged (\(slot))"))
            }
        }
        // The padding is every byte around the slots.
        var paddingStart = 0
        for slotStart in FileFormat.headerSlotOffsets.sorted() + [region.count] {
            let padding = region[min(paddingStart, slotStart)..<slotStart]
            if let bad = padding.firstIndex(where: { $0 != 0 }) {
                report.problems.append(Problem(offset: UInt64(bad), message: "header padding is not zero"))
                break
            }
            paddingStart = slotStart + FileFormat.headerSlotSize
        }
    }

    /// Walks every frame from the first to the end of the file; returns the latest commit.
    private func checkLog(file: StoreFile, size: UInt64, superblock: Superblock, into report: inout Report) -> CommitPoint? {
        let scanner = Recovery(file: file, fileSize: size)
        var latest: CommitPoint?
        var transactionStart = FileFormat.headerRegionSize
        var checkpointSeen = false
        var firstTransaction: UInt64?
        var position = FileFormat.headerRegionSize
        while position < size {
            let frame: (header: FrameHeader, payload: [UInt8])
            do {
                frame = try scanner.scanFrame(at: position)
            } catch {
                let kind = latest.map { position == $0.end } ?? false ? "torn tail or damaged frame" : "damaged frame"
                report.problems.append(Problem(offset: position, message: "\(kind): \(error)"))
                return latest
            }
            report.frames += 1
            switch frame.header.codec {
            case .none: break
            case .lz4: report.lz4Frames += 1
            case .zstd: report.zstdFrames += 1
            }
            // The file's first transaction may have any id (F19); every later one counts up.
            let expectedTransaction = latest.map { $0.transaction + 1 } ?? firstTransaction ?? frame.header.transaction
            firstTransaction = firstTransaction ?? frame.header.transaction
            if frame.header.transaction != expectedTransaction {
                report.problems.append(Problem(offset: position, message: "frame has transaction \(frame.header.transaction), expected \(expectedTransaction)"))
                return latest
            }
            let end = position + frame.header.frameSize
            if frame.header.type == .commit {
                guard let record = CommitRecord(payload: frame.payload),
                      record.firstFrame == transactionStart,
                      record.previousCommit == (latest?.offset ?? 0)
                else {
                    report.problems.append(Problem(offset: position, message: "commit record does not continue the transaction chain"))
                    return latest
                }
                latest = CommitPoint(offset: position, transaction: frame.header.transaction, record: record, end: end)
                report.commits += 1
                if position == superblock.checkpointOffset && frame.header.transaction == superblock.checkpointTransaction {
                    checkpointSeen = true
                }
                transactionStart = end
            }
            position = end
        }
        if let latest, latest.end < size {
            report.problems.append(Problem(offset: latest.end, message: "torn tail: \(size - latest.end) bytes after the last commit"))
        }
        if latest == nil {
            report.problems.append(Problem(offset: FileFormat.headerRegionSize, message: "no commit in the file"))
        } else if !checkpointSeen {
            report.problems.append(Problem(offset: superblock.checkpointOffset, message: "the header's checkpoint is not a commit of the file"))
        }
        return latest
    }
}

/// Walks the trees of one commit, checking F14-F18 and counting reachable bytes.
private struct TreeWalker {
    let reader: SnapshotReader
    var report: StoreChecker.Report
    let limit: Int
    /// Pages reached from a parent, and the bases of leaf deltas among them: a base counts
    /// once, under one delta, and is never reached as a page too (F28).
    private var pagesReached: Set<UInt64> = []
    private var deltaBases: Set<UInt64> = []

    init(reader: SnapshotReader, report: StoreChecker.Report, limit: Int) {
        self.reader = reader
        self.report = report
        self.limit = limit
    }

    private mutating func problem(_ offset: UInt64, _ message: String) {
        if report.problems.count < limit {
            report.problems.append(.init(offset: offset, message: message))
        }
    }

    /// Checks the catalog and every tree; returns the bytes reachable from the commit.
    mutating func checkAll(commit: CommitPoint) -> UInt64 {
        var reachable = commit.end - commit.offset
        var catalogEntries: [([UInt8], [UInt8])] = []
        if commit.record.catalogRoot != 0 {
            let (count, bytes) = checkTree(root: commit.record.catalogRoot) { key, value in catalogEntries.append((key, value)) }
            reachable += bytes
            if count != commit.record.catalogCount {
                problem(commit.offset, "catalog has \(count) entries, commit says \(commit.record.catalogCount)")
            }
        } else if commit.record.catalogCount != 0 {
            problem(commit.offset, "empty catalog with a count of \(commit.record.catalogCount)")
        }
        for (name, value) in catalogEntries {
            let displayName = String(decoding: name, as: UTF8.self)
            guard let entry = try? Catalog.decode(value, name: name) else {
                problem(commit.record.catalogRoot, "catalog entry for \"\(displayName)\" is malformed")
                continue
            }
            guard entry.root != 0 else {
                report.trees.append(.init(name: displayName, entries: 0, bytes: 0))
                if entry.count != 0 { problem(commit.record.catalogRoot, "empty tree \"\(displayName)\" has a count of \(entry.count)") }
                continue
            }
            let (count, bytes) = checkTree(root: entry.root) { _, _ in }
            reachable += bytes
            report.treeEntries += Int(count)
            report.trees.append(.init(name: displayName, entries: Int(count), bytes: bytes))
            if count != entry.count {
                problem(entry.root, "tree \"\(displayName)\" has \(count) entries, the catalog says \(entry.count)")
            }
        }
        if let shared = pagesReached.intersection(deltaBases).min() {
            problem(shared, "a leaf delta's base is also reached as a page")
        }
        return reachable
    }

    /// Checks one tree; returns its entry count and on-disk bytes.
    mutating func checkTree(root: UInt64, visit: ([UInt8], [UInt8]) -> Void) -> (count: UInt64, bytes: UInt64) {
        var count: UInt64 = 0
        var bytes: UInt64 = 0
        var leafDepth: Int?
        var previousKey: [UInt8]?
        // Depth-first, in key order, so key order can be checked across leaves.
        var stack: [(offset: UInt64, depth: Int, lower: [UInt8]?, upper: [UInt8]?)] = [(root, 0, nil, nil)]
        while let (offset, depth, lower, upper) = stack.popLast() {
            guard report.problems.count < limit else { break }
            let page: PageNode
            do {
                page = try reader.page(at: offset)
            } catch {
                problem(offset, "\(error)")
                continue
            }
            bytes += page.frameSize
            pagesReached.insert(offset)
            if let base = page.delta?.base {
                report.leafDeltas += 1
                if deltaBases.insert(base.offset).inserted {
                    bytes += base.frameSize
                } else {
                    problem(offset, "leaf delta's base at \(base.offset) is another delta's base too")
                }
            }
            if page.isLeaf {
                if let leafDepth, leafDepth != depth { problem(offset, "leaf at depth \(depth), others at \(leafDepth)") }
                leafDepth = depth
                for index in 0..<page.count {
                    let key = page.key(at: index)
                    if let previousKey, compareBytes(previousKey, key) >= 0 { problem(offset, "keys out of order at entry \(index)") }
                    if let lower, compareBytes(key, lower) < 0 { problem(offset, "key below its separator at entry \(index)") }
                    if let upper, compareBytes(key, upper) >= 0 { problem(offset, "key not below its separator at entry \(index)") }
                    previousKey = key
                    let value = page.value(at: index)
                    if case .overflow(let reference) = value {
                        bytes += UInt64(reference.frameSize)
                        if reference.offset >= offset { problem(offset, "overflow value at entry \(index) does not precede its leaf") }
                    }
                    do {
                        visit(key, try reader.bytes(of: value))
                    } catch {
                        problem(offset, "entry \(index): \(error)")
                    }
                    count += 1
                }
            } else {
                var separators: [[UInt8]] = []
                for index in 0..<page.entries.count {
                    separators.append(page.key(at: index))
                    if index > 0, compareBytes(separators[index - 1], separators[index]) >= 0 {
                        problem(offset, "separators out of order at \(index)")
                    }
                }
                // Pushed in reverse so the leftmost child is visited first.
                for index in (0..<page.children.count).reversed() {
                    let childLower = index == 0 ? lower : separators[index - 1]
                    let childUpper = index == separators.count ? upper : separators[index]
                    stack.append((page.children[index], depth + 1, childLower, childUpper))
                }
            }
        }
        return (count, bytes)
    }
}

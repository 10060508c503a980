import MagicalStore

/// A commit's additions to and removals from the member sets of one unordered to-many
/// relationship tree, kept until the commit's other writes are done and then applied in
/// one pass over the runs of members they touch (``MemberChunk``): an import moves
/// thousands of members between a few owners, and a run is read and written once however
/// many of its members change.
struct MemberSetChanges {
    private struct Change {
        var member: MemberChunk.Member
        var isAddition: Bool
    }

    /// Changes by owner, in the order they were made.
    private var byOwner: [Int64: [Change]] = [:]
    /// Sets given whole (a loaded to-many saved, an owner deleted), made before the
    /// owner's changes in `byOwner`.
    private var replacements: [Int64: [MemberChunk.Member]] = [:]

    var isEmpty: Bool { byOwner.isEmpty && replacements.isEmpty }

    mutating func add(_ target: MemberChunk.Member, to owner: Int64) {
        byOwner[owner, default: []].append(Change(member: target, isAddition: true))
    }

    mutating func remove(_ number: Int64, from owner: Int64) {
        byOwner[owner, default: []].append(Change(member: MemberChunk.Member(number: number, code: 0), isAddition: false))
    }

    /// Makes `members` the owner's whole set, in place of what it holds and of the changes
    /// made to it so far.
    mutating func replace(_ owner: Int64, with members: [MemberChunk.Member]) {
        replacements[owner] = members
        byOwner[owner] = nil
    }

    /// Makes the changes of `other` after these.
    mutating func append(_ other: MemberSetChanges) {
        for (owner, members) in other.replacements { replace(owner, with: members) }
        for (owner, changes) in other.byOwner { byOwner[owner, default: []].append(contentsOf: changes) }
    }

    /// Writes the changes into `tree`: each run a change falls in is read, changed, and
    /// written back (cut in two or more when it outgrew ``MemberChunk/byteLimit``, deleted
    /// when emptied). A number's last change counts.
    func apply(to tree: TreeWriter, treeName: String) throws {
        var deletions = EntryBatch()
        var runs = EntryBatch()
        for owner in Set(byOwner.keys).union(replacements.keys).sorted() {
            var changes: [Change] = []
            if let replacement = replacements[owner] {
                changes = try Self.difference(from: Self.members(of: owner, in: tree, treeName: treeName), to: replacement)
            }
            changes += byOwner[owner] ?? []
            try apply(Self.lastPerNumber(changes), owner: owner, in: tree, treeName: treeName, deleting: &deletions, writing: &runs)
        }
        if !deletions.isEmpty { _ = try tree.deleteBatch(deletions) }
        if !runs.isEmpty { try tree.putBatch(runs) }
    }

    private func apply(
        _ changes: [Change], owner: Int64, in tree: TreeWriter, treeName: String,
        deleting deletions: inout EntryBatch, writing runs: inout EntryBatch
    ) throws {
        let prefix = StoreLayout.objectKey(owner)
        func ofOwner(_ key: [UInt8]?) -> [UInt8]? { key.flatMap { $0.starts(with: prefix) ? $0 : nil } }
        var cursor = tree.makeCursor()
        var next = 0
        var members: [MemberChunk.Member] = []
        while next < changes.count {
            // The run holding the change's number, or where it would go: the first run
            // ending at or after it, else the owner's last run.
            try cursor.seek(atOrAfter: MemberChunk.key(source: owner, last: changes[next].member.number))
            var runKey = ofOwner(cursor.key)
            if runKey == nil {
                try cursor.seek(atOrBefore: MemberChunk.key(source: owner, last: .max))
                runKey = ofOwner(cursor.key)
            }
            members.removeAll(keepingCapacity: true)
            var runLast: Int64?
            var bound = Int64.max
            if let runKey {
                // The cursor is on the run: its key was just read.
                let last = try cursor.withEntry { _, value in
                    try MemberChunk.appendMembers(ofRun: runKey, value, prefix: prefix, treeName: treeName, to: &members)
                } ?? 0
                runLast = last
                try cursor.next()
                if ofOwner(cursor.key) != nil { bound = last }
            }
            var end = next
            while end < changes.count, changes[end].member.number <= bound { end += 1 }
            // The run found ends at or after the change: only a damaged tree stops here.
            guard end > next else { throw MagicalRecordError.damagedMetadata("the relationship tree \(treeName) holds runs out of order") }
            let merged = Self.merged(members, changes[next..<end])
            next = end
            guard merged != members else { continue }
            if let runKey, merged.last?.number != runLast { deletions.append(key: runKey, value: []) }
            guard !merged.isEmpty else { continue }
            MemberChunk.appendRuns(of: merged, source: owner, to: &runs)
        }
    }

    /// Every member of `owner`'s set, ascending.
    static func members(of owner: Int64, in tree: TreeWriter, treeName: String) throws -> [MemberChunk.Member] {
        let prefix = StoreLayout.objectKey(owner)
        var members: [MemberChunk.Member] = []
        try tree.scan(.prefix(prefix)) { key, value in
            _ = try value.withUnsafeBytes { try MemberChunk.appendMembers(ofRun: key, $0, prefix: prefix, treeName: treeName, to: &members) }
            return true
        }
        return members
    }

    /// What makes `old` (ascending) into `new` (any order): removals of the members that
    /// leave, additions of those that join or change entity.
    private static func difference(from old: [MemberChunk.Member], to new: [MemberChunk.Member]) -> [Change] {
        let wanted = Dictionary(new.map { ($0.number, $0.code) }, uniquingKeysWith: { $1 })
        var changes: [Change] = []
        var present = Set<Int64>()
        for member in old {
            if let code = wanted[member.number] {
                present.insert(member.number)
                if code != member.code { changes.append(Change(member: MemberChunk.Member(number: member.number, code: code), isAddition: true)) }
            } else {
                changes.append(Change(member: member, isAddition: false))
            }
        }
        for (number, code) in wanted where !present.contains(number) {
            changes.append(Change(member: MemberChunk.Member(number: number, code: code), isAddition: true))
        }
        return changes
    }

    /// `members` with `changes` (ascending distinct numbers) made.
    private static func merged(_ members: [MemberChunk.Member], _ changes: ArraySlice<Change>) -> [MemberChunk.Member] {
        var result: [MemberChunk.Member] = []
        result.reserveCapacity(members.count + changes.count)
        var index = 0
        for change in changes {
            while index < members.count, members[index].number < change.member.number {
                result.append(members[index])
                index += 1
            }
            if index < members.count, members[index].number == change.member.number { index += 1 }
            if change.isAddition { result.append(change.member) }
        }
        result.append(contentsOf: members[index...])
        return result
    }

    /// The changes in ascending number order, the last one made to each number only.
    private static func lastPerNumber(_ changes: [Change]) -> [Change] {
        var result: [Change] = []
        result.reserveCapacity(changes.count)
        for index in placesByNumber(changes) {
            if let last = result.last, last.member.number == changes[index].member.number {
                result[result.count - 1] = changes[index]
            } else {
                result.append(changes[index])
            }
        }
        return result
    }

    /// Bits a change's place takes beside its number in ``placesByNumber(_:)``.
    private static let placeBits = 24

    /// The places of `changes` by ascending number, each number's in the order made.
    /// Number and place are packed into one word where both fit (numbers below 2^40, fewer
    /// than 2^24 changes: any store short of a trillion objects) and sorted as plain
    /// integers, a third faster than pairs (which were most of a commit's work on member
    /// sets when read through a closure).
    private static func placesByNumber(_ changes: [Change]) -> [Int] {
        let placeMask = UInt64(1) << placeBits - 1
        let fits = changes.count <= placeMask
            && changes.allSatisfy { $0.member.number >= 0 && $0.member.number >> (64 - placeBits) == 0 }
        guard fits else {
            var order = changes.indices.map { (number: changes[$0].member.number, index: $0) }
            order.sort { $0 < $1 }
            return order.map(\.index)
        }
        var keys = changes.indices.map { UInt64(changes[$0].member.number) << placeBits | UInt64($0) }
        keys.sort()
        return keys.map { Int(truncatingIfNeeded: $0 & placeMask) }
    }
}

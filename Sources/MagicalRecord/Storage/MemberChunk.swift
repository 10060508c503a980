import MagicalStore

/// A run of an unordered to-many's members, one entry of its relationship tree (Spec
/// OBJECT-STORE.md O14): keyed by the source's number and the run's last member's, its
/// value holds how many members there are, their entity code (one for all, or one each)
/// and the gaps between their numbers.
///
/// An entry per member cost a key, a value and a leaf slot each (13 bytes before
/// compression), and a batch moving members between owners rewrote most leaves of the
/// tree; a run costs a byte or two per member, and a batch rewrites the runs it changes.
enum MemberChunk {
    struct Member: Equatable, Comparable {
        var number: Int64
        var code: Int

        static func < (left: Member, right: Member) -> Bool { left.number < right.number }
    }

    /// The most bytes a run's value takes: small enough to live in a leaf with its
    /// neighbours, large enough that a run holds hundreds of members.
    static let byteLimit = 512

    /// A run that outgrows ``byteLimit`` is cut into runs of about this many bytes, so
    /// members added one at a time leave runs three quarters full.
    static let splitBytes = byteLimit * 3 / 4

    static func key(source: Int64, last: Int64) -> [UInt8] {
        KeyEncoding.encode(.int(source), .int(last))
    }

    /// The last member's number in a run's `key`, which starts with its source's `prefix`.
    static func lastNumber(of key: [UInt8], prefix: [UInt8], treeName: String) throws(MagicalRecordError) -> Int64 {
        guard let number = key.withUnsafeBytes({ KeyEncoding.decodeNonNegativeInteger(UnsafeRawBufferPointer(rebasing: $0[prefix.count...])) }) else {
            throw .damagedMetadata("the relationship tree \(treeName) holds a malformed key")
        }
        return number
    }

    /// Appends the members of the run stored under `key` (which starts with its source's
    /// `prefix`) with `value` to `members`; returns the run's last number. A malformed key
    /// or value is damaged metadata naming `treeName`.
    @discardableResult
    static func appendMembers(
        ofRun key: [UInt8], _ value: UnsafeRawBufferPointer, prefix: [UInt8], treeName: String, to members: inout [Member]
    ) throws(MagicalRecordError) -> Int64 {
        let last = try lastNumber(of: key, prefix: prefix, treeName: treeName)
        guard decode(value, last: last, into: &members) else {
            throw .damagedMetadata("the relationship tree \(treeName) holds a malformed run of members")
        }
        return last
    }

    /// The value of a run of `members` (ascending distinct numbers, at least one).
    static func encode(_ members: ArraySlice<Member>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encodedSize(members))
        append(members, isUniform: members.allSatisfy { $0.code == members.first!.code }, to: &bytes)
        return bytes
    }

    /// Appends the value of a run of `members` to `bytes`; `isUniform` says whether they
    /// share one entity code.
    private static func append(_ members: ArraySlice<Member>, isUniform: Bool, to bytes: inout [UInt8]) {
        bytes.appendVarint(members.count)
        bytes.appendVarint(isUniform ? members.first!.code << 1 : 1)
        if !isUniform {
            for member in members { bytes.appendVarint(member.code) }
        }
        var previous = members.first!.number
        for member in members.dropFirst() {
            bytes.appendVarint(Int(member.number - previous))
            previous = member.number
        }
    }

    /// Appends the runs of `members` (ascending distinct numbers, at least one), a set of
    /// `source`'s, to `batch`: keys and values written straight into its buffer.
    static func appendRuns(of members: [Member], source: Int64, to batch: inout EntryBatch) {
        let isUniform = members.allSatisfy { $0.code == members[0].code }
        for run in runs(of: members) {
            batch.append(
                writingKey: {
                    KeyEncoding.encode(.int(source), into: &$0)
                    KeyEncoding.encode(.int(run.last!.number), into: &$0)
                },
                value: { append(run, isUniform: isUniform || run.allSatisfy { $0.code == run.first!.code }, to: &$0) }
            )
        }
    }

    /// Bytes ``encode(_:)`` writes for `members`.
    static func encodedSize(_ members: ArraySlice<Member>) -> Int {
        guard let first = members.first else { return 0 }
        let isUniform = members.allSatisfy { $0.code == first.code }
        var size = varintSize(members.count) + (isUniform ? varintSize(first.code << 1) : 1)
        var previous = first.number
        for member in members {
            if !isUniform { size += varintSize(member.code) }
            if member.number != previous { size += varintSize(Int(member.number - previous)) }
            previous = member.number
        }
        return size
    }

    /// Appends the members of the run whose key ends with `last` and whose value is
    /// `value`; false (nothing appended) when the value is malformed: no members, a code
    /// or gap that does not read, a zero gap, numbers below 1, or bytes left over.
    static func decode(_ value: UnsafeRawBufferPointer, last: Int64, into members: inout [Member]) -> Bool {
        var reader = ByteReader(value)
        guard let count = reader.readVarint(), count >= 1, count <= value.count + 1,
              let header = reader.readVarint() else { return false }
        let start = members.count
        if header & 1 == 0 {
            guard header >> 1 <= Int(Int32.max) else { return false }
            for _ in 0..<count { members.append(Member(number: 0, code: header >> 1)) }
        } else {
            guard header == 1 else { return false }
            for _ in 0..<count {
                guard let code = reader.readVarint(), code <= Int(Int32.max) else {
                    members.removeSubrange(start...)
                    return false
                }
                members.append(Member(number: 0, code: code))
            }
        }
        // Gaps run upward from the first member, whose number the key gives only through
        // the last: numbers are counted from 0 first, then moved up to end at `last`.
        var number: Int64 = 0
        for offset in 1..<count {
            guard let gap = reader.readVarint(), gap >= 1, gap < last, Int64(gap) < last - number else {
                members.removeSubrange(start...)
                return false
            }
            number += Int64(gap)
            members[start + offset].number = number
        }
        guard reader.position == value.count, last >= 1 else {
            members.removeSubrange(start...)
            return false
        }
        let first = last - number
        for index in start..<members.count { members[index].number += first }
        return true
    }

    /// `members` (ascending distinct numbers, at least one) cut into runs: one when it fits
    /// in ``byteLimit``, else runs of about ``splitBytes``.
    static func runs(of members: [Member]) -> [ArraySlice<Member>] {
        guard encodedSize(members[...]) > byteLimit else { return [members[...]] }
        // A run's count and code take at most 8 bytes; each member its gap, and its code
        // when the members' codes differ (a run of them might share one: it is smaller).
        let isUniform = members.allSatisfy { $0.code == members[0].code }
        var runs: [ArraySlice<Member>] = []
        var start = 0
        var size = 0
        for index in members.indices {
            let code = isUniform ? 0 : varintSize(members[index].code)
            if index == start {
                size = 8 + code
                continue
            }
            let added = varintSize(Int(members[index].number - members[index - 1].number)) + code
            if size + added > splitBytes {
                runs.append(members[start..<index])
                start = index
                size = 8 + code
            } else {
                size += added
            }
        }
        runs.append(members[start...])
        return runs
    }
}

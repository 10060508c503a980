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

    /// The value of a run of `members` (ascending distinct numbers, at least one).
    static func encode(_ members: ArraySlice<Member>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encodedSize(members))
        bytes.appendVarint(members.count)
        let code = members.first!.code
        let isUniform = members.allSatisfy { $0.code == code }
        bytes.appendVarint(isUniform ? code << 1 : 1)
        if !isUniform {
            for member in members { bytes.appendVarint(member.code) }
        }
        var previous = members.first!.number
        for member in members.dropFirst() {
            bytes.appendVarint(Int(member.number - previous))
            previous = member.number
        }
        return bytes
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
        // Gaps run upward from the first member; the key gives the last, so the numbers are
        // filled in from the top down once the gaps are read.
        var gaps: [Int64] = []
        gaps.reserveCapacity(count - 1)
        var span: Int64 = 0
        for _ in 1..<count {
            guard let gap = reader.readVarint(), gap >= 1, gap < last else {
                members.removeSubrange(start...)
                return false
            }
            span += Int64(gap)
            guard span < last else {
                members.removeSubrange(start...)
                return false
            }
            gaps.append(Int64(gap))
        }
        guard reader.position == value.count, last >= 1 else {
            members.removeSubrange(start...)
            return false
        }
        var number = last
        members[members.count - 1].number = number
        for (offset, gap) in gaps.enumerated().reversed() {
            number -= gap
            members[start + offset].number = number
        }
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

import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// Runs of members (Spec O14): how a run's value is written and read, how a set is cut
/// into runs, and how a commit's changes to sets reach the runs, checked against a plain
/// dictionary of sets.
@Suite struct MemberRunTests {
    private typealias Member = MemberChunk.Member

    private func decoded(_ value: [UInt8], last: Int64) -> [Member]? {
        var members: [Member] = []
        let read = value.withUnsafeBytes { MemberChunk.decode($0, last: last, into: &members) }
        return read ? members : nil
    }

    private func randomMembers(_ random: inout SplitMix64, count: Int, mixed: Bool) -> [Member] {
        var number = Int64(random.next() % 1_000) + 1
        var members: [Member] = []
        for _ in 0..<count {
            members.append(Member(number: number, code: mixed ? Int(random.next() % 200) : 7))
            // Mostly small gaps, some wide ones (several varint bytes).
            number += random.next() % 4 == 0 ? Int64(random.next() % (1 << 36)) + 1 : Int64(random.next() % 300) + 1
        }
        return members
    }

    @Test func runsReadBackAsWritten() {
        var random = SplitMix64(seed: 14)
        for round in 0..<(200 * testScale) {
            let members = randomMembers(&random, count: Int(random.next() % 60) + 1, mixed: round % 3 == 0)
            let value = MemberChunk.encode(members[...])
            #expect(value.count == MemberChunk.encodedSize(members[...]))
            #expect(decoded(value, last: members.last!.number) == members)
        }
    }

    @Test func oneCodeIsWrittenOnceForAllMembers() {
        let members = (1...100).map { Member(number: Int64($0) * 10, code: 3) }
        // The count, the code, then a byte per gap.
        #expect(MemberChunk.encode(members[...]).count == 1 + 1 + 99)
    }

    @Test func aSetIsCutIntoRunsThatEachFitAndTogetherHoldIt() {
        var random = SplitMix64(seed: 15)
        for round in 0..<(40 * testScale) {
            let members = randomMembers(&random, count: Int(random.next() % 3_000) + 1, mixed: round % 2 == 0)
            let runs = MemberChunk.runs(of: members)
            #expect(runs.allSatisfy { !$0.isEmpty && MemberChunk.encodedSize($0) <= MemberChunk.byteLimit })
            #expect(Array(runs.joined()) == members)
            if MemberChunk.encodedSize(members[...]) <= MemberChunk.byteLimit { #expect(runs.count == 1) }
        }
    }

    @Test func malformedRunsAreRefused() {
        var valid: [UInt8] = []
        valid.appendVarint(3)
        valid.appendVarint(5 << 1)
        valid.appendVarint(2)
        valid.appendVarint(4)
        #expect(decoded(valid, last: 10) == [Member(number: 4, code: 5), Member(number: 6, code: 5), Member(number: 10, code: 5)])
        #expect(decoded([], last: 10) == nil)
        #expect(decoded([0, 10], last: 10) == nil, "no members")
        #expect(decoded(valid + [1], last: 10) == nil, "bytes left over")
        #expect(decoded(Array(valid.dropLast()), last: 10) == nil, "a gap missing")
        #expect(decoded([2, 10, 0], last: 10) == nil, "a zero gap")
        #expect(decoded(valid, last: 6) == nil, "numbers below 1")
        #expect(decoded([1, 10], last: 0) == nil, "a last number below 1")
        #expect(decoded([2, 3, 1, 1, 5], last: 10) == nil, "neither one code nor a code each")
        #expect(decoded([2, 1, 1], last: 10) == nil, "codes cut short")
        #expect(decoded([2, 1, 1, 2, 5], last: 10) == [Member(number: 5, code: 1), Member(number: 10, code: 2)])
        #expect(decoded([0x80], last: 10) == nil, "a count that does not read")
        // Gaps each below the last number whose sum overflows (found by FuzzMemberRuns).
        var wide: [UInt8] = [3, 0]
        wide.appendVarint(UInt64(Int64.max - 1))
        wide.appendVarint(UInt64(Int64.max - 1))
        #expect(decoded(wide, last: .max) == nil, "gaps that overflow")
    }

    // MARK: Changes to sets

    private func makeStore(pageSize: Int) throws -> Store {
        try Store(path: "/members.store", options: StoreOptions(durability: .none, pageSize: pageSize, fileSystem: MemoryFileSystem(tracksDurability: false)))
    }

    private let treeName = "r.Owner.members"

    /// Every run of the tree, checked: keyed by owner and last member, within the byte limit.
    private func storedSets(_ store: Store) throws -> [Int64: [Member]] {
        var sets: [Int64: [Member]] = [:]
        try store.read().tree(treeName).scan(.all) { key, value in
            let parts = try KeyEncoding.decode(key)
            guard parts.count == 2, case .int(let owner) = parts[0], case .int(let last) = parts[1] else {
                Issue.record("a malformed key \(key)")
                return false
            }
            #expect(value.count <= MemberChunk.byteLimit)
            guard let members = decoded(value, last: last) else {
                Issue.record("a malformed run under \(owner)")
                return false
            }
            if let previous = sets[owner]?.last { #expect(previous.number < members[0].number) }
            sets[owner, default: []] += members
            return true
        }
        return sets
    }

    @Test(arguments: [8192, 1024])
    func changesReachTheRunsAsAReferenceSetsSays(pageSize: Int) throws {
        let store = try makeStore(pageSize: pageSize)
        defer { try? store.close() }
        try store.write { _ = try $0.createTree(treeName) }
        var reference: [Int64: [Int64: Int]] = [:]
        var random = SplitMix64(seed: UInt64(pageSize))
        for round in 0..<(60 * testScale) {
            var changes = MemberSetChanges()
            var expected = reference
            for _ in 0..<Int(random.next() % 400) {
                let owner = Int64(random.next() % 5) + 1
                // Dense numbers (shared by many changes), spread ones, or dense ones past the
                // 40 bits the changes' sort packs a number in.
                let number = switch round % 3 {
                case 0: Int64(random.next() % 3_000) + 1
                case 1: Int64(random.next() % 1_000_000_000) + 1
                default: Int64(1) << 41 + Int64(random.next() % 3_000)
                }
                switch random.next() % 20 {
                case 0:
                    let members = (0..<Int(random.next() % 300)).map { _ in Member(number: Int64(random.next() % 5_000) + 1, code: Int(random.next() % 3)) }
                    changes.replace(owner, with: members)
                    expected[owner] = Dictionary(members.map { ($0.number, $0.code) }, uniquingKeysWith: { $1 })
                case 1...7:
                    changes.remove(number, from: owner)
                    expected[owner]?[number] = nil
                default:
                    let code = Int(random.next() % 3)
                    changes.add(Member(number: number, code: code), to: owner)
                    expected[owner, default: [:]][number] = code
                }
            }
            try store.write { transaction in
                try changes.apply(to: transaction.tree(treeName), treeName: treeName)
            }
            reference = expected.filter { !$0.value.isEmpty }
            let stored = try storedSets(store)
            let wanted = reference.mapValues { set in set.sorted { $0.key < $1.key }.map { Member(number: $0.key, code: $0.value) } }
            #expect(stored == wanted, "round \(round)")
            guard stored == wanted else { return }
        }
    }

    @Test func membersAddedOneAtATimeLeaveRunsMostlyFull() throws {
        let store = try makeStore(pageSize: 8192)
        defer { try? store.close() }
        try store.write { _ = try $0.createTree(treeName) }
        // A few members a commit, each past the last.
        for commit in Int64(0)..<800 {
            var changes = MemberSetChanges()
            for number in commit * 5 + 1...commit * 5 + 5 { changes.add(Member(number: number * 3, code: 1), to: 9) }
            try store.write { try changes.apply(to: $0.tree(treeName), treeName: treeName) }
        }
        var runs = 0
        var bytes = 0
        try store.read().tree(treeName).scan(.all) { _, value in
            runs += 1
            bytes += value.count
            return true
        }
        #expect(try storedSets(store)[9]?.count == 4_000)
        // A byte a member: a full set would take 8 runs.
        #expect(runs <= 12, "\(runs) runs of \(bytes) bytes")
    }
}

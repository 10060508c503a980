@testable import MagicalRecord

/// Shared by the libFuzzer target (Fuzz/) and the corpus replay in `make test`.
///
/// The first 8 bytes (little-endian) are the run key's last number, the rest the run's
/// value, which comes from a store file: decoding it fails leaving the members as they
/// were, or gives a run as Spec/OBJECT-STORE.md O14 has it (ascending numbers from 1 up,
/// ending at the key's, codes that fit an entity code). Such a run encodes to a value that
/// decodes the same, of the size `encodedSize` says, and cuts into runs that fit a value.
func fuzzMemberRuns(_ input: UnsafeRawBufferPointer) {
    guard input.count >= 8 else { return }
    let last = Int64(littleEndian: input.loadUnaligned(as: Int64.self))
    let value = UnsafeRawBufferPointer(rebasing: input.dropFirst(8))

    var members: [MemberChunk.Member] = []
    let decoded = MemberChunk.decode(value, last: last, into: &members)
    // A reader appends a source's runs one after another: one that fails must leave the
    // runs before it alone.
    let sentinel = MemberChunk.Member(number: -1, code: 7)
    var appended = [sentinel]
    let appendedDecoded = MemberChunk.decode(value, last: last, into: &appended)
    precondition(appendedDecoded == decoded, "a decode after other members disagrees with one into an empty array")
    guard decoded else {
        precondition(members.isEmpty, "a failed decode appended members")
        precondition(appended == [sentinel], "a failed decode changed the members before it")
        return
    }
    precondition(appended == [sentinel] + members, "a decode after other members appended other members")

    precondition(!members.isEmpty, "a decoded run is empty")
    precondition(members[0].number >= 1, "a decoded run has a number below 1")
    precondition(zip(members, members.dropFirst()).allSatisfy { $0.number < $1.number }, "a decoded run's numbers do not ascend")
    precondition(members[members.count - 1].number == last, "a decoded run does not end at its key's number")
    precondition(members.allSatisfy { $0.code <= Int(Int32.max) }, "a decoded run has a code past Int32.max")

    let encoded = MemberChunk.encode(members[...])
    precondition(MemberChunk.encodedSize(members[...]) == encoded.count, "encodedSize disagrees with encode")
    var again: [MemberChunk.Member] = []
    let reread = encoded.withUnsafeBytes { MemberChunk.decode($0, last: last, into: &again) }
    precondition(reread && again == members, "a decoded run does not survive encoding")

    let runs = MemberChunk.runs(of: members)
    precondition(!runs.isEmpty && runs.allSatisfy { !$0.isEmpty }, "runs(of:) gave an empty run")
    precondition(Array(runs.joined()) == members, "runs(of:) lost, added or reordered members")
    if MemberChunk.encodedSize(members[...]) > MemberChunk.byteLimit {
        precondition(runs.allSatisfy { MemberChunk.encodedSize($0) <= MemberChunk.byteLimit }, "runs(of:) gave a run past byteLimit")
    } else {
        precondition(runs.count == 1, "runs(of:) cut a run that fits")
    }
}

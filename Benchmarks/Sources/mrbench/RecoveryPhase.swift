import Foundation

/// The recovery phase: a child process (this executable, `--recovery-writer`) commits
/// batches into the store until it is killed with SIGKILL part-way through one; then the
/// time to open the store and count its people, who must be every acknowledged batch's
/// and no part of a batch.
enum RecoveryPhase {
    /// People in each of the writer's batches.
    static let batchSize = 10_000

    /// Seconds to reopen `systemType`'s store in `folder`, holding `storedRows` people,
    /// after killing a writer.
    static func measure(
        _ systemType: any BenchSystem.Type, in folder: URL, durability: BenchDurability, tuning: StoreTuning,
        firstKey: Int64, storedRows: Int
    ) throws -> Double {
        let acknowledged = try killWriter(systemType.name, in: folder, durability: durability, tuning: tuning, firstKey: firstKey)
        let system = try systemType.init(directory: folder, durability: durability, tuning: tuning)
        let clock = ContinuousClock()
        var people = 0
        let elapsed = try clock.measure { people = try system.reopen() }
        // The batch the kill interrupted may have become durable before its acknowledgement.
        let batches = (people - storedRows) / batchSize
        guard (people - storedRows) % batchSize == 0, batches == acknowledged || batches == acknowledged + 1 else {
            throw BenchError.badAnswer(
                "\(systemType.name) reopened after the kill with \(people) people, where \(storedRows) and \(acknowledged) "
                    + "acknowledged batches of \(batchSize) (and perhaps the interrupted one, whole) should be"
            )
        }
        return elapsed.seconds
    }

    /// Starts the writer, waits for its first commit, lets it run into the next batch for a
    /// random moment, and kills it. Returns how many commits it acknowledged.
    private static func killWriter(
        _ name: String, in folder: URL, durability: BenchDurability, tuning: StoreTuning, firstKey: Int64
    ) throws -> Int {
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        writer.arguments = [
            "--recovery-writer", name, "--dir", folder.path, "--durability", durability.rawValue,
            "--first-key", String(firstKey), "--compression", tuning.compression.description,
            "--sqlite-cache-mib", String(tuning.sqliteCacheMiB),
        ] + (tuning.compactionCompression.map { ["--compaction-compression", $0.description] } ?? [])
        let output = Pipe()
        writer.standardOutput = output
        try writer.run()
        let firstCommit = output.fileHandleForReading.readData(ofLength: 1)
        guard !firstCommit.isEmpty else {
            writer.waitUntilExit()
            throw BenchError.childFailed("exited (status \(writer.terminationStatus)) before its first commit")
        }
        usleep(UInt32.random(in: 20_000...200_000))
        kill(writer.processIdentifier, SIGKILL)
        writer.waitUntilExit()
        return firstCommit.count + output.fileHandleForReading.readDataToEndOfFile().count
    }

    /// The child's side: commit batches forever, a byte on standard output after each.
    static func write(system name: String, directory: URL, durability: BenchDurability, tuning: StoreTuning, firstKey: Int64) throws {
        guard let systemType = BenchSystems.named(name) else { throw BenchError.unknownSystem(name) }
        let system = try systemType.init(directory: directory, durability: durability, tuning: tuning)
        try system.writeUntilKilled(from: firstKey) {
            FileHandle.standardOutput.write(Data("c".utf8))
        }
    }
}

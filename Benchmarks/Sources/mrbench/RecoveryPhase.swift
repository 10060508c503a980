import Foundation

/// The recovery phase: a child process (this executable, `--recovery-writer`) commits
/// batches into the store until it is killed with SIGKILL part-way through one; then the
/// time to open the store and count its people.
enum RecoveryPhase {
    /// Seconds to reopen `systemType`'s store in `folder` after killing a writer.
    static func measure(
        _ systemType: any BenchSystem.Type, in folder: URL, durability: BenchDurability, firstKey: Int64
    ) throws -> Double {
        try killWriter(systemType.name, in: folder, durability: durability, firstKey: firstKey)
        let system = try systemType.init(directory: folder, durability: durability, scanThreads: nil)
        let clock = ContinuousClock()
        var people = 0
        let elapsed = try clock.measure { people = try system.reopen() }
        guard people > 0 else { throw BenchError.childFailed("the store reopened empty") }
        return elapsed.seconds
    }

    /// Starts the writer, waits for its first commit, lets it run into the next batch for a
    /// random moment, and kills it.
    private static func killWriter(_ name: String, in folder: URL, durability: BenchDurability, firstKey: Int64) throws {
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        writer.arguments = [
            "--recovery-writer", name, "--dir", folder.path, "--durability", durability.rawValue,
            "--first-key", String(firstKey),
        ]
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
    }

    /// The child's side: commit batches forever, a byte on standard output after each.
    static func write(system name: String, directory: URL, durability: BenchDurability, firstKey: Int64) throws {
        guard let systemType = BenchSystems.named(name) else { throw BenchError.unknownSystem(name) }
        let system = try systemType.init(directory: directory, durability: durability, scanThreads: nil)
        try system.writeUntilKilled(from: firstKey) {
            FileHandle.standardOutput.write(Data("c".utf8))
        }
    }
}

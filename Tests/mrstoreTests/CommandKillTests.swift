import Foundation
import Testing
@testable import MagicalRecord
import MagicalStore

/// `mrstore import` and `mrstore compact` killed with SIGKILL at random moments: a command
/// that exited 0 made its changes durable, and an import killed before it exited is in
/// the store whole or not at all. `MAGICALRECORD_COMMAND_KILLS` trials (default 20).
@Suite struct CommandKillTests {
    typealias Command = MRStoreCommandTests

    static let recordsPerFile = 100
    /// Imported people have keys from here on, apart from the demo's.
    static let firstImportedKey: Int64 = 10_000_000

    /// A JSON file of new people for import number `index`, plus changes to demo people.
    static func importFile(_ index: Int, in directory: String) throws -> String {
        let base = firstImportedKey + Int64(index * recordsPerFile)
        let records = (0..<Int64(recordsPerFile)).map { offset in
            #"{"personID": \#(base + offset), "firstName": "Imported\#(index)", "lastName": "Kill", "age": 30, "salary": 1.5, "department": \#(offset % 5)}"#
        }
        let path = directory + "/import-\(index).json"
        try Data(("[" + records.joined(separator: ",\n") + "]").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// How many people each import put in the store, by import number.
    static func importedCounts(in store: String) throws -> [Int: Int] {
        let stack = try PersistentStack(storeAt: URL(fileURLWithPath: store), readOnly: true)
        defer { try? stack.close() }
        let request = FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: "personID >= %@", firstImportedKey))
        var counts: [Int: Int] = [:]
        for person in try stack.rootContext.fetch(request) {
            guard case .integer(let key) = try person.attributeValue(forKey: "personID") else { continue }
            counts[Int(key - firstImportedKey) / recordsPerFile, default: 0] += 1
        }
        return counts
    }

    /// Runs `arguments`, killing the process after `delay` seconds; true when it exited 0 first.
    static func runKilled(_ arguments: [String], after delay: Double) throws -> Bool {
        let process = Process()
        process.executableURL = Command.executable
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: delay)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return process.terminationReason == .exit && process.terminationStatus == 0
    }

    @Test func anImportOrCompactionKilledAtAnyMomentIsWholeOrAbsentAndExitZeroIsDurable() throws {
        let trials = ProcessInfo.processInfo.environment["MAGICALRECORD_COMMAND_KILLS"].flatMap(Int.init) ?? 20
        // `make crash` with fewer than ten trials once asked for none, and `1...0` trapped.
        guard trials > 0 else { return }
        let directory = Command.Directory()
        let store = directory.path + "/kill.store"
        #expect(try Command.run("demo", store, "--records", "2000").status == 0)
        // How long an uninterrupted import and compaction take, to spread the kills over them.
        var started = Date()
        #expect(try Command.run("import", store, try Self.importFile(0, in: directory.path), "--entity", "Person").status == 0)
        let importDuration = Date().timeIntervalSince(started)
        started = Date()
        #expect(try Command.run("compact", store).status == 0)
        let compactionDuration = Date().timeIntervalSince(started)
        var present: Set<Int> = [0]
        var generator = SplitMix64(seed: 11)
        var outcomes: [String: Int] = [:]
        for trial in 1...trials {
            let compacting = generator.next() % 4 == 0
            let delay = 1.3 * (compacting ? compactionDuration : importDuration) * Double(generator.next() % 1000) / 1000
            let arguments = compacting ? ["compact", store] : ["import", store, try Self.importFile(trial, in: directory.path), "--entity", "Person"]
            let acknowledged = try Self.runKilled(arguments, after: delay)

            let counts = try Self.importedCounts(in: store)
            if !compacting {
                let imported = counts[trial] ?? 0
                #expect(imported == 0 || imported == Self.recordsPerFile, "trial \(trial): \(imported) of an import's people")
                #expect(!acknowledged || imported == Self.recordsPerFile, "trial \(trial): an import that exited 0 is missing")
                if imported > 0 { present.insert(trial) }
                outcomes[acknowledged ? "import exited 0" : imported > 0 ? "import killed after its commit" : "import killed before its commit", default: 0] += 1
            } else {
                outcomes[acknowledged ? "compaction exited 0" : "compaction killed", default: 0] += 1
            }
            #expect(Set(counts.keys) == present, "trial \(trial): imports present \(counts.keys.sorted()), expected \(present.sorted())")
            #expect(counts.values.allSatisfy { $0 == Self.recordsPerFile }, "trial \(trial)")
            // Opening for writing truncates a torn tail; then the file checks clean.
            try PersistentStack(storeAt: URL(fileURLWithPath: store)).close()
            #expect(try StoreChecker(path: store).run().isSound, "trial \(trial)")
        }
        print("command kill trials: \(trials): " + outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
    }
}

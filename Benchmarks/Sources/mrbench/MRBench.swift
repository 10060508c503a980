import ArgumentParser
import Foundation
import MagicalStore

/// The same workload on our store and on SQLite (GRDB raw statements and GRDB records),
/// in one process and one run: a table of rows per second, or one JSON object.
@main
struct MRBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mrbench",
        abstract: "Import and fetch throughput of MagicalRecord's store side by side with SQLite.",
        discussion: """
        Phases: import_json (N people from JSON bytes into an empty store, committed), upsert \
        (N records, half existing with changed fields, half new), get (100,000 point lookups by \
        key, each materialised), scan (age > 40 AND lastName BEGINSWITH 'S', matches \
        materialised), sorted (first 1,000 by lastName, firstName), aggregate (sum of salary per \
        departmentID), count (salary > 100000), recovery (open time after a writer is killed). \
        Scans, sorts and aggregates report rows scanned per second.
        """
    )

    @Option(help: "People in the workload.")
    var records = 100_000

    @Option(help: "Comma-separated phases to report (default: all). Phases a later one needs still run.")
    var phases: String?

    @Option(help: "Run one system alone (mrstore, sqlite, grdb-records), e.g. to read its peak memory.")
    var system: String?

    @Option(name: .customLong("repeat"), help: "Run each read phase (get, scan, sorted, aggregate, count) this many times and report the fastest.")
    var repetitions = 1

    @Option(help: "Run the whole workload this many times, on new stores each time, and report each figure's median.")
    var runs = 1

    @Option(help: "Where the stores go (default: the temporary directory). Removed afterwards unless --keep.")
    var dir: String?

    @Flag(help: "Keep the stores (for `mrstore info` and `check`); their folder is printed.")
    var keep = false

    @Option(help: "normal (SQLite WAL, synchronous=NORMAL) or full (synchronous=FULL).")
    var durability: BenchDurability = .normal

    @Option(help: "Threads our store's scans may use (default: every core, up to 8; 1: the caller's thread only).")
    var scanThreads: Int?

    @Option(help: "How our store compresses its pages: lz4 (its default), zstd, zstd:LEVEL or none.")
    var compression = CompressionOption(value: .lz4)

    @Option(help: "How our store's compactions (an import's, when most of the file is dead) compress the pages they write. The library's default is as --compression; the benchmark's, zstd:1, which writes files a fifth smaller than LZ4's in about the same time (zstd:3: 2% smaller still, its compaction a quarter slower).")
    var compactionCompression = CompressionOption(value: .zstd(level: 1))

    @Option(name: .customLong("sqlite-cache-mib"), help: "The page cache of each SQLite connection (PRAGMA cache_size), in MiB. By default as large as our store's page cache (\(StoreTuning.defaultSQLiteCacheMiB) MiB); SQLite's own default is 2.")
    var sqliteCacheMiB = StoreTuning.defaultSQLiteCacheMiB

    @Flag(help: "Print one JSON object instead of the table.")
    var json = false

    @Flag(help: "Print the table in Markdown, with the date and machine (for the README).")
    var markdown = false

    @Option(help: .hidden)
    var recoveryWriter: String?

    @Option(help: .hidden)
    var firstKey: Int64 = 0

    func validate() throws {
        guard records >= 2 else { throw ValidationError("--records must be at least 2") }
        guard repetitions >= 1 else { throw ValidationError("--repeat must be at least 1") }
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
        guard scanThreads.map({ $0 >= 1 }) ?? true else { throw ValidationError("--scan-threads must be at least 1") }
        guard sqliteCacheMiB >= 1 else { throw ValidationError("--sqlite-cache-mib must be at least 1") }
    }

    /// How our store runs, from the options.
    private var tuning: StoreTuning {
        StoreTuning(
            scanThreads: scanThreads, compression: compression.value, compactionCompression: compactionCompression.value,
            sqliteCacheMiB: sqliteCacheMiB
        )
    }

    func run() throws {
        if let recoveryWriter {
            try RecoveryPhase.write(system: recoveryWriter, directory: URL(fileURLWithPath: dir ?? "."),
                                    durability: durability, tuning: tuning, firstKey: firstKey)
            return
        }
        let selected = try selectedPhases()
        let systems = try selectedSystems()
        let progress = Progress(enabled: isatty(STDERR_FILENO) != 0)

        progress.show("generating \(records) records")
        let data = BenchData(records: records)
        let workDirectory = URL(fileURLWithPath: dir ?? NSTemporaryDirectory())
            .appendingPathComponent("mrbench-\(getpid())")
        try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
        defer {
            if keep {
                FileHandle.standardError.write(Data("stores kept in \(workDirectory.path)\n".utf8))
            } else {
                try? FileManager.default.removeItem(at: workDirectory)
            }
        }

        var measured: [BenchResults] = []
        for run in 1...runs {
            var results = BenchResults(records: records, durability: durability, compression: compression.value, compactionCompression: compactionCompression.value, sqliteCacheMiB: sqliteCacheMiB, systems: systems.map { $0.name }, phases: selected)
            let runDirectory = runs == 1 ? workDirectory : workDirectory.appendingPathComponent("run-\(run)")
            let label = runs == 1 ? "" : "run \(run) of \(runs), "
            try runPhases(systems, in: runDirectory, data: data, selected: selected, into: &results, progress: progress, label: label)
            measured.append(results)
        }
        var results = BenchResults.median(of: measured)
        // The peak is reset before each import: the process's is the largest seen.
        results.peakResidentBytes = max(results.peakResidentBytes, peakResidentBytes())
        progress.clear()
        print(json ? results.json() : markdown ? results.markdown() : results.table())
    }

    /// A system under test with its store's folder.
    private struct OpenSystem {
        let type: any BenchSystem.Type
        let system: any BenchSystem
        let folder: URL
    }

    /// Every phase on each system in turn, and each round of a read phase likewise: this
    /// machine's speed drifts from minute to minute, and a ratio compares figures taken
    /// within the same minute, where one system's whole workload run after another's put
    /// minutes between them.
    private func runPhases(
        _ systemTypes: [any BenchSystem.Type], in runDirectory: URL, data: BenchData, selected: [Phase],
        into results: inout BenchResults, progress: Progress, label: String
    ) throws {
        var open: [OpenSystem] = []
        for type in systemTypes {
            let folder = runDirectory.appendingPathComponent(type.name)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            open.append(OpenSystem(type: type, system: try type.init(directory: folder, durability: durability, tuning: tuning), folder: folder))
        }
        let last = selected.filter { $0 != .recovery }.map(\.order).max() ?? Phase.importJSON.order
        var storedRows = 0
        for phase in Phase.allCases where phase != .recovery && (phase.order <= Phase.upsert.order ? phase.order <= last : selected.contains(phase)) {
            let rounds = phase.order > Phase.upsert.order ? repetitions : 1
            var fastest = [Duration?](repeating: nil, count: open.count)
            var answers = [PhaseAnswer](repeating: PhaseAnswer(count: 0), count: open.count)
            for round in 1...rounds {
                for (index, entry) in open.enumerated() {
                    progress.show("\(label)\(phase.rawValue)\(rounds > 1 ? " \(round)/\(rounds)" : ""): \(entry.type.name)")
                    if phase == .importJSON { results.peakResidentBytes = max(results.peakResidentBytes, ResidentMemory.peak ?? 0) }
                    let before = phase == .importJSON && ResidentMemory.resetPeak() ? ResidentMemory.current : nil
                    let elapsed = try ContinuousClock().measure { answers[index] = try run(phase, on: entry.system, data: data) }
                    try check(answers[index], of: phase, by: entry.type.name, data: data)
                    if let before, let peak = ResidentMemory.peak, selected.contains(phase) {
                        results.importMemoryBytes[entry.type.name] = peak > before ? peak - before : 0
                    }
                    fastest[index] = min(fastest[index] ?? elapsed, elapsed)
                }
            }
            switch phase {
            case .importJSON: storedRows = answers.first?.count ?? 0
            case .upsert: storedRows = data.rowsAfterUpsert
            default: break
            }
            guard selected.contains(phase) else { continue }
            for (index, entry) in open.enumerated() {
                guard let elapsed = fastest[index] else { continue }
                let rows = [.importJSON, .upsert, .get].contains(phase) ? answers[index].count : storedRows
                results.record(phase, system: entry.type.name, rows: rows, seconds: elapsed.seconds)
                if phase.order <= Phase.upsert.order, let compaction = entry.system.lastCompaction {
                    results.recordCompaction(phase, system: entry.type.name, seconds: compaction.seconds, of: elapsed.seconds)
                }
            }
        }
        results.storedRows = storedRows
        for entry in open {
            try entry.system.close()
            results.fileBytes[entry.type.name] = entry.system.fileBytes
            if selected.contains(.recovery), entry.type.name != GRDBRecordsSystem.name {
                progress.show("\(label)recovery: \(entry.type.name)")
                results.recoverySeconds[entry.type.name] = try RecoveryPhase.measure(
                    entry.type, in: entry.folder, durability: durability, tuning: tuning,
                    firstKey: Int64(data.rowsAfterUpsert) * 10, storedRows: storedRows
                )
            }
            if !keep { try? FileManager.default.removeItem(at: entry.folder) }
        }
    }

    private func run(_ phase: Phase, on system: any BenchSystem, data: BenchData) throws -> PhaseAnswer {
        switch phase {
        case .importJSON: PhaseAnswer(count: try system.importJSON(data))
        case .upsert: PhaseAnswer(count: try system.upsert(data))
        case .get: try system.get(data.lookupKeys)
        case .scan: try system.scan()
        case .sorted: try system.sorted()
        case .aggregate: try system.aggregate()
        case .count: try system.count()
        case .recovery: PhaseAnswer(count: 0)
        }
    }

    /// A system whose answer differs from the data's fails the run: its speed would mean
    /// nothing.
    private func check(_ answer: PhaseAnswer, of phase: Phase, by system: String, data: BenchData) throws {
        guard let expected = data.expected.answer(for: phase), answer != expected else { return }
        throw BenchError.wrongAnswer(system: system, phase: phase.rawValue, got: answer, expected: expected)
    }

    private func selectedPhases() throws -> [Phase] {
        guard let phases else { return Phase.allCases }
        return try phases.split(separator: ",").map { name in
            guard let phase = Phase(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                throw BenchError.unknownPhase(String(name))
            }
            return phase
        }
    }

    private func selectedSystems() throws -> [any BenchSystem.Type] {
        guard let system else { return BenchSystems.all }
        guard let named = BenchSystems.named(system) else { throw BenchError.unknownSystem(system) }
        return [named]
    }

    /// The process's peak resident set (getrusage), meaningful per system with `--system`.
    private func peakResidentBytes() -> UInt64 {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return UInt64(usage.ru_maxrss) * 1_024
    }
}

extension BenchDurability: ExpressibleByArgument {}

extension Phase {
    var order: Int { Phase.allCases.firstIndex(of: self)! }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// One line on standard error, rewritten as phases go, when that is a terminal.
struct Progress {
    let enabled: Bool

    func show(_ text: String) {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(text)...".utf8))
    }

    func clear() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}

/// `--compression`, read as our store's tools read it.
struct CompressionOption: ExpressibleByArgument {
    var value: PageCompression

    init(value: PageCompression) {
        self.value = value
    }

    init?(argument: String) {
        guard let value = PageCompression(parsing: argument) else { return nil }
        self.value = value
    }

    var defaultValueDescription: String { value.description }
}

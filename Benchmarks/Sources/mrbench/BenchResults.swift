import Foundation
import MagicalStore

/// What a run measured (or the medians of several runs), printed as a table or as one JSON object:
/// `{"records": N, "runs": n, "durability": "...", "mrstore_compression": "...",
/// "mrstore_compaction_compression": "...", "sqlite_cache_mib": M, "phases": {"import_json": {"mrstore": R, ...}, ...},
/// "compaction_seconds": {"upsert": {"mrstore": S}}, "file_bytes": {...}, "recovery_open_seconds": {...},
/// "import_memory_bytes": {...}, "peak_rss_bytes": B}`, R in rows per second.
struct BenchResults {
    let records: Int
    let durability: BenchDurability
    /// How our store compressed its pages (`--compression`), and its compactions theirs
    /// (`--compaction-compression`).
    let compression: PageCompression
    let compactionCompression: PageCompression
    /// SQLite's page cache (`--sqlite-cache-mib`).
    let sqliteCacheMiB: Int
    let systems: [String]
    let phases: [Phase]
    private(set) var rates: [Phase: [String: Double]] = [:]
    /// Per import phase and system, the compaction the phase ran within its time: seconds,
    /// and its share of the phase.
    private(set) var compactions: [Phase: [String: (seconds: Double, share: Double)]] = [:]
    var fileBytes: [String: UInt64] = [:]
    var recoverySeconds: [String: Double] = [:]
    var peakResidentBytes: UInt64 = 0
    /// How far resident memory rose above where it stood when `import_json` began (its
    /// input already in memory), per system.
    var importMemoryBytes: [String: UInt64] = [:]
    /// People in each store when its file size was taken.
    var storedRows = 0
    /// Whole runs these figures are the medians of (``median(of:)``).
    private(set) var runs = 1
    /// Per peer and phase, the lowest and highest of the runs' own ratios (ours to the
    /// peer's), when there were several runs.
    private var ratioSpread: [String: [Phase: ClosedRange<Double>]] = [:]

    init(
        records: Int, durability: BenchDurability, compression: PageCompression, compactionCompression: PageCompression,
        sqliteCacheMiB: Int, systems: [String], phases: [Phase]
    ) {
        self.records = records
        self.durability = durability
        self.compression = compression
        self.compactionCompression = compactionCompression
        self.sqliteCacheMiB = sqliteCacheMiB
        self.systems = systems
        self.phases = phases
    }

    mutating func record(_ phase: Phase, system: String, rows: Int, seconds: Double) {
        rates[phase, default: [:]][system] = Double(rows) / max(seconds, 1e-9)
    }

    mutating func recordCompaction(_ phase: Phase, system: String, seconds: Double, of phaseSeconds: Double) {
        compactions[phase, default: [:]][system] = (seconds, seconds / max(phaseSeconds, 1e-9))
    }

    /// Each figure the median of its values in `runs` (the process's peak, the largest):
    /// one slow or fast run, which this machine has, moves a median little.
    static func median(of runs: [BenchResults]) -> BenchResults {
        guard var merged = runs.first else { preconditionFailure("no runs to take the medians of") }
        guard runs.count > 1 else { return merged }
        func median<Value: Comparable>(_ values: [Value]) -> Value? {
            values.isEmpty ? nil : values.sorted()[(values.count - 1) / 2]
        }
        for phase in merged.phases {
            for system in merged.systems {
                merged.rates[phase, default: [:]][system] = median(runs.compactMap { $0.rates[phase]?[system] })
            }
        }
        for phase in merged.phases {
            for system in merged.systems {
                let measured = runs.compactMap { $0.compactions[phase]?[system] }
                guard let seconds = median(measured.map(\.seconds)), let share = median(measured.map(\.share)) else { continue }
                merged.compactions[phase, default: [:]][system] = (seconds, share)
            }
        }
        for system in merged.systems {
            merged.fileBytes[system] = median(runs.compactMap { $0.fileBytes[system] })
            merged.recoverySeconds[system] = median(runs.compactMap { $0.recoverySeconds[system] })
            merged.importMemoryBytes[system] = median(runs.compactMap { $0.importMemoryBytes[system] })
        }
        merged.peakResidentBytes = runs.map(\.peakResidentBytes).max() ?? 0
        merged.runs = runs.count
        for peer in merged.comparedPeers {
            for phase in merged.ratePhases {
                let ratios = runs.compactMap { $0.ratioValue($0.rates[phase], peer) }
                if let low = ratios.min(), let high = ratios.max() { merged.ratioSpread[peer, default: [:]][phase] = low...high }
            }
        }
        return merged
    }

    /// The systems ours is compared with (none when ours did not run).
    private var comparedPeers: [String] {
        systems.contains(MagicalRecordSystem.name) ? systems.filter { $0 != MagicalRecordSystem.name } : []
    }

    /// Lines saying how far each ratio moved between the runs.
    private var spreadLines: [String] {
        comparedPeers.compactMap { peer in
            guard let spread = ratioSpread[peer], !spread.isEmpty else { return nil }
            let ranges = ratePhases.compactMap { phase in
                spread[phase].map { String(format: "%@ %.2f-%.2fx", phase.rawValue, $0.lowerBound, $0.upperBound) }
            }
            return "mrstore/\(peer) between the \(runs) runs: " + ranges.joined(separator: ", ")
        }
    }

    private var ratePhases: [Phase] { phases.filter { $0 != .recovery } }

    /// How the figures were taken, for the headings.
    private var runsNote: String { runs > 1 ? ", each figure the median of \(runs) runs" : "" }

    func json() -> String {
        func object(_ pairs: [(String, String)]) -> String {
            "{" + pairs.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
        }
        func number(_ value: Double) -> String { String(format: "%.1f", value) }
        let phaseObjects = ratePhases.map { phase in
            (phase.rawValue, object(systems.compactMap { system in rates[phase]?[system].map { (system, number($0)) } }))
        }
        return object([
            ("records", String(records)),
            ("runs", String(runs)),
            ("durability", "\"\(durability.rawValue)\""),
            ("mrstore_compression", "\"\(compression)\""),
            ("mrstore_compaction_compression", "\"\(compactionCompression)\""),
            ("sqlite_cache_mib", String(sqliteCacheMiB)),
            ("phases", object(phaseObjects)),
            ("compaction_seconds", object(ratePhases.compactMap { phase in
                guard let measured = compactions[phase] else { return nil }
                return (phase.rawValue, object(systems.compactMap { system in
                    measured[system].map { (system, String(format: "%.3f", $0.seconds)) }
                }))
            })),
            ("file_bytes", object(systems.compactMap { system in fileBytes[system].map { (system, String($0)) } })),
            ("recovery_open_seconds", object(systems.compactMap { system in
                recoverySeconds[system].map { (system, String(format: "%.6f", $0)) }
            })),
            ("import_memory_bytes", object(systems.compactMap { system in importMemoryBytes[system].map { (system, String($0)) } })),
            ("peak_rss_bytes", String(peakResidentBytes)),
        ])
    }

    /// The same rows as ``table()``, as a Markdown table under a line saying where and when
    /// they were measured (for the README).
    func markdown() -> String {
        let rows = cells()
        let date = ISO8601DateFormatter.string(from: Date(), timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withFullDate])
        let memory = String(format: "%.0f GiB", Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824)
        var lines = [
            "\(date), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(memory), N = \(records), durability \(durability.rawValue), mrstore pages \(compression), compactions \(compactionCompression), SQLite page cache \(sqliteCacheMiB) MiB\(runsNote); "
                + "rows per second (scan, sorted, aggregate, count: rows scanned per second):",
            "",
            "| " + rows[0].joined(separator: " | ") + " |",
            "|" + rows[0].indices.map { $0 == 0 ? " --- |" : " ---: |" }.joined(),
        ]
        lines += rows.dropFirst().map { "| " + $0.joined(separator: " | ") + " |" }
        if !spreadLines.isEmpty { lines += [""] + spreadLines }
        return lines.joined(separator: "\n")
    }

    func table() -> String {
        let rows = cells()
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        let lines = rows.map { row in
            row.enumerated().map { column, cell in
                column == 0
                    ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - cell.count) + cell
            }.joined(separator: "   ")
        }
        let heading = "mrbench: \(records) records, durability \(durability.rawValue), mrstore pages \(compression), compactions \(compactionCompression), "
            + "SQLite page cache \(sqliteCacheMiB) MiB, "
            + "\(ProcessInfo.processInfo.activeProcessorCount) cores\(runsNote); rows per second"
            + " (scan, sorted, aggregate, count: rows scanned per second)"
        let footer = String(format: "peak resident memory of this process: %.0f MB", Double(peakResidentBytes) / 1_048_576)
        return ([heading, ""] + lines + (spreadLines.isEmpty ? [] : [""] + spreadLines) + ["", footer]).joined(separator: "\n")
    }

    /// The table's cells: a heading row, a row per phase, file size and recovery.
    private func cells() -> [[String]] {
        let compared = comparedPeers
        var rows = [["phase"] + systems + compared.map { "mrstore/\($0)" }]
        for phase in ratePhases {
            let values = systems.map { system in rates[phase]?[system].map { Self.rate($0) } ?? "-" }
            rows.append([phase.rawValue] + values + compared.map { ratio(rates[phase], $0) })
        }
        for phase in ratePhases {
            guard let measured = compactions[phase] else { continue }
            rows.append(["\(phase.rawValue): compaction"] + systems.map { system in
                measured[system].map { String(format: "%.2f s, %.0f%%", $0.seconds, $0.share * 100) } ?? "-"
            } + compared.map { _ in "" })
        }
        let bytes = systems.map { system in
            fileBytes[system].map { String(format: "%.1f MB, %.0f B/row", Double($0) / 1e6, Double($0) / Double(storedRows)) } ?? "-"
        }
        rows.append(["file size"] + bytes + compared.map { peer in
            guard let ours = fileBytes[MagicalRecordSystem.name], let theirs = fileBytes[peer], theirs > 0 else { return "-" }
            return String(format: "%.2fx", Double(ours) / Double(theirs))
        })
        if !importMemoryBytes.isEmpty {
            rows.append(["import memory"] + systems.map { system in
                importMemoryBytes[system].map { String(format: "+%.0f MB", Double($0) / 1_048_576) } ?? "-"
            } + compared.map { peer in
                guard let ours = importMemoryBytes[MagicalRecordSystem.name], let theirs = importMemoryBytes[peer], theirs > 0 else { return "-" }
                return String(format: "%.2fx", Double(ours) / Double(theirs))
            })
        }
        if phases.contains(.recovery) {
            rows.append(["recovery open"] + systems.map { system in
                recoverySeconds[system].map { String(format: "%.1f ms", $0 * 1_000) } ?? "-"
            } + compared.map { _ in "" })
        }
        return rows
    }

    private func ratio(_ rates: [String: Double]?, _ peer: String) -> String {
        ratioValue(rates, peer).map { String(format: "%.2fx", $0) } ?? "-"
    }

    private func ratioValue(_ rates: [String: Double]?, _ peer: String) -> Double? {
        guard let ours = rates?[MagicalRecordSystem.name], let theirs = rates?[peer], theirs > 0 else { return nil }
        return ours / theirs
    }

    private static func rate(_ value: Double) -> String {
        let formatter = NumberFormatter()
        formatter.numberStyle = .decimal
        formatter.maximumFractionDigits = 0
        return (formatter.string(from: NSNumber(value: value)) ?? String(format: "%.0f", value)) + "/s"
    }
}

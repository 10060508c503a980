import Foundation
import MagicalStore

/// Engine figures: bulk insert, point lookups, ordered scans, small durable commits, file
/// size with and without LZ4, reopen time. `--keys N`, `--random-values`, `--json`, `--dir D`.
@main
struct StoreBench {
    struct Options {
        var keys = 1_000_000
        var randomValues = false
        var json = false
        var directory = NSTemporaryDirectory()
    }

    static func main() throws {
        let options = try parse(CommandLine.arguments.dropFirst())
        let workload = Workload(count: options.keys, randomValues: options.randomValues)
        let directory = options.directory + "/storebench-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        var results = Results(keys: options.keys)
        try measure(workload, in: directory, into: &results, report: !options.json)
        if options.json {
            print(results.json())
        }
    }

    static func parse(_ arguments: ArraySlice<String>) throws -> Options {
        var options = Options()
        var remaining = arguments.makeIterator()
        while let argument = remaining.next() {
            switch argument {
            case "--keys": options.keys = Int(remaining.next() ?? "") ?? options.keys
            case "--random-values": options.randomValues = true
            case "--json": options.json = true
            case "--dir": options.directory = remaining.next() ?? options.directory
            default:
                FileHandle.standardError.write(Data("usage: storebench [--keys N] [--random-values] [--json] [--dir DIR]\n".utf8))
                exit(2)
            }
        }
        return options
    }

    static func measure(_ workload: Workload, in directory: String, into results: inout Results, report: Bool) throws {
        let clock = ContinuousClock()
        let entries = workload.sortedEntries()
        let count = workload.count
        func record(_ name: String, _ operations: Int, _ duration: Duration) {
            results.record(name, operations: operations, seconds: duration.seconds)
            if report {
                print(name.padding(toLength: 16, withPad: " ", startingAt: 0)
                    + String(format: "%12.0f /s   (%d in %.3f s)", Double(operations) / duration.seconds, operations, duration.seconds))
            }
        }

        // Bulk insert: sorted keys, one durable transaction, the commit's fdatasync included.
        let path = directory + "/bench.store"
        let store = try Store(path: path, options: StoreOptions(durability: .full))
        record("bulk_insert", count, try clock.measure {
            try store.write { try $0.createTree("bench").putBatch(entries) }
        })

        // Point lookups, keys rebuilt as an application would: first on the store just
        // written (the first touch of each page reads it), then again with every page cached.
        let tree = try store.read().tree("bench")
        var generator = SplitMix64(seed: 2)
        let probes = (0..<1_000_000).map { _ in Int.random(in: 0..<count, using: &generator) }
        for name in ["get", "get_warm"] {
            var checksum = 0
            record(name, probes.count, try clock.measure {
                for index in probes { checksum &+= try tree.get(Workload.key(index))?.count ?? 0 }
            })
            precondition(checksum == probes.count * 100, "lookups must find every key")
        }

        var scanned = 0
        record("scan", count, try clock.measure {
            try tree.scan { _, value in scanned &+= value.count; return true }
        })
        record("scan_reverse", count, try clock.measure {
            try tree.scan(reverse: true) { _, value in scanned &+= value.count; return true }
        })

        // Random-order single puts of new keys in one transaction.
        let inserts = min(100_000, count)
        let newKeys = (0..<inserts).map { _ in Workload.key(count + Int.random(in: 0..<(count * 10), using: &generator)) }
        let value = entries[0].value
        record("random_insert", inserts, try clock.measure {
            try store.write { transaction in
                let tree = try transaction.tree("bench")
                for key in newKeys { try tree.put(key, value) }
            }
        })

        // Small durable transactions: the fdatasync per commit dominates.
        let commits = 1000
        record("commits_full", commits, try clock.measure {
            for commit in 0..<commits {
                try store.write { transaction in
                    let tree = try transaction.tree("bench")
                    for index in 0..<10 { try tree.put(Workload.key(commit * 10 + index), value) }
                }
            }
        })
        try store.close()

        // Reopen: header, checkpoint commit, and the log after it.
        record("open", 1, try clock.measure { try Store(path: path).close() })

        // File size of the bulk-loaded store, with each page codec and without.
        for compression in [PageCompression.lz4, .zstd, .none] {
            let name = compression == .none ? "raw" : "\(compression)"
            let sizePath = directory + "/size-\(name).store"
            let sized = try Store(path: sizePath, options: StoreOptions(durability: .none, compression: compression))
            try sized.write { try $0.createTree("bench").putBatch(entries) }
            let bytes = try sized.info().fileBytes
            try sized.close()
            results.fileBytes[name] = bytes
            if report {
                print("file size \(name)".padding(toLength: 16, withPad: " ", startingAt: 0)
                    + String(format: "%12llu bytes (%.1f bytes/key)", bytes, Double(bytes) / Double(count)))
            }
        }
    }
}

struct Results {
    let keys: Int
    var rates: [(String, Double)] = []
    var fileBytes: [String: UInt64] = [:]

    mutating func record(_ name: String, operations: Int, seconds: Double) {
        rates.append((name, Double(operations) / seconds))
    }

    func json() -> String {
        let object: [String: Any] = [
            "keys": keys,
            "rates": Dictionary(uniqueKeysWithValues: rates.map { ($0.0, $0.1.rounded()) }),
            "file_bytes": fileBytes,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

import ArgumentParser
import Foundation
import MagicalRecord
import MagicalStore

@main
struct MRStore: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mrstore",
        abstract: "Inspect, query, check and maintain MagicalRecord store files.",
        discussion: "Every command takes the path of a store file. Object commands (fetch, count, aggregate, model) read the model the store was written with, so no model file is needed. Errors are printed with what went wrong and where; no command modifies a store it cannot trust.",
        subcommands: [
            ImportCommand.self, FetchCommand.self, CountCommand.self, AggregateCommand.self, ModelCommand.self,
            InfoCommand.self, CheckCommand.self, CompactCommand.self, MigrateCommand.self, DemoCommand.self,
        ]
    )
}

/// Runs `body`, printing a store error as a message instead of a trace, and exiting with
/// `code`.
func reportingErrors<T>(exitCode code: Int32 = 1, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as StoreError {
        printError("mrstore: \(error.description)")
        throw ExitCode(code)
    } catch let error as MagicalRecordError {
        printError("mrstore: \(error.description)")
        throw ExitCode(code)
    }
}

func printError(_ message: String) {
    var standardError = StandardError()
    print(message, to: &standardError)
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandle.standardError.write(Data(string.utf8))
    }
}

/// "1.5 MiB" for a byte count.
func humanBytes(_ bytes: UInt64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"]
    var value = Double(bytes)
    var unit = 0
    while value >= 1024 && unit < units.count - 1 {
        value /= 1024
        unit += 1
    }
    return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
}

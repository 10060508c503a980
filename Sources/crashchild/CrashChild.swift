import ArgumentParser
import Foundation
import MagicalRecord
import MagicalStore

/// The child process of the crash test (Tests/crashchildTests): runs the workload's steps
/// on a store (in `full` durability unless told otherwise), appending each acknowledged step to a synced ledger,
/// until it reaches `--steps` or is killed. Started again on the same store, it resumes
/// after the last step the store holds.
@main
struct CrashChild: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crashchild",
        abstract: "Run the crash test's workload on a store until killed."
    )

    @Argument(help: "The store file (created when missing).")
    var store: String

    @Argument(help: "The ledger file: one acknowledged step number a line.")
    var ledger: String

    @Option(help: "The workload's seed.")
    var seed: UInt64 = 1

    @Option(help: "Stop after the step with this number.")
    var steps: Int = .max

    @Option(help: "full, normal or none: a process crash must lose no acknowledged step in any of them.")
    var durability: String = Durability.full.rawValue

    func validate() throws {
        guard Durability(rawValue: durability) != nil else {
            throw ValidationError("unknown durability \"\(durability)\": use full, normal or none")
        }
    }

    func run() throws {
        let mode = Durability(rawValue: durability) ?? .full
        let stack = try PersistentStack(storeAt: URL(fileURLWithPath: store), model: crashModel, durability: mode)
        let runner = WorkloadRunner(stack: stack, workload: Workload(seed: seed))
        let ledger = Ledger(path: ledger)
        var number = try runner.committedStep()
        while number < steps {
            number += 1
            try runner.perform(number)
            try ledger.acknowledge(number)
        }
        try stack.close()
    }
}

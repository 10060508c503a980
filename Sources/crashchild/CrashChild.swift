import ArgumentParser
import Foundation
import MagicalRecord

/// The child process of the crash test (Tests/crashchildTests): runs the workload's steps
/// on a store in `full` durability, appending each acknowledged step to a synced ledger,
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

    func run() throws {
        let stack = try PersistentStack(storeAt: URL(fileURLWithPath: store), model: crashModel, durability: .full)
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

import ArgumentParser
import Foundation
import MagicalRecord

struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store to a model version (lightweight migration).",
        discussion: """
            Prints the plan: each change, how it is carried out, and whether it rewrites data. Without --dry-run, \
            then carries it out in one crash-safe step: a kill at any moment leaves the store at the old model or \
            the new one. With a .xcdatamodeld, the migration goes through the versions between the store's and the \
            current one. A change that needs user code (String to Date, a required attribute without a default, \
            to-many to to-one...) is listed and the command exits 2 without touching the store.
            """
    )

    @Argument(help: "The store file.")
    var store: String

    @Option(help: "The model to migrate to (.xcdatamodeld, .xcdatamodel or JSON); its current version is the target.")
    var model: String

    @Flag(help: "Print the plan and change nothing.")
    var dryRun = false

    func run() throws {
        let url = URL(fileURLWithPath: store)
        let versions = try reportingErrors {
            do throws(ModelError) {
                return try ModelVersions(contentsOf: URL(fileURLWithPath: model))
            } catch {
                throw MagicalRecordError.model(error)
            }
        }
        let plan = try reportingErrors { try StoreMigration.plan(storeAt: url, to: versions) }
        print(plan)
        guard plan.isPossible else {
            printError("mrstore: \(store) cannot be migrated to this model without user code; nothing was changed")
            throw ExitCode(2)
        }
        guard !dryRun else { return }
        let started = Date()
        _ = try reportingErrors { try StoreMigration.migrate(storeAt: url, to: versions) }
        print("migrated \(store) in \(String(format: "%.3f", Date().timeIntervalSince(started))) s")
    }
}

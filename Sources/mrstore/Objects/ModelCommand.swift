import ArgumentParser
import Foundation
import MagicalRecord

struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Print the model a store was written with.",
        discussion: "Entities with their attributes, relationships and user info, and the model's version hash, after the versions the store was migrated from (if any); with --json, the store's JSON model description (Spec/MODEL.md), slot map included."
    )

    @Argument(help: "The store file.")
    var store: String

    @Flag(help: "Print the JSON model description instead of text.")
    var json = false

    func run() throws {
        let stack = try reportingErrors { try openObjectStore(store) }
        defer { try? stack.close() }
        if json {
            print(String(decoding: stack.modelDescription.encoded(prettyPrinted: true), as: UTF8.self))
        } else {
            if let history = stack.modelHistory {
                print("migrated from: " + history.versions.all.map { "\($0.versionName ?? "unnamed") (\($0.versionHash.prefix(8)))" }.joined(separator: ", "))
            }
            print(stack.model.summary, terminator: "")
        }
    }
}

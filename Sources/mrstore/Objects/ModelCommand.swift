import ArgumentParser
import Foundation
import MagicalRecord

struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Print the model a store was written with.",
        discussion: "Entities with their attributes, relationships and user info, and the model's version hash; with --json, the store's JSON model description (Spec/MODEL.md), slot map included."
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
            print(stack.model.summary, terminator: "")
        }
    }
}

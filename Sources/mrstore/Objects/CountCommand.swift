import ArgumentParser
import MagicalRecord

struct CountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "count",
        abstract: "Print how many objects of an entity match a predicate."
    )

    @OptionGroup var options: EntityOptions

    func run() throws {
        let (stack, request) = try options.open()
        defer { try? stack.close() }
        print(try reportingErrors { try stack.mainContext.count(for: request) })
    }
}

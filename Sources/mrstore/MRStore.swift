import ArgumentParser

@main
struct MRStore: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mrstore",
        abstract: "Inspect and maintain MagicalStore files."
    )
}

import ArgumentParser
import MagicalRecord

struct AggregateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "aggregate",
        abstract: "Sum, average, min, max or count an attribute, optionally per group.",
        discussion: """
        Prints one number (null when there is nothing to aggregate), or with --group-by a \
        JSON array of {"<group attribute>": value, "result": value}, one per group in the \
        group value's order.
        """
    )

    @OptionGroup var options: EntityOptions

    @Option(help: "sum:, min:, max:, average: or count: (the colon is optional).")
    var op: String

    @Option(help: "The attribute aggregated.")
    var attribute: String

    @Option(help: "An attribute to group by.")
    var groupBy: String?

    @Flag(help: "Print JSON (a JSON number or null; grouped results are always JSON).")
    var json = false

    func run() throws {
        let (stack, request) = try options.open()
        defer { try? stack.close() }
        try reportingErrors {
            let operation = try AggregateOperation(parsing: op)
            let context = stack.mainContext
            if let groupBy {
                let rows = try context.aggregate(
                    operation, onAttribute: attribute, entityName: request.entityName, with: request.predicate, groupBy: groupBy
                )
                let items = rows.map { row in
                    "{" + AttributeValue.jsonString(groupBy) + ": " + (row[groupBy] ?? .null).jsonText
                        + ", \"result\": " + (row["result"] ?? .null).jsonText + "}"
                }
                print(items.isEmpty ? "[]" : "[\n  " + items.joined(separator: ",\n  ") + "\n]")
            } else {
                let value = try context.aggregate(operation, onAttribute: attribute, entityName: request.entityName, with: request.predicate)
                print(json ? value.jsonText : ObjectRendering.plain(value))
            }
        }
    }
}

import ArgumentParser
import MagicalRecord

struct FetchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Print the objects of an entity, filtered, sorted and paged.",
        discussion: """
        With --json, a JSON array of objects: attributes by name (dates as ISO 8601 UTC), \
        to-one relationships as the target's relatedByAttribute value (or null), to-many \
        ones as arrays of those. A table otherwise.
        """
    )

    @OptionGroup var options: EntityOptions

    @Option(help: "A MagicalRecord sort string, e.g. \"lastName:NO,firstName\".")
    var sort: String?

    @Option(help: "At most this many objects.")
    var limit: Int = 0

    @Option(help: "Skip this many objects first.")
    var offset: Int = 0

    @Flag(help: "Print a JSON array instead of a table.")
    var json = false

    @Flag(help: "Print how the store would be read (index or scan) instead of the objects.")
    var explain = false

    func run() throws {
        var (stack, request) = try options.open()
        defer { try? stack.close() }
        try reportingErrors {
            if let sort { request.sortKeys = try SortKey.parse(sort) }
            request.fetchLimit = limit
            request.fetchOffset = offset
            let context = stack.mainContext
            if explain {
                print(try context.plan(for: request))
                return
            }
            let objects = try context.fetch(request)
            guard let entity = stack.model.entity(named: request.entityName) else { return }
            let rendering = ObjectRendering(entity: entity)
            if json {
                let items = try objects.map { try rendering.json($0) }
                print(items.isEmpty ? "[]" : "[\n  " + items.joined(separator: ",\n  ") + "\n]")
            } else {
                print(ObjectRendering.table(header: rendering.columns, rows: try objects.map { try rendering.cells($0) }))
                print("(\(objects.count) object\(objects.count == 1 ? "" : "s"))")
            }
        }
    }
}

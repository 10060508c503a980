import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// Random sequences of inferred changes against a plain-Swift reference: after every
/// migration, stepwise or through the whole chain at once, each object reads exactly what
/// the reference says (Spec/MIGRATION.md, section 3). Size: MAGICALRECORD_TEST_SCALE.
@Suite struct RandomizedMigrationTests {
    /// One attribute as the reference tracks it.
    struct Column {
        var name: String
        var type: AttributeType
        var isIndexed: Bool
        var defaultValue: AttributeValue
    }

    static let types: [AttributeType] = [.integer16, .integer32, .integer64, .double, .float, .string, .boolean]

    struct Generator {
        var random: SplitMix64
        var names = 0

        mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &random) }
        mutating func chance(_ percent: Int) -> Bool { int(0..<100) < percent }
        mutating func freshName() -> String {
            names += 1
            return "a\(names)"
        }

        mutating func value(_ type: AttributeType) -> AttributeValue {
            if chance(15) { return .null }
            switch type {
            case .integer16: return .integer(Int64(int(-30_000..<30_000)))
            case .integer32: return .integer(Int64(int(-2_000_000_000..<2_000_000_000)))
            case .integer64: return .integer(Int64(int(-1_000_000_000_000..<1_000_000_000_000)))
            case .double: return .double(Double(int(-1_000_000..<1_000_000)) / 8)
            case .float: return .float(Float(int(-10_000..<10_000)) / 4)
            case .boolean: return .bool(chance(50))
            default: return .string(String(repeating: "xyz", count: int(0..<4)) + String(int(0..<1000)))
            }
        }
    }

    /// What the reference expects a value of `from` to become as `to`.
    static func converted(_ value: AttributeValue, from: AttributeType, to: AttributeType) -> AttributeValue {
        guard from != to else { return value }
        switch (value, to) {
        case (.null, _): return .null
        case (.integer(let number), .double): return .double(Double(number))
        case (.float(let number), .double): return .double(Double(number))
        case (.integer(let number), .string): return .string(String(number))
        case (.double(let number), .string): return .string("\(number)")
        case (.float(let number), .string): return .string("\(number)")
        case (.bool(let flag), .string): return .string(flag ? "true" : "false")
        default: return value
        }
    }

    static func wider(_ type: AttributeType, _ generator: inout Generator) -> AttributeType? {
        let options: [AttributeType] = switch type {
        case .integer16: [.integer32, .integer64, .double, .string]
        case .integer32: [.integer64, .double, .string]
        case .integer64: [.double, .string]
        case .float: [.double, .string]
        case .double, .boolean: [.string]
        default: []
        }
        return options.isEmpty ? nil : options[generator.int(0..<options.count)]
    }

    static func model(_ columns: [Column], version: Int, renames: [String: String]) throws -> ObjectModel {
        var attributes = [AttributeDescription("itemID", .integer64, optional: false)]
        for column in columns {
            attributes.append(AttributeDescription(
                column.name, column.type, default: column.defaultValue, indexed: column.isIndexed, renamingIdentifier: renames[column.name]
            ))
        }
        return try ObjectModel(entities: [EntityDescription("Item", attributes: attributes, userInfo: ["relatedByAttribute": "itemID"])], versionName: "V\(version)")
    }

    @Test(arguments: 0..<4)
    func randomChangesMatchTheReference(seed: UInt64) throws {
        for round in 0..<testScale {
            try run(seed: seed * 1000 + UInt64(round))
        }
    }

    private func run(seed: UInt64) throws {
        var generator = Generator(random: SplitMix64(seed: seed))
        var columns: [Column] = (0..<generator.int(2..<6)).map { _ in
            let type = Self.types[generator.int(0..<Self.types.count)]
            return Column(name: generator.freshName(), type: type, isIndexed: generator.chance(30), defaultValue: .null)
        }
        let objects = generator.int(1..<40)
        var reference: [[String: AttributeValue]] = (0..<objects).map { _ in
            Dictionary(uniqueKeysWithValues: columns.map { ($0.name, generator.value($0.type)) })
        }
        var versions = [try Self.model(columns, version: 0, renames: [:])]
        let stepwise = MigrationFixture()
        let chained = MigrationFixture()
        for fixture in [stepwise, chained] {
            try fixture.write(versions[0]) { context in
                for (id, values) in reference.enumerated() {
                    let item = try context.insertObject(entityName: "Item")
                    try item.setValue(.integer(Int64(id)), forKey: "itemID")
                    for (name, value) in values { try item.setValue(value, forKey: name) }
                }
            }
        }
        for version in 1...generator.int(2..<6) {
            var renames: [String: String] = [:]
            var retyped: Set<String> = []
            for _ in 0..<generator.int(1..<4) {
                switch generator.int(0..<5) {
                case 0:
                    let type = Self.types[generator.int(0..<Self.types.count)]
                    let defaultValue = generator.chance(50) ? generator.value(type) : .null
                    let column = Column(name: generator.freshName(), type: type, isIndexed: generator.chance(30), defaultValue: defaultValue)
                    columns.append(column)
                    for index in reference.indices { reference[index][column.name] = defaultValue }
                case 1 where !columns.isEmpty:
                    let removed = columns.remove(at: generator.int(0..<columns.count))
                    for index in reference.indices { reference[index][removed.name] = nil }
                case 2 where !columns.isEmpty:
                    let position = generator.int(0..<columns.count)
                    guard renames[columns[position].name] == nil, !retyped.contains(columns[position].name) else { continue }
                    let old = columns[position].name
                    let new = generator.freshName()
                    columns[position].name = new
                    renames[new] = old
                    for index in reference.indices { reference[index][new] = reference[index].removeValue(forKey: old) }
                case 3 where !columns.isEmpty:
                    // One type change per attribute and version: a version only says where it ends.
                    let position = generator.int(0..<columns.count)
                    guard !retyped.contains(columns[position].name), renames[columns[position].name] == nil,
                          let type = Self.wider(columns[position].type, &generator) else { continue }
                    retyped.insert(columns[position].name)
                    let column = columns[position]
                    for index in reference.indices {
                        reference[index][column.name] = Self.converted(reference[index][column.name] ?? .null, from: column.type, to: type)
                    }
                    columns[position].type = type
                    columns[position].defaultValue = Self.converted(column.defaultValue, from: column.type, to: type)
                case 4 where !columns.isEmpty:
                    columns[generator.int(0..<columns.count)].isIndexed.toggle()
                default: continue
                }
            }
            let model = try Self.model(columns, version: version, renames: renames)
            versions.append(model)
            let stack = try stepwise.open(model)
            try check(stack, reference, columns, "seed \(seed), stepwise to V\(version)")
            try stack.close()
        }
        let stack = try chained.open(try ModelVersions(versions, current: "V\(versions.count - 1)"))
        try check(stack, reference, columns, "seed \(seed), chain of \(versions.count)")
        // Changes may cancel out (an index toggled twice): then there is nothing to migrate.
        let migrated = versions.last!.versionHash != versions[0].versionHash
        #expect(stack.modelHistory?.versions.all.map(\.versionName) == (migrated ? ["V0"] : nil))
        try stack.close()
        #expect(stepwise.isSound && chained.isSound)
    }

    private func check(_ stack: PersistentStack, _ reference: [[String: AttributeValue]], _ columns: [Column], _ label: String) throws {
        let items = try stack.all("Item", sortedBy: "itemID")
        #expect(items.count == reference.count, "\(label)")
        for (id, item) in items.enumerated() {
            for column in columns {
                let value = try item.attributeValue(forKey: column.name)
                let expected = reference[id][column.name] ?? .null
                // A missing value reads the current default (O8).
                let wanted = expected.isNull ? column.defaultValue : expected
                #expect(value == wanted, "\(label): item \(id).\(column.name) is \(value), expected \(wanted)")
            }
        }
        for column in columns where column.isIndexed {
            guard let probe = reference.indices.first(where: { !(reference[$0][column.name] ?? .null).isNull }) else { continue }
            let value = reference[probe][column.name]!
            let matches = try stack.rootContext.fetch(FetchRequest(
                entityName: "Item", predicate: ObjectPredicate(format: "%K == %@", column.name, value)
            ))
            let expected = reference.filter { $0[column.name] == value }.count
            #expect(matches.count == expected, "\(label): index on \(column.name)")
        }
    }
}

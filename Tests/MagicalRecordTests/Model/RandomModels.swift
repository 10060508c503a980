import Foundation
import MagicalStore
@testable import MagicalRecord

/// Valid models made at random from a seed, so a failing case replays: entities with
/// inheritance, attributes of every type with defaults, relationships with and without
/// inverses, keys explicit and conventional, user info and renaming identifiers.
struct RandomModels {
    private var random: SplitMix64
    private var counter = 0

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    mutating func model(versionName: String? = nil) -> ObjectModel {
        // Only valid declarations are made, so resolving cannot fail.
        try! ObjectModel(entities: declarations(), versionName: versionName)
    }

    mutating func declarations() -> [EntityDescription] {
        var entities: [EntityDescription] = []
        for index in 0..<Int.random(in: 1...6, using: &random) {
            let name = "E\(index)" + word(0...4).capitalized
            var entity = EntityDescription(
                name,
                parent: index > 0 && chance(0.3) ? entities[Int.random(in: 0..<index, using: &random)].name : nil,
                abstract: chance(0.2),
                userInfo: userInfo(),
                renamingIdentifier: chance(0.2) ? "Old" + name : nil,
                className: chance(0.5) ? name + "Class" : nil
            )
            for _ in 0..<Int.random(in: 0...5, using: &random) {
                entity.attributes.append(attribute(named: uniqueName("a")))
            }
            if chance(0.3) {
                entity.attributes.append(attribute(named: String(name.prefix(1)).lowercased() + name.dropFirst() + "ID"))
            }
            if let keyed = entity.attributes.randomElement(using: &random), chance(0.3) {
                entity.userInfo[UserInfoKey.relatedByAttribute] = keyed.name
            }
            entities.append(entity)
        }
        for _ in 0..<Int.random(in: 0...4, using: &random) {
            let source = Int.random(in: 0..<entities.count, using: &random)
            let target = Int.random(in: 0..<entities.count, using: &random)
            let forward = uniqueName("r")
            let backward = chance(0.7) ? uniqueName("r") : nil
            entities[source].relationships.append(relationship(forward, to: entities[target].name, inverse: backward))
            if let backward {
                entities[target].relationships.append(relationship(backward, to: entities[source].name, inverse: forward))
            }
        }
        return entities
    }

    mutating func attribute(named name: String) -> AttributeDescription {
        let type = AttributeType.allCases.randomElement(using: &random)!
        return AttributeDescription(
            name,
            type,
            optional: chance(0.6),
            default: chance(0.4) ? .null : value(of: type),
            indexed: chance(0.2),
            userInfo: userInfo(),
            renamingIdentifier: chance(0.2) ? "old_" + name : nil
        )
    }

    /// A value of `type`, often an awkward one: extremes, tiny fractions, odd text.
    mutating func value(of type: AttributeType) -> AttributeValue {
        switch type {
        case .integer16, .integer32, .integer64:
            let range = type.integerRange!
            return .integer(chance(0.2) ? [range.lowerBound, range.upperBound].randomElement(using: &random)! : Int64.random(in: range, using: &random))
        case .double: return .double(finiteOrInfinite(Double.self))
        case .float: return .float(finiteOrInfinite(Float.self))
        case .decimal:
            let digits = String(UInt64.random(in: 0...UInt64.max, using: &random))
            let text = (chance(0.5) ? "-" : "") + digits + "e" + String(Int.random(in: -40...20, using: &random))
            return .decimal(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))!)
        case .boolean: return .bool(chance(0.5))
        case .string: return .string(text())
        case .date:
            let seconds = chance(0.1)
                ? Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &random))
                : Double.random(in: -1e11...1e11, using: &random) * (chance(0.5) ? 1 : 1e-7)
            return .date(Date(timeIntervalSinceReferenceDate: seconds.isNaN ? 0 : seconds))
        case .binary, .transformable:
            return .data(Data((0..<Int.random(in: 0...20, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }))
        case .uuid:
            let hex = (0..<32).map { _ in String(Int.random(in: 0..<16, using: &random), radix: 16) }.joined()
            let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
            return .uuid(UUID(uuidString: parts.joined(separator: "-"))!)
        case .uri:
            return .uri(URL(string: "https://example.com/\(word(1...8))?page=\(Int.random(in: 0...99, using: &random))&q=\(word(0...3))")!)
        }
    }

    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &random) < probability
    }

    private mutating func relationship(_ name: String, to destination: String, inverse: String?) -> RelationshipDescription {
        let toMany = chance(0.5)
        return RelationshipDescription(
            name,
            to: destination,
            inverse: inverse,
            toMany: toMany,
            ordered: toMany && chance(0.5),
            optional: chance(0.8),
            deleteRule: DeleteRule.allCases.randomElement(using: &random)!,
            minCount: chance(0.2) ? Int.random(in: 1...3, using: &random) : 0,
            maxCount: chance(0.2) ? Int.random(in: 3...9, using: &random) : 0,
            userInfo: userInfo(),
            renamingIdentifier: chance(0.1) ? "old_" + name : nil
        )
    }

    private mutating func finiteOrInfinite<Number: BinaryFloatingPoint>(_: Number.Type) -> Number where Number.RawSignificand: FixedWidthInteger {
        if chance(0.05) { return chance(0.5) ? .infinity : -.infinity }
        if chance(0.3) { return Number(Int.random(in: -1000...1000, using: &random)) / 8 }
        let value = Number.random(in: -1...1, using: &random) * Number(Double.random(in: 0...1e30, using: &random))
        return value.isFinite ? value : 0
    }

    private mutating func userInfo() -> [String: String] {
        guard chance(0.3) else { return [:] }
        var entries: [String: String] = [:]
        for _ in 0..<Int.random(in: 1...3, using: &random) { entries[word(1...6)] = text() }
        return entries
    }

    private mutating func uniqueName(_ prefix: String) -> String {
        counter += 1
        return prefix + word(0...3) + "\(counter)"
    }

    private mutating func word(_ length: ClosedRange<Int>) -> String {
        String((0..<Int.random(in: length, using: &random)).map { _ in "abcdefghijklmnopqrstuvwxyz".randomElement(using: &random)! })
    }

    private mutating func text() -> String {
        let pieces = ["plain", "with space", "quote \" and \\ backslash", "slash / here", "é", "名前", "🙂", "\n", "\t", "\u{0}", "<xml>&amp;", ""]
        return (0..<Int.random(in: 0...4, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }
}

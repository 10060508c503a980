import Foundation
@testable import MagicalRecord

/// SplitMix64: a seeded generator, so a failing randomized test replays from its seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    mutating func pick<T>(_ choices: [T]) -> T {
        choices[Int.random(in: 0..<choices.count, using: &self)]
    }

    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < probability
    }
}


/// An object in memory for predicates to be evaluated against: attribute values and
/// relationship targets by key.
struct DictionarySubject: PredicateSubject {
    indirect enum Value {
        case attribute(AttributeValue)
        case toOne(DictionarySubject?)
        case toMany([DictionarySubject])
    }

    var entityName: String
    var number: Int64
    var values: [String: Value]

    init(_ entityName: String, _ number: Int64, _ values: [String: Value] = [:]) {
        self.entityName = entityName
        self.number = number
        self.values = values
    }

    var objectID: ObjectID { ObjectID(entityName: entityName, number: number) }

    var predicateObjectID: ObjectID? { objectID }

    func predicateValue(forKeyPath keyPath: PredicateKeyPath) throws -> PredicateValue {
        try resolve(keyPath.components[...])
    }

    private func resolve(_ keys: ArraySlice<String>) throws -> PredicateValue {
        guard let key = keys.first else { return .object(objectID) }
        guard let value = values[key] else { throw ObjectPredicateError.unknownKey(key, entity: entityName, offset: nil) }
        let rest = keys.dropFirst()
        switch value {
        case .attribute(let attribute):
            guard rest.isEmpty else { throw ObjectPredicateError.evaluation("`\(key)` is an attribute") }
            return .attribute(attribute)
        case .toOne(let target):
            if rest.isEmpty { return .object(target?.objectID) }
            guard let target else { return .attribute(.null) }
            return try target.resolve(rest)
        case .toMany(let targets):
            if rest.isEmpty { return .collection(targets.map { .object($0.objectID) }) }
            var gathered: [PredicateValue] = []
            for target in targets {
                let value = try target.resolve(rest)
                if case .collection(let inner) = value { gathered += inner } else { gathered.append(value) }
            }
            return .collection(gathered)
        }
    }
}

/// A small company: departments with people, people with managers and reports.
enum CompanyModel {
    static let model: ObjectModel = {
        do {
            return try ObjectModel(entities: [
                EntityDescription("Department") {
                    AttributeDescription("name", .string)
                    AttributeDescription("budget", .decimal)
                    RelationshipDescription("employees", to: "Person", inverse: "department", toMany: true)
                },
                EntityDescription("Person") {
                    AttributeDescription("firstName", .string)
                    AttributeDescription("lastName", .string)
                    AttributeDescription("age", .integer16)
                    AttributeDescription("salary", .integer32)
                    AttributeDescription("rating", .double)
                    AttributeDescription("score", .float)
                    AttributeDescription("bonus", .decimal)
                    AttributeDescription("active", .boolean)
                    AttributeDescription("born", .date)
                    AttributeDescription("badge", .uuid)
                    AttributeDescription("homepage", .uri)
                    AttributeDescription("photo", .binary)
                    AttributeDescription("size", .integer64)
                    RelationshipDescription("department", to: "Department", inverse: "employees")
                    RelationshipDescription("manager", to: "Person", inverse: "reports")
                    RelationshipDescription("reports", to: "Person", inverse: "manager", toMany: true)
                },
                EntityDescription("Manager", parent: "Person") {
                    AttributeDescription("level", .integer16)
                },
            ])
        } catch {
            fatalError("the test model does not resolve: \(error)")
        }
    }()

    static var person: Entity { model.entity(named: "Person")! }
    static var department: Entity { model.entity(named: "Department")! }
}

/// The error a closure throws, if it throws a ``ObjectPredicateError``.
func predicateError(_ body: () throws -> Void) -> ObjectPredicateError? {
    do {
        try body()
        return nil
    } catch let error as ObjectPredicateError {
        return error
    } catch {
        return .evaluation("not a ObjectPredicateError: \(error)")
    }
}

/// `left op right` with no modifier and no options, as the parser builds it.
func comparison(
    _ left: ObjectExpression, _ comparisonOperator: PredicateOperator, _ right: ObjectExpression,
    modifier: PredicateModifier = .direct, options: PredicateOptions = []
) -> ObjectPredicate {
    .comparison(PredicateComparison(left, comparisonOperator, right, modifier: modifier, options: options))
}

extension ObjectExpression {
    static func key(_ path: String) -> ObjectExpression { .keyPath(PredicateKeyPath(path)) }
    static func int(_ value: Int64) -> ObjectExpression { .constant(.integer(value)) }
    static func string(_ value: String) -> ObjectExpression { .constant(.string(value)) }
}

import Foundation

/// The operations of MagicalRecord's `aggregateOperation:` (Core Data's `sum:`, `min:`,
/// `max:`, `average:`, `count:`). Nil values are skipped.
public enum AggregateOperation: String, Sendable, CaseIterable {
    case sum, min, max, average, count

    /// Reads `"sum:"` or `"sum"` (any case).
    public init(parsing text: String) throws(MagicalRecordError) {
        var name = text.lowercased()
        if name.hasSuffix(":") { name.removeLast() }
        guard let operation = AggregateOperation(rawValue: name) else {
            throw .invalidFetch("unknown aggregate operation \"\(text)\": use sum:, min:, max:, average: or count:")
        }
        self = operation
    }

    /// Whether the operation needs numbers.
    var isArithmetic: Bool { self == .sum || self == .average }
}

extension ManagedObjectContext {
    /// `operation` over `attribute` of the objects of `entityName` that `predicate`
    /// matches: a sum of integers is an integer (a decimal past Int64), of Double and
    /// Float a Double, of decimals a decimal; an average of integers or floating-point
    /// numbers a Double; min and max have the attribute's type; count is the number of
    /// non-nil values. With nothing to aggregate, count is 0 and the others `.null`.
    public func aggregate(
        _ operation: AggregateOperation, onAttribute attribute: String, entityName: String,
        with predicate: ObjectPredicate? = nil
    ) throws(MagicalRecordError) -> AttributeValue {
        let (executor, path, type) = try prepareAggregate(operation, attribute, entityName, predicate)
        var accumulator = AggregateAccumulator(operation, type: type)
        if let position = executor.ownPosition(of: path),
           try executor.forEachMatchingAttributes([position], { accumulator.add($0[position]) }) {
            return accumulator.result
        }
        try executor.forEachMatch(reading: Set(path.components.prefix(1))) { (state) throws(MagicalRecordError) in
            accumulator.add(try value(at: path, of: state, executor))
        }
        return accumulator.result
    }

    /// One row per value of `groupBy` (an attribute key path, through to-one
    /// relationships), in that value's ascending order: `[groupBy: value, "result": value]`
    /// (MagicalRecord's `result` key). Groups come from matching objects only.
    public func aggregate(
        _ operation: AggregateOperation, onAttribute attribute: String, entityName: String,
        with predicate: ObjectPredicate? = nil, groupBy: String
    ) throws(MagicalRecordError) -> [[String: AttributeValue]] {
        let (executor, path, type) = try prepareAggregate(operation, attribute, entityName, predicate)
        let groupPath = try FetchExecutor.attributePath(groupBy, of: executor.entity, in: model, role: "group-by key")
        var groups: [MatchingValue: AggregateAccumulator] = [:]
        // Integer group values (the common case: a foreign key, a category number) go
        // through a table of their own; they never reach `groups` until the end.
        var integerGroups = IntegerGroupTable()
        var integerAccumulators: [AggregateAccumulator] = []
        if let position = executor.ownPosition(of: path), let groupPosition = executor.ownPosition(of: groupPath),
           try executor.forEachMatchingAttributes([position, groupPosition], { attributes in
               guard case .integer(let key) = attributes[groupPosition] else {
                   groups[MatchingValue(attributes[groupPosition]), default: AggregateAccumulator(operation, type: type)].add(attributes[position])
                   return
               }
               let group = integerGroups.group(of: key)
               if group == integerAccumulators.count { integerAccumulators.append(AggregateAccumulator(operation, type: type)) }
               integerAccumulators[group].add(attributes[position])
           }) {
            for (key, group) in integerGroups.entries { groups[MatchingValue(.integer(key))] = integerAccumulators[group] }
            return Self.rows(groups, groupBy)
        }
        try executor.forEachMatch(reading: Set(path.components.prefix(1) + groupPath.components.prefix(1))) { (state) throws(MagicalRecordError) in
            let group = MatchingValue(try value(at: groupPath, of: state, executor))
            groups[group, default: AggregateAccumulator(operation, type: type)].add(try value(at: path, of: state, executor))
        }
        return Self.rows(groups, groupBy)
    }

    /// The groups as MagicalRecord's rows, in ascending order of the group value.
    private static func rows(_ groups: [MatchingValue: AggregateAccumulator], _ groupBy: String) -> [[String: AttributeValue]] {
        groups
            .sorted { AttributeValue.compare($0.key.value, $1.key.value) == .orderedAscending }
            .map { [groupBy: $0.key.value, "result": $0.value.result] }
    }

    private func prepareAggregate(
        _ operation: AggregateOperation, _ attribute: String, _ entityName: String, _ predicate: ObjectPredicate?
    ) throws(MagicalRecordError) -> (FetchExecutor, PredicateKeyPath, AttributeType) {
        do throws(MagicalRecordError) {
            let executor = try FetchExecutor(FetchRequest(entityName: entityName, predicate: predicate), in: self)
            let path = try FetchExecutor.attributePath(attribute, of: executor.entity, in: model, role: "aggregated attribute")
            let type = try attributeType(at: path, of: executor.entity)
            if operation.isArithmetic, !type.isNumeric {
                throw MagicalRecordError.invalidFetch("\(operation.rawValue): needs a number attribute; \(attribute) is \(type.rawValue)")
            }
            return (executor, path, type)
        } catch {
            Log.log(.error, "aggregate \(operation.rawValue): on \(entityName).\(attribute) failed: \(error)")
            throw error
        }
    }

    private func attributeType(at path: PredicateKeyPath, of entity: Entity) throws(MagicalRecordError) -> AttributeType {
        var current = entity
        for component in path.components.dropLast() {
            guard let relationship = current.relationship(named: component), let next = model.entity(named: relationship.destination) else { break }
            current = next
        }
        guard let last = path.components.last, let attribute = current.attribute(named: last) else {
            throw .invalidFetch("\(path) is not an attribute of entity \(entity.name)")
        }
        return attribute.type
    }

    private func value(at path: PredicateKeyPath, of state: ObjectState, _ executor: FetchExecutor) throws(MagicalRecordError) -> AttributeValue {
        try executor.attributeValue(at: path, of: state)
    }
}

/// Folds values into one aggregate.
struct AggregateAccumulator {
    let operation: AggregateOperation
    let type: AttributeType
    private var count = 0
    private var integerSum: Int64 = 0
    private var decimalSum: Decimal = 0
    private var doubleSum: Double = 0
    private var extreme: AttributeValue?

    init(_ operation: AggregateOperation, type: AttributeType) {
        self.operation = operation
        self.type = type
    }

    mutating func add(_ value: AttributeValue) {
        guard !value.isNull else { return }
        count += 1
        switch operation {
        case .count:
            return
        case .min, .max:
            let wanted: ComparisonResult = operation == .min ? .orderedAscending : .orderedDescending
            if let current = extreme, AttributeValue.compare(value, current) != wanted { return }
            extreme = value
        case .sum, .average:
            switch value {
            case .integer(let number):
                // Wraps on overflow; the result checks it against the exact decimal sum.
                integerSum = integerSum &+ number
                decimalSum += Decimal(number)
                doubleSum += Double(number)
            case .decimal(let number):
                decimalSum += number
            default:
                doubleSum += value.doubleValue ?? 0
            }
        }
    }

    var result: AttributeValue {
        switch operation {
        case .count:
            return .integer(Int64(count))
        case .min, .max:
            return extreme ?? .null
        case .sum:
            guard count > 0 else { return .null }
            if type == .decimal { return .decimal(decimalSum) }
            if type.integerRange != nil { return Decimal(integerSum) == decimalSum ? .integer(integerSum) : .decimal(decimalSum) }
            return .double(doubleSum)
        case .average:
            guard count > 0 else { return .null }
            if type == .decimal { return .decimal(decimalSum / Decimal(count)) }
            if type.integerRange != nil {
                return .double(NSDecimalNumber(decimal: decimalSum / Decimal(count)).doubleValue)
            }
            return .double(doubleSum / Double(count))
        }
    }
}

extension ActiveRecord where Self: ManagedObject {
    /// MagicalRecord's `aggregateOperation:onAttribute:withPredicate:`: `"sum:"`,
    /// `"min:"`, `"max:"`, `"average:"` or `"count:"` over `attribute`.
    public static func aggregateOperation(
        _ operation: String, onAttribute attribute: String, with predicate: ObjectPredicate? = nil,
        in context: ManagedObjectContext? = nil
    ) throws(MagicalRecordError) -> AttributeValue {
        try resolve(context).aggregate(
            try AggregateOperation(parsing: operation), onAttribute: attribute, entityName: entityName, with: predicate
        )
    }

    /// The same, one row per value of `groupBy`: `[groupBy: value, "result": value]`.
    public static func aggregateOperation(
        _ operation: String, onAttribute attribute: String, with predicate: ObjectPredicate? = nil,
        groupBy: String, in context: ManagedObjectContext? = nil
    ) throws(MagicalRecordError) -> [[String: AttributeValue]] {
        try resolve(context).aggregate(
            try AggregateOperation(parsing: operation), onAttribute: attribute, entityName: entityName,
            with: predicate, groupBy: groupBy
        )
    }
}

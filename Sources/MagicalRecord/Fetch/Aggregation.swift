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
    /// Integer sums are exact; doubles are summed with their rounding errors carried, on
    /// every scan thread for a large entity, so a sum of doubles may differ from a plain
    /// left-to-right one in its last bits (it is the closer to the exact sum).
    public func aggregate(
        _ operation: AggregateOperation, onAttribute attribute: String, entityName: String,
        with predicate: ObjectPredicate? = nil
    ) throws(MagicalRecordError) -> AttributeValue {
        let (executor, path, type) = try prepareAggregate(operation, attribute, entityName, predicate)
        let values = KeyPathReader(path, of: executor)
        let start = { (AggregateAccumulator(operation, type: type), values) }
        let addState = { (partial: inout (AggregateAccumulator, KeyPathReader), state: ObjectState) throws(MagicalRecordError) in
            partial.0.add(try partial.1.value(of: state))
        }
        if values.readsInPlace, let partials = try executor.foldMatchingFields(
            [values].compactMap(\.ownPosition), targetsOf: [values].compactMap(\.relationship), start: start,
            { (partial, attributes, targets) throws(MagicalRecordError) in partial.0.add(try partial.1.value(attributes, targets)) }
        ) {
            return Self.merged(partials.map(\.0)).result
        }
        let reading = Set(path.components.prefix(1))
        if let partials = try executor.foldMatchingStates(reading: reading, start: start, addState) {
            return Self.merged(partials.map(\.0)).result
        }
        var whole = start()
        try executor.forEachMatch(reading: reading) { (state) throws(MagicalRecordError) in try addState(&whole, state) }
        return whole.0.result
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
        let values = KeyPathReader(path, of: executor)
        let groupValues = KeyPathReader(groupPath, of: executor)
        let start = { (AggregateGroups(operation, type: type), values, groupValues) }
        let addState = { (partial: inout (AggregateGroups, KeyPathReader, KeyPathReader), state: ObjectState) throws(MagicalRecordError) in
            partial.0.add(try partial.1.value(of: state), groupedBy: try partial.2.value(of: state))
        }
        let readers = [values, groupValues]
        if readers.allSatisfy(\.readsInPlace), let partials = try executor.foldMatchingFields(
            readers.compactMap(\.ownPosition), targetsOf: readers.compactMap(\.relationship), start: start,
            { (partial, attributes, targets) throws(MagicalRecordError) in
                partial.0.add(try partial.1.value(attributes, targets), groupedBy: try partial.2.value(attributes, targets))
            }
        ) {
            return Self.rows(Self.merged(partials.map(\.0)).byValue, groupBy)
        }
        let reading = Set(path.components.prefix(1) + groupPath.components.prefix(1))
        if let partials = try executor.foldMatchingStates(reading: reading, start: start, addState) {
            return Self.rows(Self.merged(partials.map(\.0)).byValue, groupBy)
        }
        var whole = start()
        try executor.forEachMatch(reading: reading) { (state) throws(MagicalRecordError) in try addState(&whole, state) }
        return Self.rows(whole.0.byValue, groupBy)
    }

    /// A fold's partials (never empty: the unsaved matches' comes last) merged in order.
    private static func merged<Partial: MergingFold>(_ partials: [Partial]) -> Partial {
        partials.dropFirst().reduce(into: partials[0]) { $0.merge($1) }
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

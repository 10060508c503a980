/// A grouped aggregate's accumulators by group value. Integer group values (the common
/// case: a foreign key, a category number) go through a table of their own, several
/// times cheaper per row than a dictionary keyed by attribute values.
struct AggregateGroups: MergingFold {
    private let operation: AggregateOperation
    private let type: AttributeType
    private var integerGroups = IntegerGroupTable()
    /// By group number in `integerGroups`.
    private var integerAccumulators: [AggregateAccumulator] = []
    /// Groups of any other value.
    private var otherGroups: [MatchingValue: AggregateAccumulator] = [:]

    init(_ operation: AggregateOperation, type: AttributeType) {
        self.operation = operation
        self.type = type
    }

    mutating func add(_ value: AttributeValue, groupedBy group: AttributeValue) {
        guard case .integer(let key) = group else {
            otherGroups[MatchingValue(group), default: AggregateAccumulator(operation, type: type)].add(value)
            return
        }
        integerAccumulators[integerGroup(key)].add(value)
    }

    mutating func merge(_ later: AggregateGroups) {
        for (key, group) in later.integerGroups.entries {
            integerAccumulators[integerGroup(key)].merge(later.integerAccumulators[group])
        }
        for (value, accumulator) in later.otherGroups {
            otherGroups[value, default: AggregateAccumulator(operation, type: type)].merge(accumulator)
        }
    }

    /// Every group's accumulator, by its value.
    var byValue: [MatchingValue: AggregateAccumulator] {
        var groups = otherGroups
        for (key, group) in integerGroups.entries {
            groups[MatchingValue(.integer(key)), default: AggregateAccumulator(operation, type: type)].merge(integerAccumulators[group])
        }
        return groups
    }

    /// The number of integer group `key`, made when new.
    private mutating func integerGroup(_ key: Int64) -> Int {
        let group = integerGroups.group(of: key)
        if group == integerAccumulators.count { integerAccumulators.append(AggregateAccumulator(operation, type: type)) }
        return group
    }
}

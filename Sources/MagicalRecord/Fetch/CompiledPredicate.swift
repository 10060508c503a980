/// A predicate prepared for the states of one entity: a comparison of an attribute with
/// constants reads the attribute by position instead of resolving its key path by name
/// through a subject; everything else goes through the general evaluator. Both end in
/// the same comparison core, so results are the same.
indirect enum CompiledPredicate {
    case constant(Bool)
    /// `attribute OP constant`: the attribute's position and the constant, resolved once.
    case attribute(position: Int, PredicateOperator, PredicateValue, PredicateOptions)
    case general(ObjectPredicate)
    case not(CompiledPredicate)
    case and([CompiledPredicate])
    case or([CompiledPredicate])

    init(_ predicate: ObjectPredicate, entity: Entity) {
        switch predicate {
        case .truePredicate: self = .constant(true)
        case .falsePredicate: self = .constant(false)
        case .not(let operand): self = .not(CompiledPredicate(operand, entity: entity))
        case .and(let operands): self = .and(operands.map { CompiledPredicate($0, entity: entity) })
        case .or(let operands): self = .or(operands.map { CompiledPredicate($0, entity: entity) })
        case .comparison(let comparison):
            guard comparison.modifier == .direct, case .keyPath(let path) = comparison.left, path.components.count == 1,
                  let position = entity.slot(ofAttribute: path.components[0]),
                  let constant = Self.constantValue(comparison.right) else {
                self = .general(predicate)
                return
            }
            self = .attribute(position: position, comparison.operator, constant, comparison.options)
        }
    }

    /// What the evaluator resolves a constant operand to; nil when it reads the object.
    private static func constantValue(_ expression: ObjectExpression) -> PredicateValue? {
        switch expression {
        case .constant(let value): return .attribute(value)
        case .object(let id): return .object(id)
        case .list(let items):
            var elements: [PredicateValue] = []
            for item in items {
                guard let element = constantValue(item) else { return nil }
                elements.append(element)
            }
            return .collection(elements)
        case .keyPath, .evaluatedObject, .aggregate: return nil
        }
    }

    /// Whether every part compares attributes with constants: then the predicate can be
    /// evaluated on attribute values alone, before any object state exists.
    var readsOnlyAttributes: Bool {
        switch self {
        case .constant, .attribute: return true
        case .general: return false
        case .not(let operand): return operand.readsOnlyAttributes
        case .and(let operands), .or(let operands): return operands.allSatisfy(\.readsOnlyAttributes)
        }
    }

    /// Whether `state` satisfies the predicate; `subject` makes the subject the general
    /// evaluator needs, only when a part needs it.
    func evaluate(_ state: ObjectState, subject: (ObjectState) throws -> StateSubject) throws -> Bool {
        try evaluate(attributes: state.attributes) { try PredicateEvaluator.evaluate($0, on: try subject(state)) }
    }

    /// Whether attribute values (by position) satisfy the predicate; `general` evaluates
    /// the parts that need more than attributes.
    func evaluate(attributes: [AttributeValue], general: (ObjectPredicate) throws -> Bool) throws -> Bool {
        switch self {
        case .constant(let value):
            return value
        case .attribute(let position, let comparisonOperator, let constant, let options):
            return try PredicateComparator.compare(.attribute(attributes[position]), comparisonOperator, constant, options: options)
        case .general(let predicate):
            return try general(predicate)
        case .not(let operand):
            return try !operand.evaluate(attributes: attributes, general: general)
        case .and(let operands):
            for operand in operands where try !operand.evaluate(attributes: attributes, general: general) { return false }
            return true
        case .or(let operands):
            for operand in operands where try operand.evaluate(attributes: attributes, general: general) { return true }
            return false
        }
    }
}

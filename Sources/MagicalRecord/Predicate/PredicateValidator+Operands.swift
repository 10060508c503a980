/// Typing operands against the model (Spec/PREDICATES.md, P29): key paths walked through
/// relationships, constants, lists, `SELF` and collection operators.
extension PredicateValidator {
    func operand(_ expression: ObjectExpression, at offset: Int?) throws(ObjectPredicateError) -> PredicateOperand {
        func single(_ kind: PredicateOperand.Kind, _ description: String) -> PredicateOperand {
            PredicateOperand(shape: .single(kind), expression: expression, description: description, offset: offset)
        }
        switch expression {
        case .keyPath(let path):
            let resolved = try resolve(path, at: offset)
            return PredicateOperand(
                shape: resolved.isToMany ? .collection(resolved.kind) : .single(resolved.kind),
                expression: expression, description: resolved.description, offset: offset
            )
        case .evaluatedObject:
            return single(.object(entity.name), "SELF (\(entity.name))")
        case .constant(let value):
            guard let kind = PredicateOperand.ValueKind(value) else { return single(.null, "nil") }
            return single(.value(kind), value.kindDescription)
        case .object(let id):
            guard model.entity(named: id.entityName) != nil else {
                throw .invalidOperand("object ID \(id) names an entity the model does not have", offset: offset)
            }
            return single(.object(id.entityName), "an object ID of \(id.entityName)")
        case .list(let items):
            var operands: [PredicateOperand] = []
            for item in items { operands.append(try operand(item, at: offset)) }
            return PredicateOperand(shape: .list(operands), expression: expression, description: "a list", offset: offset)
        case .aggregate(let aggregate, let collection, let property):
            return single(try aggregateKind(aggregate, collection, property, at: offset), "`\(expression)` (\(aggregate.resultName))")
        }
    }

    /// A key path's kind, whether it crosses a to-many relationship, and its description.
    func resolve(
        _ path: PredicateKeyPath, at offset: Int?
    ) throws(ObjectPredicateError) -> (kind: PredicateOperand.Kind, isToMany: Bool, description: String) {
        guard !path.components.isEmpty else { throw .invalidOperand("empty key path", offset: offset) }
        var current = entity
        var isToMany = false
        for (index, key) in path.components.enumerated() {
            let isLast = index == path.components.count - 1
            guard !key.isEmpty else { throw .invalidOperand("empty key in key path `\(path)`", offset: offset) }
            if let attribute = current.attribute(named: key) {
                guard isLast else {
                    throw .invalidOperand(
                        "`\(key)` is an attribute of \(current.name): key path `\(path)` cannot continue past it",
                        offset: offset
                    )
                }
                let type = attribute.type.rawValue + (isToMany ? ", to-many" : "")
                return (.value(PredicateOperand.ValueKind(attribute.type)), isToMany, "`\(path)` (\(type))")
            }
            guard let relationship = current.relationship(named: key) else {
                throw .unknownKey(key, entity: current.name, offset: offset)
            }
            guard let destination = model.entity(named: relationship.destination) else {
                throw .invalidOperand("relationship `\(key)` leads to entity \(relationship.destination), which the model does not have", offset: offset)
            }
            isToMany = isToMany || relationship.isToMany
            current = destination
        }
        return (.object(current.name), isToMany, "`\(path)` (\(current.name)\(isToMany ? ", to-many" : ""))")
    }

    /// What a collection operator gives: @count a number; @sum and @avg a number, of
    /// numbers; @min and @max a value of the kind they range over (P24).
    private func aggregateKind(
        _ aggregate: PredicateAggregate, _ collection: PredicateKeyPath, _ property: PredicateKeyPath?, at offset: Int?
    ) throws(ObjectPredicateError) -> PredicateOperand.Kind {
        let path = ObjectExpression.gatheredPath(collection, property)
        let resolved = try resolve(path, at: offset)
        guard resolved.isToMany else {
            throw .invalidOperand("@\(aggregate.rawValue) needs a to-many key path; \(resolved.description) is not one", offset: offset)
        }
        switch (aggregate, resolved.kind) {
        case (.count, _):
            return .value(.number)
        case (.sum, .value(let kind)) where kind.compares(with: .number),
             (.average, .value(let kind)) where kind.compares(with: .number):
            return .value(.number)
        case (.minimum, .value(let kind)), (.maximum, .value(let kind)):
            return .value(kind)
        default:
            throw .typeMismatch("@\(aggregate.rawValue) cannot aggregate \(resolved.description)", offset: offset)
        }
    }
}

extension PredicateAggregate {
    /// What an aggregate's result is called in messages.
    var resultName: String {
        switch self {
        case .count: return "Integer 64"
        case .sum, .average: return "a number"
        case .minimum, .maximum: return "a value of the collection"
        }
    }
}

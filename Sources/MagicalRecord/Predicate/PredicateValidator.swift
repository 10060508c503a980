/// Checks a predicate against an entity of a model (Spec/PREDICATES.md, P29 and P30): keys
/// exist, to-one chains resolve, ANY/ALL/NONE and collection operators stand on to-many key
/// paths, operand types compare. Strings compared with dates, UUIDs or URIs are converted
/// on the way (P27), so the predicate it returns compares like with like.
struct PredicateValidator {
    let entity: Entity
    let model: ObjectModel

    func validate(_ predicate: ObjectPredicate) throws(ObjectPredicateError) -> ObjectPredicate {
        switch predicate {
        case .truePredicate, .falsePredicate:
            return predicate
        case .comparison(let comparison):
            return .comparison(try validate(comparison))
        case .not(let operand):
            return .not(try validate(operand))
        case .and(let operands):
            return .and(try operands.map { (operand) throws(ObjectPredicateError) in try validate(operand) })
        case .or(let operands):
            return .or(try operands.map { (operand) throws(ObjectPredicateError) in try validate(operand) })
        }
    }

    private func validate(_ comparison: PredicateComparison) throws(ObjectPredicateError) -> PredicateComparison {
        let left = try operand(comparison.left, at: comparison.location?.left)
        let right = try operand(comparison.right, at: comparison.location?.right)
        var checked = comparison
        switch (comparison.modifier, left.shape) {
        case (.direct, _):
            (checked.left, checked.right) = try check(left, comparison.operator, right)
        case (_, .collection(let kind)):
            checked.right = try check(left.element(of: kind), comparison.operator, right).right
        case (_, .list(let items)):
            for item in items { checked.right = try check(item, comparison.operator, right).right }
        case (_, .single):
            throw .invalidOperand(
                "ANY, ALL and NONE need a to-many key path; \(left.description) is not one",
                offset: comparison.location?.start
            )
        }
        return checked
    }

    /// The rules of each operator, for a left side already taken element by element under
    /// ANY and ALL. Returns both sides, with any string constant converted (P27).
    private func check(
        _ left: PredicateOperand, _ comparisonOperator: PredicateOperator, _ right: PredicateOperand
    ) throws(ObjectPredicateError) -> (left: ObjectExpression, right: ObjectExpression) {
        switch comparisonOperator {
        case .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            return try compatible(left, right, ordering: comparisonOperator.isOrdering)
        case .beginsWith, .endsWith, .like, .matches:
            for side in [left, right] {
                let kind = try single(side)
                guard kind == .null || kind == .value(.string) else {
                    throw .typeMismatch("\(comparisonOperator.rawValue) compares strings, not \(side.description)", offset: side.offset)
                }
            }
            if comparisonOperator == .matches, case .constant(.string(let pattern)) = right.expression {
                do {
                    _ = try PatternCache.shared.expression(for: pattern, options: [])
                } catch {
                    throw error.located(at: right.offset)
                }
            }
            return (left.expression, right.expression)
        case .between:
            guard case .list(let bounds) = right.shape, bounds.count == 2 else {
                throw .invalidOperand("BETWEEN needs two bounds, {lower, upper}, not \(right.description)", offset: right.offset)
            }
            _ = try single(left)
            let lower = try compatible(left, bounds[0], ordering: true).right
            let upper = try compatible(left, bounds[1], ordering: true).right
            return (left.expression, .list([lower, upper]))
        case .in:
            switch right.shape {
            case .list(let items):
                _ = try single(left)
                var converted: [ObjectExpression] = []
                for item in items { converted.append(try compatible(left, item, ordering: false).right) }
                return (left.expression, .list(converted))
            case .collection(let kind):
                return (try compatible(left, right.element(of: kind), ordering: false).left, right.expression)
            case .single(.value(.string)), .single(.null):
                return try compatible(left, right, ordering: false)
            case .single:
                throw .invalidOperand(
                    "IN needs a list, a to-many key path or a string on its right, not \(right.description)", offset: right.offset
                )
            }
        case .contains:
            switch left.shape {
            case .collection(let kind):
                return (left.expression, try compatible(left.element(of: kind), right, ordering: false).right)
            case .list(let items):
                var converted = right.expression
                for item in items { converted = try compatible(item, right, ordering: false).right }
                return (left.expression, converted)
            case .single(.value(.string)), .single(.null):
                return try compatible(left, right, ordering: false)
            case .single:
                throw .invalidOperand(
                    "CONTAINS needs a string, a list or a to-many key path on its left, not \(left.description)", offset: left.offset
                )
            }
        }
    }

    /// Whether two operands that must be single values compare (P30). Returns their
    /// expressions, a string constant converted when the other side is a date, UUID or URI.
    private func compatible(
        _ first: PredicateOperand, _ second: PredicateOperand, ordering: Bool
    ) throws(ObjectPredicateError) -> (left: ObjectExpression, right: ObjectExpression) {
        switch (try single(first), try single(second)) {
        case (.null, _), (_, .null):
            return (first.expression, second.expression)
        case let (.object(firstEntity), .object(secondEntity)):
            guard !ordering else {
                throw .typeMismatch("objects cannot be ordered: \(first.description) compared with \(second.description)", offset: first.offset)
            }
            guard related(firstEntity, secondEntity) else { throw mismatch(first, second) }
            return (first.expression, second.expression)
        case let (.value(firstKind), .value(secondKind)):
            if firstKind.compares(with: secondKind) { return (first.expression, second.expression) }
            if let converted = try converted(first, toMatch: second, of: secondKind) { return (converted, second.expression) }
            if let converted = try converted(second, toMatch: first, of: firstKind) { return (first.expression, converted) }
            throw mismatch(first, second)
        default:
            throw mismatch(first, second)
        }
    }

    /// A string constant read as the date, UUID or URI it is compared with (P27); nil when
    /// `operand` is no string constant or `kind` is not read from strings.
    private func converted(
        _ operand: PredicateOperand, toMatch other: PredicateOperand, of kind: PredicateOperand.ValueKind
    ) throws(ObjectPredicateError) -> ObjectExpression? {
        guard case .constant(.string(let text)) = operand.expression, let target = kind.coercionTarget else { return nil }
        guard let value = PredicateCoercion.value(from: text, as: target) else {
            throw .typeMismatch(
                "type mismatch \(other.description) compared with \(quoted(text)), which is not \(kind.article)",
                offset: operand.offset
            )
        }
        return .constant(value)
    }

    /// Objects compare when one entity is the other or descends from it.
    private func related(_ first: String, _ second: String) -> Bool {
        model.entity(named: first)?.isKind(of: second) == true || model.entity(named: second)?.isKind(of: first) == true
    }

    /// Names the side given against the other: a constant against a key path, otherwise the
    /// right side, and points at it.
    private func mismatch(_ first: PredicateOperand, _ second: PredicateOperand) -> ObjectPredicateError {
        let (subject, offender) = first.isConstant && !second.isConstant ? (second, first) : (first, second)
        return .typeMismatch("type mismatch \(subject.description) compared with \(offender.description)", offset: offender.offset)
    }

    /// The kind of an operand that must be one value.
    private func single(_ operand: PredicateOperand) throws(ObjectPredicateError) -> PredicateOperand.Kind {
        switch operand.shape {
        case .single(let kind):
            return kind
        case .collection:
            throw .invalidOperand(
                "to-many key path \(operand.description) needs ANY, ALL, NONE or a collection operator such as @count",
                offset: operand.offset
            )
        case .list:
            throw .invalidOperand(
                "a list can only be the right side of IN or BETWEEN, or the left side of CONTAINS", offset: operand.offset
            )
        }
    }
}

extension ObjectPredicate {
    /// Checks this predicate against `entity` of `model` and returns it ready to evaluate
    /// (Spec/PREDICATES.md, P29, P30).
    ///
    /// Every key path must resolve (through to-one relationships, and through to-many ones
    /// under ANY, ALL, NONE or a collection operator); operands must compare: numbers with
    /// numbers and booleans, strings with strings, dates with dates, objects with
    /// relationships to their entity. A string compared with a date, UUID or URI attribute
    /// is converted here, once (an ISO 8601 date such as `"2024-01-15"` or
    /// `"2024-01-15T10:30:00Z"`).
    ///
    /// Errors carry the character offset of the offending operand when the predicate was
    /// parsed from a format string: `unknown key `agee` in entity Person at offset 0`.
    public func validated(for entity: Entity, in model: ObjectModel) throws(ObjectPredicateError) -> ObjectPredicate {
        try PredicateValidator(entity: entity, model: model).validate(self)
    }
}

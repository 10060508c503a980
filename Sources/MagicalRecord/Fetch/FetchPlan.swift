import Foundation
import MagicalStore

/// How a fetch finds its candidates in the store. Whatever the plan, every candidate is
/// checked against the whole predicate, so a plan only has to find a superset of the
/// matches: index ranges may be wider than the predicate, never narrower.
struct FetchPlan: Equatable, CustomStringConvertible {
    enum Source: Equatable {
        /// Every stored object of the entity.
        case scan
        /// The objects whose index entries of `attribute` fall in one of `ranges`.
        case index(attribute: String, ranges: [KeyRange])
        /// Nothing stored can match (an equality no value of the attribute's type meets).
        case nothing
    }

    var source: Source
    /// Read in the order of this attribute's index and stop once enough objects match:
    /// for a limited fetch sorted first by an indexed attribute.
    var orderedBy: SortKey?

    var description: String {
        var text: String
        switch source {
        case .scan: text = "scan"
        case .index(let attribute, let ranges): text = "index \(attribute) (\(ranges.count) range\(ranges.count == 1 ? "" : "s"))"
        case .nothing: text = "nothing"
        }
        if let orderedBy { text += ", in index order of \(orderedBy.keyPath)" }
        return text
    }

    /// The plan for a validated `predicate` on `entity`. `readsInOrder` says whether an
    /// index-ordered read with early stop is allowed (a limit, and no unsaved changes).
    static func make(for predicate: ObjectPredicate?, entity: Entity, model: ObjectModel, sortKeys: [SortKey], readsInOrder: Bool) -> FetchPlan {
        let indexed = Self.indexedAttributes(of: entity, model: model)
        var best: (cost: Int, source: Source)?
        var lowerBounds: [String: [UInt8]] = [:]
        var upperBounds: [String: [UInt8]] = [:]
        for conjunct in Self.conjuncts(of: predicate) {
            guard case .comparison(let comparison) = conjunct,
                  let term = IndexTerm(comparison), let attribute = indexed[term.attribute] else { continue }
            switch term.operator {
            case .equalTo:
                guard let prefix = term.prefix(for: term.value, attribute) else { continue }
                guard let prefix else { return FetchPlan(source: .nothing) }
                best = Self.cheaper(best, (1, .index(attribute: attribute.name, ranges: [.prefix(prefix)])))
            case .in:
                guard case .list(let values) = term.value else { continue }
                var prefixes: Set<[UInt8]> = []
                var usable = true
                for value in values {
                    guard let prefix = term.prefix(for: value, attribute) else { usable = false; break }
                    if let prefix { prefixes.insert(prefix) }
                }
                guard usable else { continue }
                let ranges = prefixes.sorted { $0.lexicographicallyPrecedes($1) }.map(KeyRange.prefix)
                best = Self.cheaper(best, (2, .index(attribute: attribute.name, ranges: ranges)))
            case .between:
                guard case .list(let bounds) = term.value, bounds.count == 2,
                      let lower = term.bound(bounds[0], attribute, roundingDown: true),
                      let upper = term.bound(bounds[1], attribute, roundingDown: false) else { continue }
                Self.tighten(&lowerBounds, attribute.name, lower, keepLarger: true)
                Self.tighten(&upperBounds, attribute.name, upper, keepLarger: false)
            case .greaterThan, .greaterThanOrEqualTo:
                guard let lower = term.bound(term.value, attribute, roundingDown: true) else { continue }
                Self.tighten(&lowerBounds, attribute.name, lower, keepLarger: true)
            case .lessThan, .lessThanOrEqualTo:
                guard let upper = term.bound(term.value, attribute, roundingDown: false) else { continue }
                Self.tighten(&upperBounds, attribute.name, upper, keepLarger: false)
            default:
                continue
            }
        }
        for name in Set(lowerBounds.keys).union(upperBounds.keys).sorted() {
            let lower = lowerBounds[name].map(KeyRange.Bound.inclusive) ?? .unbounded
            let upper = upperBounds[name].map { KeyRange.prefix($0).upper } ?? .unbounded
            let cost = lowerBounds[name] != nil && upperBounds[name] != nil ? 3 : 4
            best = Self.cheaper(best, (cost, .index(attribute: name, ranges: [KeyRange(lower: lower, upper: upper)])))
        }
        var plan = FetchPlan(source: best?.source ?? .scan)
        if plan.source == .scan, readsInOrder, let first = sortKeys.first, entity.concreteEntities.count == 1,
           let attribute = indexed[first.keyPath], attribute.type.indexOrderIsSortOrder {
            plan.orderedBy = first
        }
        return plan
    }

    /// The attributes with an index in every concrete entity fetched.
    private static func indexedAttributes(of entity: Entity, model: ObjectModel) -> [String: AttributeDescription] {
        var result: [String: AttributeDescription] = [:]
        for name in entity.indexedAttributes {
            let everywhere = entity.concreteEntities.allSatisfy { model.entity(named: $0)?.indexedAttributes.contains(name) ?? false }
            if everywhere, let attribute = entity.attribute(named: name) { result[name] = attribute }
        }
        return result
    }

    private static func conjuncts(of predicate: ObjectPredicate?) -> [ObjectPredicate] {
        switch predicate {
        case .and(let operands): return operands.flatMap { conjuncts(of: $0) }
        case let single?: return [single]
        case nil: return []
        }
    }

    private static func cheaper(_ current: (cost: Int, source: Source)?, _ candidate: (cost: Int, source: Source)) -> (cost: Int, source: Source) {
        guard let current, current.cost <= candidate.cost else { return candidate }
        return current
    }

    private static func tighten(_ bounds: inout [String: [UInt8]], _ name: String, _ bound: [UInt8], keepLarger: Bool) {
        guard let existing = bounds[name] else { bounds[name] = bound; return }
        if keepLarger ? existing.lexicographicallyPrecedes(bound) : bound.lexicographicallyPrecedes(existing) {
            bounds[name] = bound
        }
    }
}

/// A comparison of one indexed attribute with constants: `age > 40`, `40 < age`,
/// `id IN {1, 2}`. Options (`[c]`, `[d]`) and modifiers (ANY, ALL) rule an index out.
private struct IndexTerm {
    let attribute: String
    let `operator`: PredicateOperator
    let value: ObjectExpression

    init?(_ comparison: PredicateComparison) {
        guard comparison.modifier == .direct, comparison.options.isEmpty else { return nil }
        switch (comparison.left, comparison.right) {
        case (.keyPath(let path), let constant) where path.components.count == 1 && constant.isConstant:
            attribute = path.components[0]
            self.operator = comparison.operator
            value = constant
        case (let constant, .keyPath(let path)) where path.components.count == 1 && constant.isConstant:
            guard let flipped = comparison.operator.flipped else { return nil }
            attribute = path.components[0]
            self.operator = flipped
            value = constant
        default:
            return nil
        }
    }

    /// The index prefix of the entries equal to `expression`: nil when it cannot be
    /// planned, `.some(nil)` when no value of the attribute's type can equal it.
    func prefix(for expression: ObjectExpression, _ attribute: AttributeDescription) -> [UInt8]?? {
        guard case .constant(let value) = expression, attribute.type.isIndexPlannable else { return nil }
        if value.isNull { return .some(StoreLayout.indexPrefix(.null)) }
        guard let converted = AttributeCoercion.convert(value, to: attribute.type) else {
            // A fraction never equals an integer attribute.
            return attribute.type.integerRange != nil && value.isFraction ? .some(nil) : nil
        }
        return .some(StoreLayout.indexPrefix(converted))
    }

    /// An inclusive index bound for a range end at `expression`, rounded outwards for
    /// integer attributes compared with fractions.
    func bound(_ expression: ObjectExpression, _ attribute: AttributeDescription, roundingDown: Bool) -> [UInt8]? {
        guard case .constant(let value) = expression, !value.isNull, attribute.type.isIndexPlannable else { return nil }
        if let converted = AttributeCoercion.convert(value, to: attribute.type) {
            return StoreLayout.indexPrefix(converted)
        }
        guard let range = attribute.type.integerRange, let number = value.doubleValue, number.isFinite else { return nil }
        let rounded = roundingDown ? number.rounded(.down) : number.rounded(.up)
        let integer: Int64
        if rounded >= Double(range.upperBound) {
            integer = range.upperBound
        } else if rounded <= Double(range.lowerBound) {
            integer = range.lowerBound
        } else {
            integer = Int64(rounded)
        }
        return StoreLayout.indexPrefix(.integer(integer))
    }
}

extension ObjectExpression {
    fileprivate var isConstant: Bool {
        switch self {
        case .constant: return true
        case .list(let items): return items.allSatisfy(\.isConstant)
        default: return false
        }
    }
}

extension AttributeValue {
    /// A floating-point or decimal number with a fractional part.
    fileprivate var isFraction: Bool {
        switch self {
        case .double, .float, .decimal:
            guard let number = doubleValue, number.isFinite else { return false }
            return number.rounded() != number
        default:
            return false
        }
    }
}

extension PredicateOperator {
    /// The operator with its sides swapped: `40 < age` is `age > 40`.
    fileprivate var flipped: PredicateOperator? {
        switch self {
        case .equalTo: return .equalTo
        case .lessThan: return .greaterThan
        case .lessThanOrEqualTo: return .greaterThanOrEqualTo
        case .greaterThan: return .lessThan
        case .greaterThanOrEqualTo: return .lessThanOrEqualTo
        default: return nil
        }
    }
}

extension AttributeType {
    /// Whether index keys of this type order and compare like predicate values.
    fileprivate var isIndexPlannable: Bool {
        switch self {
        case .transformable: return false
        default: return true
        }
    }

    /// Whether reading the index in order gives the fetch's sort order (floating-point
    /// and decimal keys are left out: NaN and decimal-as-double keys do not).
    fileprivate var indexOrderIsSortOrder: Bool {
        switch self {
        case .integer16, .integer32, .integer64, .boolean, .string, .date, .uuid: return true
        default: return false
        }
    }
}

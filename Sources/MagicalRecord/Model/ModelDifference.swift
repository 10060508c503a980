/// One way in which two models store objects differently: what ``ObjectModel/differences(from:)``
/// lists, for instance to say why a store cannot be opened with a model.
///
/// Only what the version hash covers is a change (Spec/MODEL.md, M24): user info other
/// than the key, defaults, delete rules, count bounds, renaming identifiers, class names
/// and declaration order are not. A renamed property shows as one removed and one added.
public struct ModelChange: Sendable, Hashable, CustomStringConvertible {
    /// What changed; values are the new state, or the old and the new one.
    public enum Kind: Sendable, Hashable {
        case entityAdded
        case entityRemoved
        case parentChanged(from: String?, to: String?)
        case abstractionChanged(isAbstract: Bool)
        case keyChanged(from: String?, to: String?)
        case attributeAdded(AttributeType)
        case attributeRemoved(AttributeType)
        case attributeTypeChanged(from: AttributeType, to: AttributeType)
        case attributeOptionalityChanged(isOptional: Bool)
        case attributeIndexingChanged(isIndexed: Bool)
        case relationshipAdded(destination: String, RelationshipCardinality)
        case relationshipRemoved(destination: String, RelationshipCardinality)
        case relationshipDestinationChanged(from: String, to: String)
        case relationshipInverseChanged(from: String?, to: String?)
        case relationshipCardinalityChanged(from: RelationshipCardinality, to: RelationshipCardinality)
        case relationshipOptionalityChanged(isOptional: Bool)
    }

    /// The entity changed, added or removed.
    public let entity: String
    /// The attribute or relationship, nil for a change to the entity itself.
    public let property: String?
    public let kind: Kind

    public init(entity: String, property: String? = nil, _ kind: Kind) {
        self.entity = entity
        self.property = property
        self.kind = kind
    }

    /// `Person.age: type changed from Integer 16 to String`.
    public var description: String {
        let subject = property.map { "\(entity).\($0)" } ?? entity
        switch kind {
        case .entityAdded: return "entity \(entity) added"
        case .entityRemoved: return "entity \(entity) removed"
        case .parentChanged(let from, let to): return "\(subject): parent changed from \(from ?? "none") to \(to ?? "none")"
        case .abstractionChanged(let isAbstract): return "\(subject): \(isAbstract ? "now abstract" : "no longer abstract")"
        case .keyChanged(let from, let to): return "\(subject): key changed from \(from ?? "none") to \(to ?? "none")"
        case .attributeAdded(let type): return "\(subject): attribute added (\(type.rawValue))"
        case .attributeRemoved(let type): return "\(subject): attribute removed (was \(type.rawValue))"
        case .attributeTypeChanged(let from, let to): return "\(subject): type changed from \(from.rawValue) to \(to.rawValue)"
        case .attributeOptionalityChanged(let isOptional), .relationshipOptionalityChanged(let isOptional):
            return "\(subject): \(isOptional ? "now optional" : "now required")"
        case .attributeIndexingChanged(let isIndexed): return "\(subject): \(isIndexed ? "now indexed" : "no longer indexed")"
        case .relationshipAdded(let destination, let cardinality): return "\(subject): relationship added (\(cardinality) to \(destination))"
        case .relationshipRemoved(let destination, let cardinality): return "\(subject): relationship removed (was \(cardinality) to \(destination))"
        case .relationshipDestinationChanged(let from, let to): return "\(subject): destination changed from \(from) to \(to)"
        case .relationshipInverseChanged(let from, let to): return "\(subject): inverse changed from \(from ?? "none") to \(to ?? "none")"
        case .relationshipCardinalityChanged(let from, let to): return "\(subject): changed from \(from) to \(to)"
        }
    }
}

extension ObjectModel {
    /// What changed from `other` to this model, in what decides how objects are stored:
    /// empty exactly when the two have the same ``versionHash``.
    ///
    /// Entities in name order, each one's own changes before its attributes' and then its
    /// relationships', by name. A change an entity inherits is listed once, at the
    /// ancestor that declares it.
    public func differences(from other: ObjectModel) -> [ModelChange] {
        let names = Set(entities.map(\.name)).union(other.entities.map(\.name))
        var changes: [ModelChange] = []
        for name in ModelFingerprint.sortedByName(Array(names), { $0 }) {
            switch (other.entity(named: name), entity(named: name)) {
            case (nil, _?): changes.append(ModelChange(entity: name, .entityAdded))
            case (_?, nil): changes.append(ModelChange(entity: name, .entityRemoved))
            case let (old?, new?): changes += EntityComparison(old: old, new: new).changes()
            case (nil, nil): break
            }
        }
        let listed = Set(changes)
        return changes.filter { change in
            guard change.property != nil else { return true }
            let ancestors = (entity(named: change.entity)?.ancestors ?? []) + (other.entity(named: change.entity)?.ancestors ?? [])
            return !ancestors.contains { listed.contains(ModelChange(entity: $0, property: change.property, change.kind)) }
        }
    }
}

/// The changes between two versions of one entity.
private struct EntityComparison {
    let old: Entity
    let new: Entity

    func changes() -> [ModelChange] {
        var changes: [ModelChange] = []
        func note(_ kind: ModelChange.Kind, on property: String? = nil) {
            changes.append(ModelChange(entity: new.name, property: property, kind))
        }
        if old.parent != new.parent { note(.parentChanged(from: old.parent, to: new.parent)) }
        if old.isAbstract != new.isAbstract { note(.abstractionChanged(isAbstract: new.isAbstract)) }
        if old.keyAttribute != new.keyAttribute { note(.keyChanged(from: old.keyAttribute, to: new.keyAttribute)) }
        for name in propertyNames(old.attributes.map(\.name), new.attributes.map(\.name)) {
            switch (old.attribute(named: name), new.attribute(named: name)) {
            case (nil, let added?): note(.attributeAdded(added.type), on: name)
            case (let removed?, nil): note(.attributeRemoved(removed.type), on: name)
            case let (before?, after?):
                if before.type != after.type { note(.attributeTypeChanged(from: before.type, to: after.type), on: name) }
                if before.isOptional != after.isOptional { note(.attributeOptionalityChanged(isOptional: after.isOptional), on: name) }
                if before.isIndexed != after.isIndexed { note(.attributeIndexingChanged(isIndexed: after.isIndexed), on: name) }
            case (nil, nil): break
            }
        }
        for name in propertyNames(old.relationships.map(\.name), new.relationships.map(\.name)) {
            switch (old.relationship(named: name), new.relationship(named: name)) {
            case (nil, let added?): note(.relationshipAdded(destination: added.destination, added.cardinality), on: name)
            case (let removed?, nil): note(.relationshipRemoved(destination: removed.destination, removed.cardinality), on: name)
            case let (before?, after?):
                if before.destination != after.destination {
                    note(.relationshipDestinationChanged(from: before.destination, to: after.destination), on: name)
                }
                if before.inverse != after.inverse { note(.relationshipInverseChanged(from: before.inverse, to: after.inverse), on: name) }
                if before.cardinality != after.cardinality {
                    note(.relationshipCardinalityChanged(from: before.cardinality, to: after.cardinality), on: name)
                }
                if before.isOptional != after.isOptional { note(.relationshipOptionalityChanged(isOptional: after.isOptional), on: name) }
            case (nil, nil): break
            }
        }
        return changes
    }

    private func propertyNames(_ old: [String], _ new: [String]) -> [String] {
        ModelFingerprint.sortedByName(Array(Set(old).union(new)), { $0 })
    }
}

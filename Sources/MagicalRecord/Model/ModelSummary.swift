import Foundation

extension ObjectModel {
    /// The model as text for people (what `mrstore model` prints): its version and hash,
    /// warnings, then entity by entity its key, user info, and one line per attribute and
    /// relationship, inherited ones marked with the ancestor that declares them.
    ///
    /// ```
    /// model V2, version hash 5f0c...e1, 2 entities
    ///
    /// entity Person
    ///   key personID
    ///   attribute personID: Integer 64, required, indexed
    ///   attribute age: Integer 16, optional, default 0
    ///   relationship department: to-one to Department, inverse people, optional, delete Nullify
    /// ```
    public var summary: String {
        var lines = ["model \(versionName ?? "(unnamed)"), version hash \(versionHash), \(entities.count) \(entities.count == 1 ? "entity" : "entities")"]
        lines += warnings.map { "warning: \($0)" }
        for entity in entities {
            lines.append("")
            lines += ModelSummary.lines(for: entity, in: self)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

private enum ModelSummary {
    static func lines(for entity: Entity, in model: ObjectModel) -> [String] {
        let declaration = entity.declaration
        var heading = "entity \(entity.name)"
        if let parent = entity.parent { heading += ", parent \(parent)" }
        if entity.isAbstract { heading += ", abstract" }
        if let className = declaration.className { heading += ", class \(className)" }
        if let renamed = declaration.renamingIdentifier { heading += ", renaming identifier \(renamed)" }
        var lines = [heading]
        lines.append("  key \(entity.keyAttribute ?? "none")")
        if !entity.concreteEntities.isEmpty && entity.concreteEntities != [entity.name] {
            lines.append("  fetches \(entity.concreteEntities.joined(separator: ", "))")
        }
        if !declaration.userInfo.isEmpty { lines.append("  user info: \(userInfo(declaration.userInfo))") }
        for attribute in entity.attributes {
            var parts = ["\(attribute.type.rawValue)", attribute.isOptional ? "optional" : "required"]
            if !attribute.defaultValue.isNull { parts.append("default \(text(of: attribute.defaultValue))") }
            if entity.indexedAttributes.contains(attribute.name) { parts.append("indexed") }
            if let renamed = attribute.renamingIdentifier { parts.append("renaming identifier \(renamed)") }
            if !attribute.userInfo.isEmpty { parts.append("user info: \(userInfo(attribute.userInfo))") }
            if let owner = declarer(of: attribute.name, in: entity, model: model, \.attributes) { parts.append("from \(owner)") }
            lines.append("  attribute \(attribute.name): \(parts.joined(separator: ", "))")
        }
        for relationship in entity.relationships {
            var parts = ["\(relationship.cardinality) to \(relationship.destination)"]
            parts.append("inverse \(relationship.inverse ?? "none")")
            parts.append(relationship.isOptional ? "optional" : "required")
            parts.append("delete \(relationship.deleteRule.rawValue)")
            if relationship.isToMany && (relationship.minCount > 0 || relationship.maxCount > 0) {
                parts.append("count \(relationship.minCount)...\(relationship.maxCount > 0 ? String(relationship.maxCount) : "")")
            }
            if let renamed = relationship.renamingIdentifier { parts.append("renaming identifier \(renamed)") }
            if !relationship.userInfo.isEmpty { parts.append("user info: \(userInfo(relationship.userInfo))") }
            if let owner = declarer(of: relationship.name, in: entity, model: model, \.relationships) { parts.append("from \(owner)") }
            lines.append("  relationship \(relationship.name): \(parts.joined(separator: ", "))")
        }
        return lines
    }

    /// The ancestor that declares an inherited property; nil for the entity's own.
    private static func declarer<Property>(
        of name: String, in entity: Entity, model: ObjectModel, _ properties: KeyPath<EntityDescription, [Property]>
    ) -> String? where Property: NamedProperty {
        guard !entity.declaration[keyPath: properties].contains(where: { $0.name == name }) else { return nil }
        return entity.ancestors.first { ancestor in
            model.entity(named: ancestor)?.declaration[keyPath: properties].contains { $0.name == name } == true
        }
    }

    private static func userInfo(_ entries: [String: String]) -> String {
        ModelFingerprint.sortedByName(Array(entries), \.key).map { "\($0.key) = \($0.value)" }.joined(separator: "; ")
    }

    private static func text(of value: AttributeValue) -> String {
        switch value {
        case .null: return "null"
        case .integer(let number): return String(number)
        case .double(let number): return number.description
        case .float(let number): return number.description
        case .decimal(let number): return DecimalText.format(number)
        case .bool(let flag): return flag ? "YES" : "NO"
        case .string(let string): return string.debugDescription
        case .date(let date): return ISO8601Text.format(date) ?? String(date.timeIntervalSinceReferenceDate)
        case .data(let bytes): return "\(bytes.count) bytes"
        case .uuid(let uuid): return uuid.uuidString
        case .uri(let url): return url.absoluteString
        }
    }
}

private protocol NamedProperty {
    var name: String { get }
}

extension AttributeDescription: NamedProperty {}
extension RelationshipDescription: NamedProperty {}

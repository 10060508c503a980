import MagicalRecord

/// Objects as `mrstore fetch` prints them: JSON, or a table for people.
struct ObjectRendering {
    let entity: Entity

    /// Column names: attributes, then relationships, in model order.
    var columns: [String] { entity.attributes.map(\.name) + entity.relationships.map(\.name) }

    /// A JSON object: attributes by name, a to-one relationship as its target's key value
    /// (`relatedByAttribute`; the object's URI when the target entity has no key) or null,
    /// a to-many one as an array of those.
    func json(_ object: ManagedObject) throws -> String {
        var members: [String] = []
        for attribute in entity.attributes {
            members.append(AttributeValue.jsonString(attribute.name) + ": " + (try object.attributeValue(forKey: attribute.name)).jsonText)
        }
        for relationship in entity.relationships {
            let value: String
            if relationship.isToMany {
                value = "[" + (try object.relatedObjects(forKey: relationship.name).map { try reference($0).jsonText }).joined(separator: ", ") + "]"
            } else {
                value = try object.relatedObject(forKey: relationship.name).map { try reference($0).jsonText } ?? "null"
            }
            members.append(AttributeValue.jsonString(relationship.name) + ": " + value)
        }
        return "{" + members.joined(separator: ", ") + "}"
    }

    /// Cells of one table row, in ``columns`` order.
    func cells(_ object: ManagedObject) throws -> [String] {
        var cells = try entity.attributes.map { try Self.plain(object.attributeValue(forKey: $0.name)) }
        for relationship in entity.relationships {
            if relationship.isToMany {
                cells.append(try object.relatedObjects(forKey: relationship.name).map { try Self.plain(reference($0)) }.joined(separator: ","))
            } else {
                cells.append(try object.relatedObject(forKey: relationship.name).map { try Self.plain(reference($0)) } ?? "nil")
            }
        }
        return cells
    }

    private func reference(_ target: ManagedObject) throws -> AttributeValue {
        guard let key = target.entity.keyAttribute else { return .string(target.objectID.uriRepresentation) }
        return try target.attributeValue(forKey: key)
    }

    /// A value without JSON quoting: `nil` for null.
    static func plain(_ value: AttributeValue) -> String {
        switch value {
        case .null: return "nil"
        case .string(let text): return text
        default:
            let text = value.jsonText
            return text.hasPrefix("\"") ? String(text.dropFirst().dropLast()) : text
        }
    }

    /// Rows as aligned columns under a header.
    static func table(header: [String], rows: [[String]]) -> String {
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(separator: "  ")
                .replacingTrailingSpaces()
        }
        return ([line(header), line(widths.map { String(repeating: "-", count: $0) })] + rows.map(line)).joined(separator: "\n")
    }
}

extension String {
    fileprivate func replacingTrailingSpaces() -> String {
        String(reversed().drop(while: { $0 == " " }).reversed())
    }
}

extension ObjectModel {
    /// A hash of everything in this model that decides how its objects are stored, and of
    /// nothing else (Spec/MODEL.md, section 3): a store records the hash of the model
    /// it was written with, and opening it with a model of another hash needs a migration.
    ///
    /// 32 hex digits of FNV-1a 128 over a canonical serialization, so the same model hashes
    /// the same on every machine and Swift version, whatever order it declares things in.
    /// User info (except what chooses the key), default values, delete rules, count
    /// bounds, renaming identifiers and class names do not count.
    public var versionHash: String {
        var hash = FNV1a128()
        hash.add(ModelFingerprint.canonicalBytes(of: self))
        return hash.hex
    }
}

/// The canonical serialization behind ``ObjectModel/versionHash`` (Spec/MODEL.md, M21).
enum ModelFingerprint {
    /// Bumped whenever what is serialized changes, so old and new hashes never collide.
    private static let scheme = "MagicalRecord model hash 1"

    static func canonicalBytes(of model: ObjectModel) -> [UInt8] {
        var bytes: [UInt8] = []
        append(scheme, to: &bytes)
        append(model.entities.count, to: &bytes)
        for entity in sortedByName(model.entities, \.name) {
            append(entity.name, to: &bytes)
            append(entity.parent, to: &bytes)
            append(entity.isAbstract, to: &bytes)
            append(entity.keyAttribute, to: &bytes)
            append(entity.attributes.count, to: &bytes)
            for attribute in sortedByName(entity.attributes, \.name) {
                append(attribute.name, to: &bytes)
                append(attribute.type.rawValue, to: &bytes)
                append(attribute.isOptional, to: &bytes)
                append(attribute.isIndexed, to: &bytes)
            }
            append(entity.relationships.count, to: &bytes)
            for relationship in sortedByName(entity.relationships, \.name) {
                append(relationship.name, to: &bytes)
                append(relationship.destination, to: &bytes)
                append(relationship.inverse, to: &bytes)
                append(relationship.cardinality.rawValue, to: &bytes)
                append(relationship.isOptional, to: &bytes)
            }
        }
        return bytes
    }

    /// Sorted by UTF-8 bytes: `String`'s own `<` follows Unicode rules that may change.
    static func sortedByName<Element>(_ elements: [Element], _ name: (Element) -> String) -> [Element] {
        elements.sorted { name($0).utf8.lexicographicallyPrecedes(name($1).utf8) }
    }

    private static func append(_ count: Int, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: count).littleEndian) { bytes.append(contentsOf: $0) }
    }

    private static func append(_ string: String, to bytes: inout [UInt8]) {
        append(string.utf8.count, to: &bytes)
        bytes.append(contentsOf: string.utf8)
    }

    private static func append(_ string: String?, to bytes: inout [UInt8]) {
        guard let string else { return bytes.append(0) }
        bytes.append(1)
        append(string, to: &bytes)
    }

    private static func append(_ flag: Bool, to bytes: inout [UInt8]) {
        bytes.append(flag ? 1 : 0)
    }
}

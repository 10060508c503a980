/// Why an import failed, or why a record was skipped: always with the record's index in
/// the input, and what was wrong where.
public struct ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// A value that does not convert to its attribute's type.
        case conversion(attribute: String, key: String, value: String, reason: String)
        /// A key value (the entity's or a relationship target's) that is missing or does not
        /// convert to the key attribute's type.
        case badKey(attribute: String, value: String, reason: String)
        /// A relationship given key values whose destination has no key to find them by.
        case targetHasNoKey(relationship: String, destination: String)
        /// A record that is not a JSON object, or a relationship value of the wrong shape.
        case shape(String)
        /// Malformed JSON text.
        case json(JSONError)
        /// Options that cannot be used for this import.
        case unusableOptions(String)
        /// A failure that is not the import's own (a save refused, say), after `records`
        /// records were committed by earlier batches.
        case afterCommitting(records: Int, String)
    }

    /// The entity being imported at the point of failure (a nested one for nested records).
    public let entity: String
    /// The top-level record's position in the input, from 0; nil for errors about the
    /// input as a whole.
    public let recordIndex: Int?
    public let reason: Reason
    /// With ``ImportOptions/commitsEachBatch``: how many records earlier batches committed
    /// before the failure (they stay committed).
    public internal(set) var recordsCommitted = 0

    public init(entity: String, recordIndex: Int?, reason: Reason) {
        self.entity = entity
        self.recordIndex = recordIndex
        self.reason = reason
    }

    public var description: String {
        guard recordsCommitted > 0 else { return failure }
        return failure + " (the \(recordsCommitted) records before its batch were committed)"
    }

    private var failure: String {
        let record = recordIndex.map { "record \($0)" } ?? "the input"
        switch reason {
        case .conversion(let attribute, let key, let value, let reason):
            return "\(record): \(entity).\(attribute) from key \"\(key)\": \(value): \(reason)"
        case .badKey(let attribute, let value, let reason):
            return "\(record): key \(entity).\(attribute) = \(value): \(reason)"
        case .targetHasNoKey(let relationship, let destination):
            return "\(record): \(entity).\(relationship) is given key values, but \(destination) has no key to find them by (set relatedByAttribute on the relationship or the entity)"
        case .shape(let message):
            return "\(record) (\(entity)): \(message)"
        case .json(let error):
            switch error.reason {
            case .readFailed, .unsupportedValue:
                // Not the text's fault: input that cannot be read, or a Foundation value
                // with no JSON equivalent.
                return "\(record): \(error)"
            default:
                return "malformed JSON: \(error)"
            }
        case .unusableOptions(let message):
            return "import options: \(message)"
        case .afterCommitting(let records, let message):
            return "\(message) (the \(records) records before it were committed)"
        }
    }
}

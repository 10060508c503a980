import MagicalStore

/// Every error the object layer throws or hands to a completion handler: what went wrong,
/// where, and what to do about it.
public enum MagicalRecordError: Error, Sendable, CustomStringConvertible {
    /// A call that needs the default stack before one of the `setupCoreDataStack` calls.
    case stackNotSetUp
    /// The storage engine failed (I/O, a damaged file, a locked store...).
    case store(StoreError)
    case model(ModelError)
    /// The store was written with a different model; migration is needed.
    case modelMismatch(path: String, differences: [String])
    /// A migration that cannot run: every change it cannot carry out without user code,
    /// with why. Nothing was written.
    case migrationRefused(path: String, incompatibilities: [String])
    /// A migration that stopped while running (a transform threw, stored data did not fit
    /// the new model, I/O failed): nothing of it was written, the store is as it was.
    case migrationFailed(path: String, reason: String)
    /// The store holds no object-layer model (an engine-only store, or not ours).
    case notAnObjectStore(path: String)
    /// The store was written in an object format newer than this library reads (Spec
    /// OBJECT-STORE.md section 2): open it with a newer library.
    case newerObjectFormat(path: String, format: Int, readable: Int)
    /// The object's record cannot be read back.
    case damagedRecord(ObjectID)
    /// The store's metadata does not match what the code expects (a damaged store, or
    /// written by a newer version).
    case damagedMetadata(String)
    /// No object with this id exists (any more).
    case objectNotFound(ObjectID)
    case unknownAttribute(entity: String, name: String)
    case unknownRelationship(entity: String, name: String)
    /// A value of the wrong type for an attribute.
    case typeMismatch(entity: String, attribute: String, expected: AttributeType, value: AttributeValue)
    /// A save refused by validation; nothing was saved.
    case validation([ValidationFailure])
    /// An object used with a context it does not belong to.
    case wrongContext(ObjectID)
    /// A `saveWithBlock` block threw an error of its own; nothing was saved.
    case blockFailed(String)
    /// A fetch's predicate does not parse, or does not fit the entity it filters.
    case predicate(ObjectPredicateError, entity: String)
    /// A fetch request that cannot run: an unknown sort key, property or aggregate.
    case invalidFetch(String)
    /// An import that failed: nothing it did is left in the context (Spec/IMPORT.md).
    case importFailed(ImportError)
    /// A ``ManagedObject`` subclass that does not fit its entity: typed properties naming
    /// what the entity lacks or cannot hold, or objects loaded before it was registered.
    case invalidClass(type: String, entity: String, problems: [String])

    public var description: String {
        switch self {
        case .stackNotSetUp:
            return "MagicalRecord is not set up: call MagicalRecord.setupCoreDataStack(...) (or one of its variants) first"
        case .store(let error):
            return error.description
        case .model(let error):
            return error.description
        case .modelMismatch(let path, let differences):
            return "the store \(path) was written with a different model (migration needed):\n"
                + differences.map { "  - \($0)" }.joined(separator: "\n")
        case .migrationRefused(let path, let incompatibilities):
            return "the store \(path) cannot be migrated to this model without user code; nothing was changed:\n"
                + incompatibilities.map { "  - \($0)" }.joined(separator: "\n")
        case .migrationFailed(let path, let reason):
            return "migrating the store \(path) failed, nothing was changed: \(reason)"
        case .notAnObjectStore(let path):
            return "\(path) holds no MagicalRecord model: it is not an object store"
        case .newerObjectFormat(let path, let format, let readable):
            return "the store \(path) is in object format \(format), written by a newer library; this one reads up to format \(readable)"
        case .damagedRecord(let id):
            return "the record of \(id) is damaged"
        case .damagedMetadata(let reason):
            return "the store's metadata is damaged: \(reason)"
        case .objectNotFound(let id):
            return "no object \(id) in the store"
        case .unknownAttribute(let entity, let name):
            return "entity \(entity) has no attribute \(name)"
        case .unknownRelationship(let entity, let name):
            return "entity \(entity) has no relationship \(name)"
        case .typeMismatch(let entity, let attribute, let expected, let value):
            return "\(entity).\(attribute) is \(expected.rawValue), cannot hold \(value)"
        case .validation(let failures):
            return "the save failed validation, nothing was saved:\n" + failures.map { "  - \($0)" }.joined(separator: "\n")
        case .wrongContext(let id):
            return "\(id) does not belong to this context: use object.inContext(_:) first"
        case .blockFailed(let reason):
            return "the save block failed, nothing was saved: \(reason)"
        case .predicate(let error, let entity):
            return "bad predicate for entity \(entity): \(error)"
        case .invalidFetch(let reason):
            return "invalid fetch: \(reason)"
        case .importFailed(let error):
            return "import failed, nothing imported: \(error)"
        case .invalidClass(let type, let entity, let problems):
            return "class \(type) does not fit entity \(entity):\n" + problems.map { "  - \($0)" }.joined(separator: "\n")
        }
    }
}

/// One reason a save was refused.
public struct ValidationFailure: Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        case missingRequiredAttribute(String)
        case missingRequiredRelationship(String)
        case valueOutOfRange(attribute: String)
        case tooFewTargets(relationship: String, minimum: Int)
        case tooManyTargets(relationship: String, maximum: Int)
        /// A deny delete rule: the object still has targets in this relationship.
        case deleteDenied(relationship: String)
        /// Another object of the entity already has this key value.
        case duplicateKey(attribute: String, value: AttributeValue)
        /// The value of an indexed attribute (a key) is longer than the store's index
        /// takes: `bytes` encoded, at most `limit`.
        case tooLongToIndex(attribute: String, bytes: Int, limit: Int)
        /// A typed property (``Field``, ``ToOne``, ``ToMany``) was set to something its
        /// attribute or relationship cannot hold; `reason` says what.
        case refusedAssignment(property: String, reason: String)
    }

    public let object: ObjectID
    public let reason: Reason

    public var description: String {
        switch reason {
        case .missingRequiredAttribute(let name):
            return "\(object): required attribute \(name) is nil"
        case .missingRequiredRelationship(let name):
            return "\(object): required relationship \(name) is nil"
        case .valueOutOfRange(let name):
            return "\(object): \(name) is out of its type's range"
        case .tooFewTargets(let name, let minimum):
            return "\(object): \(name) needs at least \(minimum) objects"
        case .tooManyTargets(let name, let maximum):
            return "\(object): \(name) allows at most \(maximum) objects"
        case .deleteDenied(let name):
            return "\(object) cannot be deleted: its \(name) relationship is not empty (delete rule Deny)"
        case .duplicateKey(let name, let value):
            return "\(object): another object already has \(name) = \(value)"
        case .tooLongToIndex(let name, let bytes, let limit):
            return "\(object): \(name) is too long to index (\(bytes) bytes encoded, at most \(limit))"
        case .refusedAssignment(let name, let reason):
            return "\(object): setting \(name) was refused: \(reason)"
        }
    }
}

import Foundation

/// MagicalRecord's import calls, typed as the subclass (seed 000's import chapter):
///
/// ```swift
/// let people = try Person.importFromArray(try JSONReader().read(data).arrayValue)
/// let person = try Person.importFromObject(["personID": 1, "lastName": "Yan"])
/// try context.save()
/// ```
///
/// Each call is all or nothing (see ``ManagedObjectContext/importRecords(_:entityName:options:)``)
/// and leaves its objects as unsaved changes of the context (the default context when
/// none is given).
extension ActiveRecord where Self: ManagedObject {
    /// Imports one record (MR_importFromObject:inContext:): the object it created or
    /// updated, nil when a `shouldImport` hook declined it.
    @discardableResult
    public static func importFromObject(
        _ record: JSONObject, in context: ManagedObjectContext? = nil, options: ImportOptions = ImportOptions()
    ) throws(MagicalRecordError) -> Self? {
        try importFromArray([.object(record)], in: context, options: options).first
    }

    /// Imports one record given as Foundation values (`[String: Any]` from
    /// `JSONSerialization`, or built in code).
    @discardableResult
    public static func importFromObject(
        _ record: [String: Any], in context: ManagedObjectContext? = nil, options: ImportOptions = ImportOptions()
    ) throws(MagicalRecordError) -> Self? {
        try importFromArray([try bridge(record)], in: context, options: options).first
    }

    /// Imports records (MR_importFromArray:inContext:): the objects, in input order, a
    /// record given twice once, declined records left out.
    @discardableResult
    public static func importFromArray(
        _ records: [JSONValue], in context: ManagedObjectContext? = nil, options: ImportOptions = ImportOptions()
    ) throws(MagicalRecordError) -> [Self] {
        let context = try resolve(context)
        let result = try context.importRecords(records, entityName: entityName, options: options)
        return try objects(result, in: context)
    }

    /// Imports records given as Foundation values (`[[String: Any]]`, `NSArray`).
    @discardableResult
    public static func importFromArray(
        _ records: [Any], in context: ManagedObjectContext? = nil, options: ImportOptions = ImportOptions()
    ) throws(MagicalRecordError) -> [Self] {
        var values: [JSONValue] = []
        values.reserveCapacity(records.count)
        for record in records { values.append(try bridge(record)) }
        return try importFromArray(values, in: context, options: options)
    }

    /// Imports JSON text (an array of records, or one record), parsed as it is imported.
    @discardableResult
    public static func importFromJSON(
        _ data: Data, in context: ManagedObjectContext? = nil, options: ImportOptions = ImportOptions()
    ) throws(MagicalRecordError) -> ImportResult {
        try resolve(context).importRecords(from: data, entityName: entityName, options: options)
    }

    /// Imports the JSON file at `url`, a batch at a time.
    @discardableResult
    public static func importFromJSON(
        contentsOf url: URL, in context: ManagedObjectContext? = nil, options: ImportOptions = ImportOptions()
    ) throws(MagicalRecordError) -> ImportResult {
        try resolve(context).importRecords(contentsOf: url, entityName: entityName, options: options)
    }

    private static func objects(_ result: ImportResult, in context: ManagedObjectContext) throws(MagicalRecordError) -> [Self] {
        var objects: [Self] = []
        objects.reserveCapacity(result.objectIDs.count)
        for id in result.objectIDs { objects.append(try typed(try context.existingObject(with: id))) }
        return objects
    }
}

extension ManagedObject {
    /// Imports `record` into this object (MR_importValuesForKeysWithObject:): its
    /// attributes and relationships by the same mapping, without looking the object up by
    /// its key. All or nothing, like every import.
    public func importValuesForKeys(with record: JSONObject, options: ImportOptions = ImportOptions()) throws(MagicalRecordError) {
        guard let context = managedObjectContext else { throw .wrongContext(objectID) }
        _ = try context.runImport(options) { (importer) throws(MagicalRecordError) in
            try importer.importValues(record, into: self)
        }
    }

    /// ``importValuesForKeys(with:options:)`` for Foundation values.
    public func importValuesForKeys(with record: [String: Any], options: ImportOptions = ImportOptions()) throws(MagicalRecordError) {
        guard case .object(let object) = try bridge(record) else { return }
        try importValuesForKeys(with: object, options: options)
    }
}

/// Foundation values as JSON, with a typed error naming the unsupported value.
private func bridge(_ value: Any) throws(MagicalRecordError) -> JSONValue {
    do {
        return try JSONValue(foundation: value)
    } catch {
        throw .importFailed(ImportError(entity: "", recordIndex: nil, reason: .json(error)))
    }
}

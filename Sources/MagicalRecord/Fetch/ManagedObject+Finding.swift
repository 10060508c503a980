/// What gives a ``ManagedObject`` subclass MagicalRecord's class-level finders, counts
/// and deletes, typed as the subclass (`Person.findAll()` returns `[Person]`). Every
/// ``ManagedObject`` conforms; a subclass's ``ManagedObject/entityName`` names its entity.
public protocol ActiveRecord: AnyObject {}

extension ManagedObject: ActiveRecord {}

/// Every call takes a context, the default context when omitted.
///
/// ```swift
/// let people = try Person.findAll(sortedBy: "lastName:NO,firstName")
/// let yan = try Person.findFirst(byAttribute: "firstName", withValue: "Yan")
/// let adults = try Person.countOfEntities(with: ObjectPredicate(format: "age >= 18"))
/// ```
extension ActiveRecord where Self: ManagedObject {
    // MARK: Creating and deleting

    /// A new object of this entity in `context` (MR_createEntityInContext:).
    public static func createEntity(in context: ManagedObjectContext? = nil) throws(MagicalRecordError) -> Self {
        let context = try resolve(context)
        return try typed(try context.insertObject(entityName: entityName))
    }

    /// Deletes every object of this entity in `context`; they leave the store when it saves.
    public static func truncateAll(in context: ManagedObjectContext? = nil) throws(MagicalRecordError) {
        try deleteAll(matching: nil, in: context)
    }

    /// Deletes the objects `predicate` matches (all of them when nil).
    public static func deleteAll(matching predicate: ObjectPredicate?, in context: ManagedObjectContext? = nil) throws(MagicalRecordError) {
        let context = try resolve(context)
        for object in try context.fetch(requestAll(with: predicate)) {
            try context.delete(object)
        }
    }

    // MARK: Finding many

    public static func findAll(in context: ManagedObjectContext? = nil) throws(MagicalRecordError) -> [Self] {
        try executeFetchRequest(requestAll(), in: context)
    }

    public static func findAll(with predicate: ObjectPredicate?, in context: ManagedObjectContext? = nil) throws(MagicalRecordError) -> [Self] {
        try executeFetchRequest(requestAll(with: predicate), in: context)
    }

    /// Sorted by a MagicalRecord sort string: `"lastName:NO,firstName"` sorts by last name
    /// descending, then first name by `ascending`.
    public static func findAll(
        sortedBy sortString: String, ascending: Bool = true, in context: ManagedObjectContext? = nil
    ) throws(MagicalRecordError) -> [Self] {
        try executeFetchRequest(requestAll(sortedBy: sortString, ascending: ascending), in: context)
    }

    public static func findAll(
        with predicate: ObjectPredicate?, sortedBy sortString: String, ascending: Bool = true,
        in context: ManagedObjectContext? = nil
    ) throws(MagicalRecordError) -> [Self] {
        try executeFetchRequest(requestAll(with: predicate, sortedBy: sortString, ascending: ascending), in: context)
    }

    /// One page of a sorted fetch: page `page` (from 0) of `pageSize` objects.
    public static func findAll(
        with predicate: ObjectPredicate? = nil, sortedBy sortString: String, ascending: Bool = true,
        page: Int, pageSize: Int, in context: ManagedObjectContext? = nil
    ) throws(MagicalRecordError) -> [Self] {
        var request = try requestAll(with: predicate, sortedBy: sortString, ascending: ascending)
        request.setPage(page, size: pageSize)
        return try executeFetchRequest(request, in: context)
    }

    /// Objects whose `attribute` equals `value` (MR_findByAttribute:withValue:).
    public static func findBy(
        attribute: String, value: (any PredicateArgumentConvertible)?, in context: ManagedObjectContext? = nil
    ) throws(MagicalRecordError) -> [Self] {
        try executeFetchRequest(requestAll(where: attribute, isEqualTo: value), in: context)
    }

    public static func findBy(
        attribute: String, value: (any PredicateArgumentConvertible)?, orderedBy sortString: String,
        ascending: Bool = true, in context: ManagedObjectContext? = nil
    ) throws(MagicalRecordError) -> [Self] {
        try executeFetchRequest(
            requestAll(with: equality(attribute, value), sortedBy: sortString, ascending: ascending), in: context
        )
    }

    // MARK: Finding one

    public static func findFirst(in context: ManagedObjectContext? = nil) throws(MagicalRecordError) -> Self? {
        try executeFetchRequestAndReturnFirstObject(requestFirst(), in: context)
    }

    public static func findFirst(with predicate: ObjectPredicate?, in context: ManagedObjectContext? = nil) throws(MagicalRecordError) -> Self? {
        try executeFetchRequestAndReturnFirstObject(requestFirst(with: predicate), in: context)
    }

    public static func findFirst(
        with predicate: ObjectPredicate?, sortedBy sortString: String, ascending: Bool = true,
        in context: ManagedObjectContext? = nil
    ) throws(MagicalRecordError) -> Self? {
        try executeFetchRequestAndReturnFirstObject(
            requestAll(with: predicate, sortedBy: sortString, ascending: ascending), in: context
        )
    }

    /// The first object by one attribute's order (MR_findFirstOrderedByAttribute:ascending:).
    public static func findFirst(
        orderedByAttribute attribute: String, ascending: Bool = true, in context: ManagedObjectContext? = nil
    ) throws(MagicalRecordError) -> Self? {
        try findFirst(with: nil, sortedBy: attribute, ascending: ascending, in: context)
    }

    /// The object whose `attribute` equals `value`; through the index when the attribute
    /// is indexed or the entity's key.
    public static func findFirst(
        byAttribute attribute: String, withValue value: (any PredicateArgumentConvertible)?,
        in context: ManagedObjectContext? = nil
    ) throws(MagicalRecordError) -> Self? {
        try findFirst(byAttribute: attribute, withValue: value, in: try resolve(context))
    }

    /// The same in `context`, borrowed from the caller: unwrapping or resolving an
    /// optional context took a reference of its own, and a context has weak references, so
    /// its retain and release went through its side table (4% of a point get at 1M
    /// records, perf).
    public static func findFirst(
        byAttribute attribute: String, withValue value: (any PredicateArgumentConvertible)?, in context: ManagedObjectContext
    ) throws(MagicalRecordError) -> Self? {
        if let answer = try context.firstObjectThroughIndex(entityName: entityName, attribute: attribute, value: value) {
            // Not `answer.map`: a generic call there (unspecialised) cost a sixtieth of a get.
            guard let object = answer else { return nil }
            return try typed(object)
        }
        return try executeFetchRequestAndReturnFirstObject(requestFirst(byAttribute: attribute, withValue: value), in: context)
    }

    // MARK: Counting

    public static func countOfEntities(
        with predicate: ObjectPredicate? = nil, in context: ManagedObjectContext? = nil
    ) throws(MagicalRecordError) -> Int {
        try resolve(context).count(for: requestAll(with: predicate))
    }

    /// The same as ``countOfEntities(with:in:)`` (MagicalRecord has both names).
    public static func numberOfEntities(
        with predicate: ObjectPredicate? = nil, in context: ManagedObjectContext? = nil
    ) throws(MagicalRecordError) -> Int {
        try countOfEntities(with: predicate, in: context)
    }

    public static func hasAtLeastOneEntity(in context: ManagedObjectContext? = nil) throws(MagicalRecordError) -> Bool {
        try countOfEntities(in: context) > 0
    }

    // MARK: Running requests

    /// The objects `request` matches, as this class.
    public static func executeFetchRequest(_ request: FetchRequest, in context: ManagedObjectContext? = nil) throws(MagicalRecordError) -> [Self] {
        let objects = try resolve(context).fetch(request)
        var typedObjects: [Self] = []
        typedObjects.reserveCapacity(objects.count)
        for object in objects { typedObjects.append(try typed(object)) }
        return typedObjects
    }

    public static func executeFetchRequestAndReturnFirstObject(
        _ request: FetchRequest, in context: ManagedObjectContext? = nil
    ) throws(MagicalRecordError) -> Self? {
        var first = request
        first.fetchLimit = 1
        return try executeFetchRequest(first, in: context).first
    }

    // MARK: Helpers

    static func resolve(_ context: ManagedObjectContext?) throws(MagicalRecordError) -> ManagedObjectContext {
        if let context { return context }
        ObjectClassRegistry.register(self)
        return try ManagedObjectContext.default
    }

    /// `object` as this class, its typed properties checked against its entity (once).
    static func typed(_ object: ManagedObject) throws(MagicalRecordError) -> Self {
        let typed = try RelatedObjects.typed(object, as: self)
        try ClassCheck.verify(typed)
        return typed
    }
}

extension ManagedObject {
    /// Deletes this object in `context` (its own context when omitted).
    public func deleteEntity(in context: ManagedObjectContext? = nil) throws(MagicalRecordError) {
        guard let own = managedObjectContext else { throw .wrongContext(objectID) }
        let target = context ?? own
        try target.delete(target === own ? self : try target.existingObject(with: objectID))
    }
}

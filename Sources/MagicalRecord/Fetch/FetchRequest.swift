/// What a fetch returns: objects, their ids, dictionaries of values, or only how many
/// there are (Core Data's `NSFetchRequestResultType`).
public enum FetchResultType: Sendable, Hashable {
    case managedObjects
    case objectIDs
    /// One `[String: AttributeValue]` per object, holding ``FetchRequest/propertiesToFetch``.
    case dictionaries
    case count
}

/// A fetch that can be adjusted before it runs: `requestAll...` and `requestFirst...`
/// build one, ``ManagedObjectContext/execute(_:)`` runs it.
///
/// ```swift
/// var request = Person.requestAll(with: try ObjectPredicate(format: "age > %d", 40))
/// request.sortKeys = try SortKey.parse("lastName,firstName")
/// request.fetchLimit = 20
/// let people = try context.fetch(request)
/// ```
public struct FetchRequest: Sendable, Hashable {
    /// The entity fetched; objects of its subentities are included.
    public var entityName: String
    /// Nil fetches every object.
    public var predicate: ObjectPredicate?
    /// Applied in order; objects equal on every key come in object-id order.
    public var sortKeys: [SortKey]
    /// 0 for no limit.
    public var fetchLimit: Int
    public var fetchOffset: Int
    /// Accepted for Core Data compatibility. Results are read in one pass and
    /// materialised together, so the batch size does not change what is returned.
    public var fetchBatchSize: Int
    /// For ``FetchResultType/dictionaries``: attribute key paths, through to-one
    /// relationships (`department.name`); nil for every attribute of the entity.
    public var propertiesToFetch: [String]?
    /// For ``FetchResultType/dictionaries``: equal dictionaries only once.
    public var returnsDistinctResults: Bool
    public var resultType: FetchResultType
    /// Whether unsaved changes of the context and its parents take part (Core Data's
    /// default, true); false reads the store alone.
    public var includesPendingChanges: Bool

    public init(
        entityName: String, predicate: ObjectPredicate? = nil, sortKeys: [SortKey] = [],
        fetchLimit: Int = 0, fetchOffset: Int = 0, resultType: FetchResultType = .managedObjects
    ) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortKeys = sortKeys
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.fetchBatchSize = 0
        self.propertiesToFetch = nil
        self.returnsDistinctResults = false
        self.resultType = resultType
        self.includesPendingChanges = true
    }

    /// Limits the request to page `page` (from 0) of `pageSize` results.
    public mutating func setPage(_ page: Int, size pageSize: Int) {
        let (offset, overflow) = max(page, 0).multipliedReportingOverflow(by: max(pageSize, 0))
        fetchOffset = overflow ? Int.max : offset
        fetchLimit = max(pageSize, 0)
    }
}

/// What ``ManagedObjectContext/execute(_:)`` returns, by the request's result type.
public enum FetchResults {
    case managedObjects([ManagedObject])
    case objectIDs([ObjectID])
    case dictionaries([[String: AttributeValue]])
    case count(Int)
}

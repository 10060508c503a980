import Foundation

/// An object of an entity, living in one context. Subclass it (the class name is the
/// entity's, or override ``entityName``) for MagicalRecord's class-level finders and import
/// hooks, or use it as it is through `attributeValue(forKey:)` and `setValue(_:forKey:)`.
///
/// Thread rules: an object belongs to its context and is not `Sendable`, as with Core
/// Data: use it on the thread or queue that uses its context (inside `perform` or
/// `performAndWait`). To hand an object to another context or thread, pass its
/// ``objectID`` (which is `Sendable`) and call `existingObject(with:)` there. Its state is guarded by
/// the context's lock all the same, so a stray access is not a data race.
open class ManagedObject: CustomStringConvertible {
    public let objectID: ObjectID
    public let entity: Entity
    /// The context the object belongs to; nil once that context is gone.
    public var managedObjectContext: ManagedObjectContext? { link.context }
    /// Its context's lock and weak reference (shared by the context's objects).
    private let link: ContextLink
    /// Guarded by the context's lock, which serialises every access: no runtime
    /// exclusivity checks (see ``ManagedObjectContext``).
    @exclusivity(unchecked) var state: ObjectState
    @exclusivity(unchecked) var isDeletedInContext = false

    /// Made by contexts only: an object exists in a context (`insertObject`, fetches,
    /// `existingObject(with:)`). Subclasses inherit it and declare no initializers.
    public required init(_ seed: consuming ObjectSeed) {
        self.objectID = seed.objectID
        self.entity = seed.entity
        self.link = seed.link
        self.state = seed.takeState()
    }

    /// The entity a subclass stands for; by default the class's own name. Override it
    /// when they differ (MagicalRecord's `entityName`).
    open class var entityName: String {
        ObjectClassRegistry.name(of: self)
    }

    /// Whether the object was deleted in its context (and not yet saved).
    public var isDeleted: Bool { withContextLock { isDeletedInContext } }

    /// Whether the object was created in its context and not yet saved.
    public var isInserted: Bool {
        withContextLock { managedObjectContext?.insertedIDs.contains(objectID) ?? false }
    }

    /// Whether the object has unsaved changes in its context.
    public var hasChanges: Bool {
        withContextLock { managedObjectContext?.changedObjects[objectID] != nil }
    }

    // MARK: Attributes

    /// The value of attribute `key` (`.null` for nil). Unknown keys read as `.null`; use
    /// ``attributeValue(forKey:)`` to have them reported.
    public subscript(key: String) -> AttributeValue {
        (try? attributeValue(forKey: key)) ?? .null
    }

    public func attributeValue(forKey key: String) throws(MagicalRecordError) -> AttributeValue {
        try attributeValue(at: entity.slot(ofAttribute: key), forKey: key)
    }

    /// The attribute at `position` of the entity's attributes, named `key`; nil: the
    /// entity has no such attribute.
    func attributeValue(at position: Int?, forKey key: String) throws(MagicalRecordError) -> AttributeValue {
        guard let position else { throw .unknownAttribute(entity: entity.name, name: key) }
        return attributeValue(at: position)
    }

    /// The attribute at `position` of the entity's attributes.
    @usableFromInline func attributeValue(at position: Int) -> AttributeValue {
        withContextLock { state.attributes[position] }
    }

    /// Sets attribute `key`. Integers are range-checked for their width, and numbers
    /// convert between kinds when no precision is lost (an `.integer(3)` sets a Double
    /// attribute to 3.0); anything else that does not fit the type is refused.
    public func setValue(_ value: AttributeValue, forKey key: String) throws(MagicalRecordError) {
        guard let position = entity.slot(ofAttribute: key) else { throw .unknownAttribute(entity: entity.name, name: key) }
        let attribute = entity.attributes[position]
        guard let converted = AttributeCoercion.convert(value, to: attribute.type) else {
            throw .typeMismatch(entity: entity.name, attribute: key, expected: attribute.type, value: value)
        }
        try changeState { $0.attributes[position] = converted }
    }

    /// Runs `body` on the state, under the context's lock, and records the change.
    func changeState(_ body: (inout ObjectState) throws(MagicalRecordError) -> Void) throws(MagicalRecordError) {
        guard let context = managedObjectContext else { throw .wrongContext(objectID) }
        try context.withLock { () throws(MagicalRecordError) in
            context.noteBeforeChange(self)
            try body(&state)
            context.noteChanged(self)
        }
    }

    /// Runs `body` under the context's lock (which outlives the context: the object's
    /// state stays guarded after it).
    func withContextLock<T>(_ body: () throws -> T) rethrows -> T {
        link.lock.lock()
        defer { link.lock.unlock() }
        return try body()
    }

    open var description: String {
        let values = withContextLock {
            zip(entity.attributes, state.attributes).map { "\($0.name): \($1)" }.joined(separator: ", ")
        }
        return "<\(entity.name) \(objectID.uriRepresentation) { \(values) }>"
    }
}

/// What a context hands to ``ManagedObject/init(_:)``: opaque outside the library.
public struct ObjectSeed {
    let objectID: ObjectID
    let entity: Entity
    /// The context's link, not the context: the context has weak references, so each
    /// retain and release of it goes through its side table (a twentieth of a point get).
    let link: ContextLink
    private var state: ObjectState

    init(objectID: ObjectID, entity: Entity, context: ManagedObjectContext, state: consuming ObjectState) {
        self.objectID = objectID
        self.entity = entity
        link = context.link
        self.state = state
    }

    /// The state, moved out: the object takes it over without retaining its arrays again,
    /// and the seed, destroyed after, releases none of them.
    mutating func takeState() -> ObjectState {
        var taken = ObjectState(id: objectID, attributes: [], relationships: [])
        swap(&taken, &state)
        return taken
    }
}

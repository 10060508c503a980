/// Everything stored about one object: what a context changes, what a child context's
/// save hands to its parent, and what the root's save writes.
struct ObjectState: Sendable, Equatable {
    let id: ObjectID
    /// By position in ``Entity/attributes``.
    var attributes: [AttributeValue]
    /// By position in ``Entity/relationships``.
    var relationships: RelationshipStates
    /// Typed property assignments that were refused, by property name, with the reason:
    /// a setter cannot throw, so the next save does (``ValidationFailure/Reason/refusedAssignment(property:reason:)``).
    var refusedAssignments: [String: String] = [:]

    /// A new object: every attribute at its default, no relationships.
    init(id: ObjectID, entity: Entity) {
        self.id = id
        attributes = entity.defaultAttributes
        relationships = entity.emptyRelationships
    }

    /// Appends `target` to the to-many at `position`, in place (linking an inverse to a
    /// large to-many must not copy it); one not read becomes `added`. `isNew`: the caller
    /// knows `target` is not among the additions (they are then not checked).
    mutating func appendTarget(_ target: ObjectID, at position: Int, isNew: Bool = false) {
        relationships.update(at: position) { $0.appendTarget(target, isNew: isNew) }
    }

    /// Removes `target` from the to-many at `position` (loaded, or from its additions), in
    /// place (unlinking an inverse from a large to-many must not copy it); false when it
    /// is not there.
    @discardableResult
    mutating func removeTarget(_ target: ObjectID, at position: Int) -> Bool {
        relationships.update(at: position) { $0.removeTarget(target) }
    }

    init(id: ObjectID, attributes: [AttributeValue], relationships: RelationshipStates) {
        self.id = id
        self.attributes = attributes
        self.relationships = relationships
    }
}

/// A relationship's targets. To-many targets live in a tree of their own and are read
/// when first needed (`unloaded` until then).
enum RelationshipState: Sendable, Equatable {
    case toOne(ObjectID?)
    case toMany([ObjectID])
    case unloaded
    /// Not read, plus these targets: what an unordered to-many becomes when objects join it
    /// through their inverse, so that joining a large set costs neither a read nor a copy.
    /// The targets are those of the farther levels (parents, store) and these.
    case added(TargetAdditions)

    /// Appends `target` to a to-many, in place; one not read becomes `added`. `isNew`: the
    /// caller knows `target` is not among the additions (they are then not checked).
    mutating func appendTarget(_ target: ObjectID, isNew: Bool) {
        // `if case` releases the matched value at once, so the array bound here has one
        // owner once `self` lets go of it (a `switch` would keep a second reference).
        if case .toMany(var targets) = self {
            self = .unloaded
            targets.append(target)
            self = .toMany(targets)
            return
        }
        var additions: TargetAdditions
        if case .added(let current) = self {
            additions = current
        } else if case .unloaded = self {
            additions = TargetAdditions()
        } else {
            return
        }
        self = .unloaded
        if isNew { additions.appendNew(target) } else { additions.append(target) }
        self = .added(additions)
    }

    /// Removes `target` from a to-many (loaded, or from its additions), in place; false
    /// when it is not there.
    mutating func removeTarget(_ target: ObjectID) -> Bool {
        if case .toMany(var targets) = self {
            guard let index = targets.firstIndex(of: target) else { return false }
            self = .unloaded
            targets.remove(at: index)
            self = .toMany(targets)
            return true
        }
        guard case .added(var additions) = self, additions.contains(target) else { return false }
        self = .unloaded
        additions.remove(target)
        self = .added(additions)
        return true
    }

    /// `self`, a nearer level's state, completed by `farther`, the same relationship one
    /// level out (a parent's, or the committed one): loaded targets win, additions join.
    func over(_ farther: RelationshipState) -> RelationshipState {
        switch (self, farther) {
        case (.unloaded, _):
            return farther
        case (.added(let extra), .toMany(let base)):
            return .toMany(Self.joined(base, extra.ids))
        case (.added(let extra), .added(let base)):
            return .added(TargetAdditions(Self.joined(base.ids, extra.ids)))
        default:
            return self
        }
    }

    /// `base` followed by the targets of `extra` it does not have.
    static func joined(_ base: [ObjectID], _ extra: [ObjectID]) -> [ObjectID] {
        guard !extra.isEmpty else { return base }
        let present = Set(base)
        var result = base
        for id in extra where !present.contains(id) { result.append(id) }
        return result
    }
}

/// The targets joined to a to-many that was not read, in order, with a set beside them:
/// an import links thousands of objects to one department, each first checked for
/// membership, which a scan of the array made quadratic. The set is made when first
/// needed: the import without objects appends members it knows are new (``appendNew(_:)``),
/// and hashing each cost more than the append.
struct TargetAdditions: Sendable, Equatable {
    private(set) var ids: [ObjectID] = []
    /// `ids` as a set, once a checked change needed it; nil until then.
    private var members: Set<ObjectID>?

    init(_ ids: [ObjectID] = []) {
        for id in ids { append(id) }
    }

    /// Without the set (additions made by ``appendNew(_:)`` only), a scan of `ids`.
    func contains(_ id: ObjectID) -> Bool { members?.contains(id) ?? ids.contains(id) }

    /// Adds `id` at the end unless it is already there.
    mutating func append(_ id: ObjectID) {
        makeMembers()
        guard members?.insert(id).inserted == true else { return }
        ids.append(id)
    }

    /// Adds `id` at the end: the caller knows it is not there.
    mutating func appendNew(_ id: ObjectID) {
        ids.append(id)
        members?.insert(id)
    }

    /// Takes `id` out (a linear search: removals are rare next to additions).
    mutating func remove(_ id: ObjectID) {
        makeMembers()
        guard members?.remove(id) != nil, let index = ids.firstIndex(of: id) else { return }
        ids.remove(at: index)
    }

    private mutating func makeMembers() {
        if members == nil { members = Set(ids) }
    }

    static func == (left: TargetAdditions, right: TargetAdditions) -> Bool { left.ids == right.ids }
}

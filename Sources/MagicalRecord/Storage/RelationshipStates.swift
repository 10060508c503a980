/// An object's relationship states, by position in ``Entity/relationships``: an array, but
/// for an entity with one relationship the state held inline. Most entities an import
/// writes have one (a to-one), and setting it on a new object copied the entity's shared
/// one-state array into an allocation of its own, freed again with the object: about 800
/// of the import's reading thread's 10k instructions a record (callgrind).
struct RelationshipStates: RandomAccessCollection, MutableCollection, ExpressibleByArrayLiteral, Sendable, Equatable {
    /// `one` exactly when there is one state.
    private enum Storage: Sendable {
        case one(RelationshipState)
        case many([RelationshipState])
    }

    private var storage: Storage

    init(_ states: [RelationshipState]) {
        storage = states.count == 1 ? .one(states[0]) : .many(states)
    }

    init(arrayLiteral states: RelationshipState...) {
        self.init(states)
    }

    var startIndex: Int { 0 }

    var endIndex: Int {
        switch storage {
        case .one: 1
        case .many(let states): states.count
        }
    }

    subscript(position: Int) -> RelationshipState {
        get {
            switch storage {
            case .one(let state):
                precondition(position == 0, "relationship position out of range")
                return state
            case .many(let states):
                return states[position]
            }
        }
        set {
            // A setter, not a `_modify` coroutine: the coroutine's two calls cost more than
            // the write itself, on the import's path that sets each new object's to-one.
            guard case .one = storage else {
                update(at: position) { $0 = newValue }
                return
            }
            precondition(position == 0, "relationship position out of range")
            storage = .one(newValue)
        }
    }

    /// Runs `body` on the state at `position`, taken out meanwhile: a to-many's targets in
    /// it then have one owner and change in place. One access to the state: a read and two
    /// writes (the state emptied, then set) cost the import's appends to a department's
    /// additions four times the instructions.
    mutating func update<Result>(at position: Int, _ body: (inout RelationshipState) -> Result) -> Result {
        switch storage {
        case .one(var state):
            precondition(position == 0, "relationship position out of range")
            storage = .many([])
            defer { storage = .one(state) }
            return body(&state)
        case .many(var states):
            storage = .many([])
            defer { storage = .many(states) }
            return body(&states[position])
        }
    }

    /// The array's storage; nil for a state held inline.
    func withContiguousStorageIfAvailable<Result>(_ body: (UnsafeBufferPointer<RelationshipState>) throws -> Result) rethrows -> Result? {
        guard case .many(let states) = storage else { return nil }
        return try states.withUnsafeBufferPointer(body)
    }

    static func == (left: RelationshipStates, right: RelationshipStates) -> Bool {
        left.elementsEqual(right)
    }
}

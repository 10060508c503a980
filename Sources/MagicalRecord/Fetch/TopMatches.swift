import Foundation

/// An object's sort-key values, ordered by the keys' directions, then by id.
struct SortedMatch {
    let values: [AttributeValue]
    let id: ObjectID
    /// The first value as a number in its order, where its kind has one (``Lead``).
    private let lead: Lead

    init(values: [AttributeValue], id: ObjectID) {
        self.values = values
        self.id = id
        lead = values.first.map(Lead.init) ?? .none
    }

    /// A first sort value's place in its order as one unsigned number, so that most
    /// comparisons of two matches are one comparison of integers: for an integer, all of
    /// it; for a string, its first 8 UTF-8 bytes, zero-padded (a smaller lead is a smaller
    /// string, equal leads say nothing). Other kinds have none and compare in full.
    private enum Lead: Equatable {
        case none
        case integer(UInt64)
        case text(UInt64)

        init(_ value: AttributeValue) {
            switch value {
            case .integer(let integer): self = .integer(UInt64(bitPattern: integer) ^ (1 << 63))
            case .string(let text): self = text.utf8.withContiguousStorageIfAvailable(Self.leadingBytes).map { .text($0) } ?? .none
            default: self = .none
            }
        }

        private static func leadingBytes(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
            var lead: UInt64 = 0
            for index in 0..<8 { lead = lead << 8 | UInt64(index < bytes.count ? bytes[index] : 0) }
            return lead
        }

        /// Whether `self` comes first, when the leads alone say: nil when they do not.
        func precedes(_ other: Lead) -> Bool? {
            switch (self, other) {
            case let (.integer(a), .integer(b)), let (.text(a), .text(b)): return a == b ? nil : a < b
            default: return nil
            }
        }
    }

    /// The values are compared where they lie: read through the arrays' subscripts, each
    /// was copied and destroyed around its comparison.
    func precedes(_ other: SortedMatch, _ directions: [Bool]) -> Bool {
        if let first = lead.precedes(other.lead) { return first == directions[0] }
        let order = values.withUnsafeBufferPointer { mine -> Bool? in
            other.values.withUnsafeBufferPointer { theirs -> Bool? in
                for (index, ascending) in directions.enumerated() {
                    switch AttributeValue.compare(mine[index], theirs[index]) {
                    case .orderedAscending?: return ascending
                    case .orderedDescending?: return !ascending
                    default: continue
                    }
                }
                return nil
            }
        }
        return order ?? (id < other.id)
    }
}

/// The best `capacity` matches so far, in order.
///
/// The matches stay where they were put, and the order is a list of their places: a match
/// that wins a place moves the places after it, 8 bytes each, where moving the matches
/// themselves (32 bytes each) was 7% of a sorted page's instructions when most records
/// win a place. A match pushed out leaves its place to the one that pushed it.
struct TopMatches {
    let capacity: Int
    let directions: [Bool]
    private var pool: [SortedMatch] = []
    /// Places in `pool`, best match first.
    private var ranking: [Int] = []
    /// Counts the changes to the ranking, so a caller knows when ``bound`` may have moved.
    private(set) var version = 0

    init(capacity: Int, directions: [Bool]) {
        self.capacity = capacity
        self.directions = directions
    }

    /// The matches, best first.
    var matches: [SortedMatch] {
        ranking.map { pool[$0] }
    }

    /// The last match holding a place, once every place is taken.
    private var last: SortedMatch? {
        guard ranking.count >= capacity, let place = ranking.last else { return nil }
        return pool[place]
    }

    /// Whether a match whose first sort value is `first` cannot win a place: the list is
    /// full and its last match comes strictly first on that key alone.
    func rejects(_ first: AttributeValue) -> Bool {
        guard let last else { return false }
        return AttributeValue.compare(first, last.values[0]) == (directions[0] ? .orderedDescending : .orderedAscending)
    }

    /// Once the list is full, the first sort value of its last match: a match that comes
    /// strictly after it on that key alone cannot win a place (``rejects(_:)``).
    var bound: AttributeValue? {
        last?.values[0]
    }

    mutating func offer(_ candidate: SortedMatch) {
        guard capacity > 0 else { return }
        if let last, !candidate.precedes(last, directions) { return }
        let rank = rank(of: candidate)
        let place: Int
        if ranking.count >= capacity {
            place = ranking.removeLast()
            pool[place] = candidate
        } else {
            place = pool.count
            pool.append(candidate)
        }
        ranking.insert(place, at: rank)
        version += 1
    }

    /// How many matches holding places come before `candidate`.
    private func rank(of candidate: SortedMatch) -> Int {
        let directions = directions
        return pool.withUnsafeBufferPointer { pool in
            ranking.withUnsafeBufferPointer { ranking in
                var low = 0
                var high = ranking.count
                while low < high {
                    let middle = (low + high) / 2
                    if candidate.precedes(pool[ranking[middle]], directions) { high = middle } else { low = middle + 1 }
                }
                return low
            }
        }
    }
}

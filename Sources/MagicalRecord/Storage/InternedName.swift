import Synchronization

/// An entity name as ``ObjectID`` holds it: one instance per name for the whole process,
/// kept for good, so an id holds it unretained and copies as two plain words. Holding
/// the name's string, every copy and destruction of an id retained or released it
/// (callgrind: 5% of an upsert's instructions).
final class InternedName: Sendable {
    let name: String

    private init(_ name: String) {
        self.name = name
    }

    /// Every name interned so far: the models' entity names, and any an id was made with
    /// (``ObjectID/init(uriRepresentation:)`` included), each kept for the process's life.
    private static let table = Mutex<[String: InternedName]>([:])

    /// The one instance for `name`, made on first use. Takes a lock: code that makes ids
    /// in a loop interns its names once, before it (``Entity/internedName``).
    static func token(for name: String) -> Unmanaged<InternedName> {
        table.withLock { table in
            if let known = table[name] { return .passUnretained(known) }
            let made = InternedName(name)
            table[name] = made
            return .passUnretained(made)
        }
    }
}

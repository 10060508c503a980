import Synchronization

/// A tree's name resolved once, for code that reads the same trees over and over (an
/// object layer's point gets): a snapshot finds a handle's tree in its commit's directory
/// by place, where a name is hashed at every lookup (a thousand instructions, a twentieth
/// of a point get).
///
/// Handles are places in one table for the whole process, so a handle made for one store
/// serves any: a directory checks the name it cached at a place before using it.
public struct TreeHandle: Sendable, Hashable, CustomStringConvertible {
    public let name: String
    /// Place in the directories' tables; nil once the table is full (names can be user
    /// data), and the handle is looked up by name.
    let place: Int?

    public init(_ name: String) {
        self.name = name
        place = Self.places.withLock { places in
            if let place = places[name] { return place }
            guard places.count < Self.capacity else { return nil }
            places[name] = places.count
            return places.count - 1
        }
    }

    public var description: String { name }

    public static func == (lhs: TreeHandle, rhs: TreeHandle) -> Bool { lhs.name == rhs.name }

    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    private static let capacity = 4_096
    private static let places = Mutex<[String: Int]>([:])
}

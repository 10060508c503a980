import Synchronization

/// Turns a JSON value (never `null`: that stays nil) into what an attribute stores, for
/// attributes whose `attributeValueClassName` user-info key names it. Called from whatever
/// thread imports, so it must be safe to call concurrently.
public typealias ImportValueTransform = @Sendable (JSONValue) throws(ImportValueError) -> AttributeValue

/// The value transformers import uses, by the class names models give in
/// `attributeValueClassName`. Safe to use from any thread.
///
/// A registered name may contain `*`, matching any run of characters. MagicalRecord treated
/// every class name ending in `Color` as a colour, so the built-in colour transformer is
/// registered as `*Color`: it serves `UIColor`, `NSColor`, and the `*Color` its test model
/// writes. It reads MagicalRecord's `rgba(64,128,225,1)` strings into an ``ImportedColor``,
/// stored as its ``ImportedColor/data`` (Transformable and Binary attributes hold that).
///
/// ```swift
/// ImportValueTransformers.register(name: "Money") { json throws(ImportValueError) in
///     guard case .string(let text) = json, let cents = Int64(text.filter(\.isNumber)) else {
///         throw ImportValueError("\(json) is not an amount")
///     }
///     return .integer(cents)
/// }
/// ```
///
/// An importer looks transformers up when it prepares an attribute (see
/// ``ImportConversion``), so register them before importing.
public enum ImportValueTransformers {
    private static let registry = Mutex<[String: ImportValueTransform]>([
        "*Color": ImportedColor.transform,
    ])

    /// Registers `transform` for class names matching `name`, replacing any transformer
    /// registered under the same name (the built-in `*Color` one too).
    public static func register(name: String, transform: @escaping ImportValueTransform) {
        registry.withLock { $0[name] = transform }
    }

    /// Removes the transformer registered under exactly `name`.
    public static func unregister(name: String) {
        registry.withLock { $0[name] = nil }
    }

    /// The names registered, sorted.
    public static var registeredNames: [String] {
        registry.withLock { $0.keys.sorted() }
    }

    /// The transformer for `className`: the one registered under exactly that name, else
    /// the matching pattern with the most characters besides `*` (ties: the first name in
    /// sorted order); nil when none matches.
    public static func transform(forClassName className: String) -> ImportValueTransform? {
        registry.withLock { transformers in
            if let exact = transformers[className] { return exact }
            let best = transformers.keys
                .filter { $0.contains("*") && matches(pattern: $0, className) }
                .min { left, right in
                    let (leftLength, rightLength) = (left.count { $0 != "*" }, right.count { $0 != "*" })
                    return leftLength != rightLength ? leftLength > rightLength : left < right
                }
            return best.flatMap { transformers[$0] }
        }
    }

    /// Whether `name` matches `pattern`, where `*` matches any run of characters.
    static func matches(pattern: String, _ name: String) -> Bool {
        let pattern = Array(pattern), name = Array(name)
        var (patternIndex, nameIndex) = (0, 0)
        // Where the last `*` was, and the name position it is currently standing in for.
        var star: (pattern: Int, name: Int)?
        while nameIndex < name.count {
            if patternIndex < pattern.count, pattern[patternIndex] == "*" {
                star = (patternIndex, nameIndex)
                patternIndex += 1
            } else if patternIndex < pattern.count, pattern[patternIndex] == name[nameIndex] {
                patternIndex += 1
                nameIndex += 1
            } else if let last = star {
                star = (last.pattern, last.name + 1)
                (patternIndex, nameIndex) = (last.pattern + 1, last.name + 1)
            } else {
                return false
            }
        }
        return pattern[patternIndex...].allSatisfy { $0 == "*" }
    }
}

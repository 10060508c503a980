/// One key a fetch sorts by: an attribute key path (through to-one relationships) and a
/// direction. Nil values sort first ascending; strings compare by UTF-8 bytes, as
/// predicates and indexes do.
public struct SortKey: Sendable, Hashable, CustomStringConvertible {
    public var keyPath: String
    public var ascending: Bool

    public init(_ keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    public var description: String { "\(keyPath):\(ascending ? "YES" : "NO")" }

    /// Parses MagicalRecord's sort strings: keys separated by commas, each optionally
    /// suffixed `:YES`/`:NO` (also `:ASC`/`:DESC`, `:true`/`:false`, any case). A key
    /// without a suffix takes `ascending`; a suffix applies to its own key only. An empty
    /// string sorts by nothing.
    ///
    /// ```swift
    /// try SortKey.parse("lastName:NO,firstName", ascending: true)
    /// // [lastName descending, firstName ascending]
    /// ```
    ///
    /// Throws ``MagicalRecordError/invalidFetch(_:)`` for an empty key or an unknown suffix.
    public static func parse(_ sortString: String, ascending: Bool = true) throws(MagicalRecordError) -> [SortKey] {
        guard !sortString.allSatisfy(\.isWhitespace) else { return [] }
        var keys: [SortKey] = []
        for (index, item) in sortString.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            let parts = item.split(separator: ":", omittingEmptySubsequences: false)
            let key = parts[0].trimmingWhitespace
            guard !key.isEmpty, parts.count <= 2 else {
                throw .invalidFetch("sort string \"\(sortString)\": item \(index + 1) (\"\(item)\") is not KEY or KEY:YES/NO")
            }
            var direction = ascending
            if parts.count == 2 {
                switch parts[1].trimmingWhitespace.uppercased() {
                case "YES", "ASC", "TRUE", "1": direction = true
                case "NO", "DESC", "FALSE", "0": direction = false
                default: throw .invalidFetch("sort string \"\(sortString)\": \"\(parts[1])\" is not YES or NO")
                }
            }
            keys.append(SortKey(key, ascending: direction))
        }
        return keys
    }
}

extension Substring {
    fileprivate var trimmingWhitespace: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}

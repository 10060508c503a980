import Foundation
import Synchronization

/// Compiled MATCHES patterns (Spec/PREDICATES.md, P19), shared by every evaluation: a fetch
/// evaluates the same pattern once per object, and compiling is far dearer than matching.
final class PatternCache: Sendable {
    static let shared = PatternCache()

    /// Patterns taken from key paths can differ for every object; past this many the cache
    /// starts over rather than grow without bound.
    private static let capacity = 256

    private struct Key: Hashable {
        var pattern: String
        var options: PredicateOptions
    }

    private let expressions = Mutex<[Key: NSRegularExpression]>([:])

    /// Whether all of `text` matches `pattern`. `[c]` matches case-insensitively; `[d]`
    /// removes diacritics from both the text and the pattern first.
    func matches(_ text: String, pattern: String, options: PredicateOptions) throws(ObjectPredicateError) -> Bool {
        let expression = try expression(for: pattern, options: options)
        let subject = options.contains(.diacriticInsensitive) ? PredicateStrings.fold(text, .diacriticInsensitive) : text
        let range = NSRange(subject.startIndex..., in: subject)
        return expression.firstMatch(in: subject, options: [], range: range) != nil
    }

    /// The compiled pattern, anchored at both ends of the text: MATCHES is about the whole
    /// string, and `\z` (unlike `$`) does not let a final newline go unmatched.
    func expression(for pattern: String, options: PredicateOptions) throws(ObjectPredicateError) -> NSRegularExpression {
        let key = Key(pattern: pattern, options: options.intersection([.caseInsensitive, .diacriticInsensitive]))
        if let cached = expressions.withLock({ $0[key] }) { return cached }
        let source = options.contains(.diacriticInsensitive) ? PredicateStrings.fold(pattern, .diacriticInsensitive) : pattern
        let flags: NSRegularExpression.Options = options.contains(.caseInsensitive) ? [.caseInsensitive] : []
        let expression: NSRegularExpression
        do {
            // Compiled alone first: a pattern such as `a)|(b` is invalid, though wrapped it
            // would compile to something else.
            _ = try NSRegularExpression(pattern: source, options: flags)
            expression = try NSRegularExpression(pattern: "\\A(?:\(source)\(Self.closing(source)))\\z", options: flags)
        } catch {
            throw .invalidPattern(pattern, offset: nil)
        }
        expressions.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = expression
        }
        return expression
    }

    /// What ends whatever the pattern leaves open at its end, so that the anchoring group
    /// closes: an unterminated `\Q` quote, or a `#` comment in `(?x)` mode.
    private static func closing(_ pattern: String) -> String {
        var quoting = false
        var escaped = false
        for character in pattern {
            if escaped {
                if character == "Q" { quoting = true }
                if character == "E" { quoting = false }
                escaped = false
            } else if character == "\\" {
                escaped = true
            }
        }
        if quoting { return "\\E" }
        return pattern.contains("(?x") || pattern.contains("(?ix") ? "\n" : ""
    }
}

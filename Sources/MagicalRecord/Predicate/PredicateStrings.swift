import Foundation

/// The string side of comparisons (Spec/PREDICATES.md, P16-P19): folding for `[c]` and
/// `[d]`, the literal prefix, suffix and substring tests, and LIKE's wildcards.
///
/// Without options strings compare literally, Unicode scalar by scalar (UTF-8 byte order),
/// which is the order the engine's indexes keep; with options both sides are folded first.
enum PredicateStrings {
    /// `text` with case folded (`[c]`, full folding: `ß` becomes `ss`) and diacritics removed
    /// (`[d]`). `[n]` changes nothing.
    static func fold(_ text: String, _ options: PredicateOptions) -> String {
        let caseInsensitive = options.contains(.caseInsensitive)
        let diacriticInsensitive = options.contains(.diacriticInsensitive)
        guard caseInsensitive || diacriticInsensitive else { return text }
        // ASCII, the common case, has no diacritics and folds by lowercasing.
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return caseInsensitive ? text.lowercased() : text }
        var foldingOptions: String.CompareOptions = []
        if caseInsensitive { foldingOptions.insert(.caseInsensitive) }
        if diacriticInsensitive { foldingOptions.insert(.diacriticInsensitive) }
        return text.folding(options: foldingOptions, locale: nil)
    }

    static func beginsWith(_ text: String, _ prefix: String) -> Bool {
        text.utf8.starts(with: prefix.utf8)
    }

    static func endsWith(_ text: String, _ suffix: String) -> Bool {
        text.utf8.reversed().starts(with: suffix.utf8.reversed())
    }

    /// A match of whole UTF-8 sequences always falls on scalar boundaries, so this is the
    /// literal scalar-by-scalar substring test.
    static func contains(_ text: String, _ part: String) -> Bool {
        text.utf8.firstRange(of: part.utf8) != nil
    }

    /// LIKE: `*` matches any run of characters (none included), `?` exactly one, `\`
    /// makes the next character literal. Characters are `Character`s (grapheme clusters),
    /// so `?` matches `é` however it is encoded.
    static func like(_ text: String, _ pattern: String) -> Bool {
        let text = Array(text)
        let pattern = likePattern(pattern)
        // The classic two-pointer match: on a mismatch, let the last `*` swallow one more
        // character and retry from there. Quadratic at worst, never exponential.
        var textIndex = 0
        var patternIndex = 0
        var lastStar: (pattern: Int, text: Int)?
        while textIndex < text.count {
            if patternIndex < pattern.count, pattern[patternIndex].matches(text[textIndex]) {
                textIndex += 1
                patternIndex += 1
            } else if patternIndex < pattern.count, case .anyRun = pattern[patternIndex] {
                lastStar = (patternIndex, textIndex)
                patternIndex += 1
            } else if let star = lastStar {
                lastStar = (star.pattern, star.text + 1)
                patternIndex = star.pattern + 1
                textIndex = star.text + 1
            } else {
                return false
            }
        }
        while patternIndex < pattern.count, case .anyRun = pattern[patternIndex] { patternIndex += 1 }
        return patternIndex == pattern.count
    }

    private enum LikeElement {
        case literal(Character)
        case anyOne
        case anyRun

        func matches(_ character: Character) -> Bool {
            switch self {
            case .literal(let literal): return literal.unicodeScalars.elementsEqual(character.unicodeScalars)
            case .anyOne: return true
            case .anyRun: return false
            }
        }
    }

    private static func likePattern(_ pattern: String) -> [LikeElement] {
        var elements: [LikeElement] = []
        var escaping = false
        for character in pattern {
            if escaping {
                elements.append(.literal(character))
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else if character == "*" {
                elements.append(.anyRun)
            } else if character == "?" {
                elements.append(.anyOne)
            } else {
                elements.append(.literal(character))
            }
        }
        // A trailing backslash escapes nothing: it is itself.
        if escaping { elements.append(.literal("\\")) }
        return elements
    }
}

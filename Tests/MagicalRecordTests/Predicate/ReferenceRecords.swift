import Foundation
@testable import MagicalRecord

/// The reference side of PredicateReferenceTests: records as plain Swift structs, their key
/// paths, and what every operator means, spelt out in plain Swift from the rules of
/// Spec/PREDICATES.md (P14-P28) and the predicate sources' documentation. Nothing here
/// calls the library's comparison code; records reach the library as ``DictionarySubject``s.

/// A child of a record or of a parent: what `children.value` and `children.label` gather.
struct ReferenceChild: Sendable, CustomStringConvertible {
    var number: Int64
    var value: Int64?
    var label: String?

    var id: ObjectID { ObjectID(entityName: "Child", number: number) }

    var description: String { "Child \(number)(value: \(describe(value)), label: \(describe(label)))" }
}

/// A record's to-one `parent`, with children of its own (`parent.children.value`).
struct ReferenceParent: Sendable, CustomStringConvertible {
    var number: Int64
    var value: Int64?
    var label: String?
    var children: [ReferenceChild]

    var id: ObjectID { ObjectID(entityName: "Parent", number: number) }

    var description: String {
        "Parent \(number)(value: \(describe(value)), label: \(describe(label)), children: \(children))"
    }
}

/// One record of the reference test: attributes of several kinds, each possibly nil, a
/// to-many `children` and an optional to-one `parent`.
struct ReferenceRecord: Sendable, CustomStringConvertible {
    var number: Int64
    var quantity: Int64?
    var ratio: Double?
    var name: String?
    var flag: Bool?
    var day: Date?
    var children: [ReferenceChild]
    var parent: ReferenceParent?

    var id: ObjectID { ObjectID(entityName: "Record", number: number) }

    var description: String {
        "Record \(number)(quantity: \(describe(quantity)), ratio: \(describe(ratio)), name: \(describe(name)), "
            + "flag: \(describe(flag)), day: \(describe(day?.timeIntervalSinceReferenceDate)), children: \(children), "
            + "parent: \(parent.map(\.description) ?? "nil"))"
    }
}

/// The values records draw from: small sets, so that equalities hit.
enum ReferenceData {
    /// Case and diacritic variants (precomposed and decomposed), LIKE's wildcards as
    /// characters, `ß` (which folds to `ss`).
    static let names = [
        "abc", "ABC", "Abc", "ábc", "ÁBC", "a\u{301}bc", "", "a*c", "a?c", "a.c", "ab", "bc", "abcd", "b",
        "straße", "STRASSE", "öl", "ÖL", "o\u{308}l", "zz",
    ]
    /// Labels are also used as MATCHES patterns (`name MATCHES parent.label`): valid regular
    /// expressions all; not empty, which ICU refuses as a pattern; no `ß`, which ICU folds
    /// to `ss`.
    static let labels = ["abc", "ABC", "ábc", "a*c", "a?c", "a.c", "b", "öl", "o\u{308}l"]
    static let ratios: [Double] = [-1.5, -0.0, 0, 0.5, 1, 2, 2.5, 4]
    static let days: [Date] = [-86_400, 0, 86_400, 172_800].map { Date(timeIntervalSinceReferenceDate: $0) }
    static let quantities: ClosedRange<Int64> = -2...4
    static let childValues: ClosedRange<Int64> = -1...3

    /// `count` records, sharing a few parents; object numbers are unique across entities.
    static func records(count: Int, using random: inout SeededGenerator) -> [ReferenceRecord] {
        var nextChild: Int64 = 200_000
        func children(_ random: inout SeededGenerator) -> [ReferenceChild] {
            (0..<Int.random(in: 0...4, using: &random)).map { _ in
                nextChild += 1
                return ReferenceChild(
                    number: nextChild,
                    value: random.chance(0.2) ? nil : Int64.random(in: childValues, using: &random),
                    label: random.chance(0.2) ? nil : random.pick(labels)
                )
            }
        }
        let parents = (1...5).map { index in
            ReferenceParent(
                number: 100_000 + Int64(index),
                value: random.chance(0.2) ? nil : Int64.random(in: quantities, using: &random),
                label: random.chance(0.2) ? nil : random.pick(labels),
                children: children(&random)
            )
        }
        return (1...count).map { index in
            ReferenceRecord(
                number: Int64(index),
                quantity: random.chance(0.15) ? nil : Int64.random(in: quantities, using: &random),
                ratio: random.chance(0.15) ? nil : random.pick(ratios),
                name: random.chance(0.15) ? nil : random.pick(names),
                flag: random.chance(0.15) ? nil : random.chance(0.5),
                day: random.chance(0.15) ? nil : random.pick(days),
                children: children(&random),
                parent: random.chance(0.3) ? nil : random.pick(parents)
            )
        }
    }
}

extension ReferenceChild {
    var subject: DictionarySubject {
        DictionarySubject("Child", number, [
            "value": .attribute(value.map(AttributeValue.integer) ?? .null),
            "label": .attribute(label.map(AttributeValue.string) ?? .null),
        ])
    }
}

extension ReferenceRecord {
    /// The record as the library sees it.
    var subject: DictionarySubject {
        let parentSubject = parent.map { parent in
            DictionarySubject("Parent", parent.number, [
                "value": .attribute(parent.value.map(AttributeValue.integer) ?? .null),
                "label": .attribute(parent.label.map(AttributeValue.string) ?? .null),
                "children": .toMany(parent.children.map(\.subject)),
            ])
        }
        return DictionarySubject("Record", number, [
            "quantity": .attribute(quantity.map(AttributeValue.integer) ?? .null),
            "ratio": .attribute(ratio.map(AttributeValue.double) ?? .null),
            "name": .attribute(name.map(AttributeValue.string) ?? .null),
            "flag": .attribute(flag.map(AttributeValue.bool) ?? .null),
            "day": .attribute(day.map(AttributeValue.date) ?? .null),
            "children": .toMany(children.map(\.subject)),
            "parent": .toOne(parentSubject),
        ])
    }
}

// MARK: - Values

/// A value as the reference compares it. Numbers are Doubles and booleans 0 and 1 (as
/// NSNumber has them): exact for the small values of the records and the constants.
enum ReferenceValue: Sendable {
    case null
    case number(Double)
    case string(String)
    case date(Date)
    case object(ObjectID)

    init(_ value: Int64?) { self = value.map { .number(Double($0)) } ?? .null }
    init(_ value: Double?) { self = value.map { .number($0) } ?? .null }
    init(_ value: Bool?) { self = value.map { .number($0 ? 1 : 0) } ?? .null }
    init(_ value: String?) { self = value.map { .string($0) } ?? .null }
    init(_ value: Date?) { self = value.map { .date($0) } ?? .null }
    init(_ value: ObjectID?) { self = value.map { .object($0) } ?? .null }
}

/// What an operand gives for a record: one value, or the elements a to-many key path
/// gathers. A to-many path through a nil to-one gives `.single(.null)`.
enum ReferenceOperand: Sendable {
    case single(ReferenceValue)
    case elements([ReferenceValue])
}

/// `[c]` and `[d]`.
struct ReferenceOptions: Sendable {
    var caseInsensitive = false
    var diacriticInsensitive = false
}

/// The kinds of operands the generator matches up.
enum ReferenceKind: Sendable {
    case number, string, date, object
}

/// A key path of the records, with its meaning.
struct ReferenceKey: Sendable {
    /// The key path up to the collection operator, if any: what `%K` can stand for.
    var path: String
    /// The collection operator and what follows it (`.@sum.value`); empty for none.
    var aggregate: String
    var kind: ReferenceKind
    var features: Set<String>
    var value: @Sendable (ReferenceRecord) -> ReferenceOperand

    init(
        _ path: String, _ kind: ReferenceKind, aggregate: String = "", features: Set<String> = [],
        value: @escaping @Sendable (ReferenceRecord) -> ReferenceOperand
    ) {
        self.path = path
        self.aggregate = aggregate
        self.kind = kind
        self.features = path.hasPrefix("parent") ? features.union(["to-one path"]) : features
        self.value = value
    }
}

extension ReferenceKey {
    /// Key paths with one value of a kind: attributes, paths through `parent`, aggregates.
    static let singles: [ReferenceKey] = [
        ReferenceKey("quantity", .number) { .single(ReferenceValue($0.quantity)) },
        ReferenceKey("ratio", .number) { .single(ReferenceValue($0.ratio)) },
        ReferenceKey("flag", .number, features: ["boolean"]) { .single(ReferenceValue($0.flag)) },
        ReferenceKey("parent.value", .number) { .single(ReferenceValue($0.parent?.value)) },
        ReferenceKey("children", .number, aggregate: ".@count", features: ["@count"]) { .single(.number(Double($0.children.count))) },
        ReferenceKey("children.value", .number, aggregate: ".@count", features: ["@count"]) { .single(.number(Double($0.children.count))) },
        ReferenceKey("children", .number, aggregate: ".@sum.value", features: ["@sum"]) { .single(sum($0.children)) },
        ReferenceKey("children.value", .number, aggregate: ".@sum", features: ["@sum"]) { .single(sum($0.children)) },
        ReferenceKey("children", .number, aggregate: ".@avg.value", features: ["@avg"]) { .single(average($0.children)) },
        ReferenceKey("children", .number, aggregate: ".@min.value", features: ["@min"]) { .single(ReferenceValue($0.children.compactMap(\.value).min())) },
        ReferenceKey("children", .number, aggregate: ".@max.value", features: ["@max"]) { .single(ReferenceValue($0.children.compactMap(\.value).max())) },
        ReferenceKey("parent.children", .number, aggregate: ".@count", features: ["@count"]) { .single(.number(Double($0.parent?.children.count ?? 0))) },
        ReferenceKey("parent.children", .number, aggregate: ".@sum.value", features: ["@sum"]) { .single(sum($0.parent?.children ?? [])) },
        ReferenceKey("parent.children", .number, aggregate: ".@avg.value", features: ["@avg"]) { .single(average($0.parent?.children ?? [])) },
        ReferenceKey("name", .string) { .single(ReferenceValue($0.name)) },
        ReferenceKey("parent.label", .string) { .single(ReferenceValue($0.parent?.label)) },
        ReferenceKey("children", .string, aggregate: ".@min.label", features: ["@min"]) {
            .single(ReferenceValue($0.children.compactMap(\.label).min(by: ReferenceStrings.precedes)))
        },
        ReferenceKey("children", .string, aggregate: ".@max.label", features: ["@max"]) {
            .single(ReferenceValue($0.children.compactMap(\.label).max(by: ReferenceStrings.precedes)))
        },
        ReferenceKey("day", .date) { .single(ReferenceValue($0.day)) },
        ReferenceKey("parent", .object, features: ["objects"]) { .single(ReferenceValue($0.parent?.id)) },
    ]

    /// To-many key paths: what ANY, ALL, NONE, CONTAINS and IN range over.
    static let collections: [ReferenceKey] = [
        ReferenceKey("children.value", .number) { .elements($0.children.map { ReferenceValue($0.value) }) },
        ReferenceKey("children.label", .string) { .elements($0.children.map { ReferenceValue($0.label) }) },
        ReferenceKey("children", .object, features: ["objects"]) { .elements($0.children.map { ReferenceValue($0.id) }) },
        ReferenceKey("parent.children.value", .number) { record in
            record.parent.map { .elements($0.children.map { ReferenceValue($0.value) }) } ?? .single(.null)
        },
        ReferenceKey("parent.children.label", .string) { record in
            record.parent.map { .elements($0.children.map { ReferenceValue($0.label) }) } ?? .single(.null)
        },
    ]

    /// @sum: the non-nil values added up, 0 for none.
    private static func sum(_ children: [ReferenceChild]) -> ReferenceValue {
        .number(Double(children.compactMap(\.value).reduce(0, +)))
    }

    /// @avg: the mean of the non-nil values, nil for none.
    private static func average(_ children: [ReferenceChild]) -> ReferenceValue {
        let values = children.compactMap(\.value)
        guard !values.isEmpty else { return .null }
        return .number(Double(values.reduce(0, +)) / Double(values.count))
    }
}

// MARK: - Operators

/// The comparison operators, each with the ways it can be written.
enum ReferenceOperator: Sendable, CaseIterable {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
    case beginsWith, endsWith, contains, like, matches, `in`, between

    static let orderings: [ReferenceOperator] = [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual]

    /// The name the coverage check knows it by.
    var name: String { spellings[0] }

    var spellings: [String] {
        switch self {
        case .equal: return ["==", "="]
        case .notEqual: return ["!=", "<>"]
        case .less: return ["<"]
        case .lessOrEqual: return ["<=", "=<"]
        case .greater: return [">"]
        case .greaterOrEqual: return [">=", "=>"]
        case .beginsWith: return ["BEGINSWITH", "beginswith"]
        case .endsWith: return ["ENDSWITH", "EndsWith"]
        case .contains: return ["CONTAINS", "contains"]
        case .like: return ["LIKE", "like"]
        case .matches: return ["MATCHES", "Matches"]
        case .in: return ["IN", "in"]
        case .between: return ["BETWEEN", "between"]
        }
    }
}

/// ANY (or SOME), ALL, NONE, or none of them.
enum ReferenceModifier: Sendable {
    case direct, any, all, none
}

/// What a comparison means, rule by rule.
enum ReferenceSemantics {
    static func holds(
        _ modifier: ReferenceModifier, _ left: ReferenceOperand, _ comparisonOperator: ReferenceOperator,
        _ right: ReferenceOperand, _ options: ReferenceOptions
    ) -> Bool {
        let test = { (element: ReferenceValue) in holds(.single(element), comparisonOperator, right, options) }
        switch modifier {
        case .direct: return holds(left, comparisonOperator, right, options)
        // P23: ANY is true for some element, ALL for every one (so for none), NONE for no
        // element; a nil to-one on the way has no elements.
        case .any: return elements(left).contains(where: test)
        case .all: return elements(left).allSatisfy(test)
        case .none: return !elements(left).contains(where: test)
        }
    }

    private static func holds(
        _ left: ReferenceOperand, _ comparisonOperator: ReferenceOperator, _ right: ReferenceOperand, _ options: ReferenceOptions
    ) -> Bool {
        switch comparisonOperator {
        case .equal: return equal(single(left), single(right), options)
        case .notEqual: return !equal(single(left), single(right), options)
        case .less: return order(single(left), single(right), options) == -1
        case .lessOrEqual: return [-1, 0].contains(order(single(left), single(right), options))
        case .greater: return order(single(left), single(right), options) == 1
        case .greaterOrEqual: return [0, 1].contains(order(single(left), single(right), options))
        case .between:
            // P20: inclusive at both ends.
            guard case .elements(let bounds) = right, bounds.count == 2 else { fatalError("BETWEEN needs two bounds") }
            let value = single(left)
            return [0, 1].contains(order(value, bounds[0], options)) && [-1, 0].contains(order(value, bounds[1], options))
        case .in:
            // P21: an element of a list or collection, or a substring of a string.
            switch (left, right) {
            case (.single(let value), .elements(let elements)): return elements.contains { equal(value, $0, options) }
            case (.single(.string(let part)), .single(.string(let text))): return ReferenceStrings.contains(text, part, options)
            default: return false
            }
        case .contains:
            // P17, P22: a collection with an equal element, or a string with a substring.
            switch (left, right) {
            case (.elements(let elements), .single(let value)): return elements.contains { equal($0, value, options) }
            case (.single(.string(let text)), .single(.string(let part))): return ReferenceStrings.contains(text, part, options)
            default: return false
            }
        case .beginsWith, .endsWith, .like, .matches:
            // P14: string operators are false unless both sides are strings.
            guard case .single(.string(let text)) = left, case .single(.string(let pattern)) = right else { return false }
            switch comparisonOperator {
            case .beginsWith: return ReferenceStrings.beginsWith(text, pattern, options)
            case .endsWith: return ReferenceStrings.endsWith(text, pattern, options)
            case .like: return ReferenceStrings.like(text, pattern, options)
            default: return ReferenceStrings.matches(text, pattern, options)
            }
        }
    }

    private static func single(_ operand: ReferenceOperand) -> ReferenceValue {
        guard case .single(let value) = operand else { fatalError("the generator compared a to-many operand directly") }
        return value
    }

    private static func elements(_ operand: ReferenceOperand) -> [ReferenceValue] {
        switch operand {
        case .elements(let elements): return elements
        case .single(.null): return []
        case .single: fatalError("the generator put a single value under ANY or ALL")
        }
    }

    /// P14: nil equals nil only. P15: numbers by value. P16: strings scalar by scalar after
    /// folding. P26: objects by identity. P28: other kinds are unequal.
    static func equal(_ left: ReferenceValue, _ right: ReferenceValue, _ options: ReferenceOptions) -> Bool {
        switch (left, right) {
        case (.null, .null): return true
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)):
            return ReferenceStrings.fold(a, options).unicodeScalars.elementsEqual(ReferenceStrings.fold(b, options).unicodeScalars)
        case let (.date(a), .date(b)): return a == b
        case let (.object(a), .object(b)): return a == b
        default: return false
        }
    }

    /// -1, 0 or 1; nil when the two have no order: nil on either side (P14), objects (P26),
    /// kinds that do not compare (P28).
    static func order(_ left: ReferenceValue, _ right: ReferenceValue, _ options: ReferenceOptions) -> Int? {
        switch (left, right) {
        case let (.number(a), .number(b)): return a < b ? -1 : (a == b ? 0 : 1)
        case let (.date(a), .date(b)): return a < b ? -1 : (a == b ? 0 : 1)
        case let (.string(a), .string(b)):
            let (x, y) = (ReferenceStrings.fold(a, options), ReferenceStrings.fold(b, options))
            if x.unicodeScalars.elementsEqual(y.unicodeScalars) { return 0 }
            return ReferenceStrings.precedes(x, y) ? -1 : 1
        default: return nil
        }
    }
}

// MARK: - Strings

/// Strings as the rules have them: literal, Unicode scalar by scalar, unless `[c]` or `[d]`
/// folds both sides first.
enum ReferenceStrings {
    /// `[d]` takes the combining marks off the canonical decomposition; `[c]` maps to upper
    /// case and back to lower, which folds `ß` to `ss` as full case folding does.
    static func fold(_ text: String, _ options: ReferenceOptions) -> String {
        var folded = text
        if options.diacriticInsensitive {
            let scalars = folded.decomposedStringWithCanonicalMapping.unicodeScalars
            folded = String(String.UnicodeScalarView(scalars.filter { $0.properties.generalCategory != .nonspacingMark }))
        }
        if options.caseInsensitive { folded = folded.uppercased().lowercased() }
        return folded
    }

    /// Unicode scalar order, which is UTF-8 byte order.
    static func precedes(_ a: String, _ b: String) -> Bool {
        a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars) { $0.value < $1.value }
    }

    static func beginsWith(_ text: String, _ prefix: String, _ options: ReferenceOptions) -> Bool {
        Array(fold(text, options).unicodeScalars).starts(with: fold(prefix, options).unicodeScalars)
    }

    static func endsWith(_ text: String, _ suffix: String, _ options: ReferenceOptions) -> Bool {
        Array(fold(text, options).unicodeScalars).reversed().starts(with: Array(fold(suffix, options).unicodeScalars).reversed())
    }

    static func contains(_ text: String, _ part: String, _ options: ReferenceOptions) -> Bool {
        let text = Array(fold(text, options).unicodeScalars)
        let part = Array(fold(part, options).unicodeScalars)
        guard part.count <= text.count else { return false }
        return (0...(text.count - part.count)).contains { text[$0..<($0 + part.count)].elementsEqual(part) }
    }

    /// P18: `*` any run of characters, `?` exactly one character (a grapheme cluster), `\`
    /// makes the next character literal; literal characters compare scalar by scalar, like
    /// every string comparison without options.
    static func like(_ text: String, _ pattern: String, _ options: ReferenceOptions) -> Bool {
        enum Piece { case literal(Character), one, run }
        var pieces: [Piece] = []
        var escaping = false
        for character in fold(pattern, options) {
            if escaping {
                pieces.append(.literal(character))
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                pieces.append(character == "*" ? .run : (character == "?" ? .one : .literal(character)))
            }
        }
        if escaping { pieces.append(.literal("\\")) }
        func match(_ text: ArraySlice<Character>, _ pieces: ArraySlice<Piece>) -> Bool {
            guard let piece = pieces.first else { return text.isEmpty }
            switch piece {
            case .run: return (0...text.count).contains { match(text.dropFirst($0), pieces.dropFirst()) }
            case .one: return !text.isEmpty && match(text.dropFirst(), pieces.dropFirst())
            case .literal(let literal):
                guard let first = text.first,
                      first.unicodeScalars.elementsEqual(literal.unicodeScalars)
                else { return false }
                return match(text.dropFirst(), pieces.dropFirst())
            }
        }
        return match(Array(fold(text, options))[...], pieces[...])
    }

    /// P19: the whole text matches the regular expression, Unicode scalar by scalar (as ICU
    /// matches); `[c]` ignores case, `[d]` takes diacritics off text and pattern first.
    /// ICU ignores case character by character (`ß` is no `[a-z]`): lower case both sides.
    static func matches(_ text: String, _ pattern: String, _ options: ReferenceOptions) -> Bool {
        let diacriticFolding = ReferenceOptions(diacriticInsensitive: options.diacriticInsensitive)
        let (text, pattern) = (fold(text, diacriticFolding), fold(pattern, diacriticFolding))
        guard options.caseInsensitive else { return ReferenceRegex(pattern).matches(text) }
        return ReferenceRegex(pattern.lowercased()).matches(text.lowercased())
    }
}

/// The regular expressions the random patterns use, and nothing more: literal scalars,
/// `.`, sets of scalars and ranges (`[a-c]`), `\` before a literal, `*` `+` `?` after any
/// of those, and `|` between whole alternatives. A backtracking matcher over scalars.
struct ReferenceRegex {
    private enum Atom {
        case scalar(Unicode.Scalar)
        case any
        case set([ClosedRange<Unicode.Scalar>])

        func matches(_ scalar: Unicode.Scalar) -> Bool {
            switch self {
            case .scalar(let literal): return literal == scalar
            case .any: return scalar != "\n"
            case .set(let ranges): return ranges.contains { $0.contains(scalar) }
            }
        }
    }

    private enum Repetition { case once, optional, zeroOrMore, oneOrMore }

    private struct Piece {
        var atom: Atom
        var repetition: Repetition
    }

    private var alternatives: [[Piece]] = [[]]

    init(_ pattern: String) {
        var scalars = pattern.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            let atom: Atom
            switch scalar {
            case "|":
                alternatives.append([])
                continue
            case ".": atom = .any
            case "\\": atom = .scalar(scalars.popFirst() ?? "\\")
            case "[":
                var ranges: [ClosedRange<Unicode.Scalar>] = []
                while let member = scalars.popFirst(), member != "]" {
                    if scalars.first == "-", scalars.dropFirst().first.map({ $0 != "]" }) == true {
                        scalars.removeFirst()
                        ranges.append(member...scalars.removeFirst())
                    } else {
                        ranges.append(member...member)
                    }
                }
                atom = .set(ranges)
            default: atom = .scalar(scalar)
            }
            var repetition = Repetition.once
            switch scalars.first {
            case "*": repetition = .zeroOrMore
            case "+": repetition = .oneOrMore
            case "?": repetition = .optional
            default: break
            }
            if repetition != .once { scalars.removeFirst() }
            alternatives[alternatives.count - 1].append(Piece(atom: atom, repetition: repetition))
        }
    }

    func matches(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)[...]
        return alternatives.contains { match(scalars, $0[...]) }
    }

    private func match(_ text: ArraySlice<Unicode.Scalar>, _ pieces: ArraySlice<Piece>) -> Bool {
        guard let piece = pieces.first else { return text.isEmpty }
        let rest = pieces.dropFirst()
        let atomMatchesFirst = text.first.map(piece.atom.matches) ?? false
        switch piece.repetition {
        case .once: return atomMatchesFirst && match(text.dropFirst(), rest)
        case .optional: return (atomMatchesFirst && match(text.dropFirst(), rest)) || match(text, rest)
        case .oneOrMore: return atomMatchesFirst && match(text.dropFirst(), ([Piece(atom: piece.atom, repetition: .zeroOrMore)] + rest)[...])
        case .zeroOrMore:
            var remaining = text
            while true {
                if match(remaining, rest) { return true }
                guard let first = remaining.first, piece.atom.matches(first) else { return false }
                remaining = remaining.dropFirst()
            }
        }
    }
}

// MARK: - Descriptions

/// `text` quoted, with every non-ASCII scalar written `\u{...}`: a decomposed `á` then
/// reads differently from a precomposed one in a failure message.
func referenceQuoted(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
        if scalar.isASCII, scalar != "\\" {
            result.unicodeScalars.append(scalar)
        } else if scalar == "\\" {
            result += "\\\\"
        } else {
            result += "\\u{\(String(scalar.value, radix: 16))}"
        }
    }
    return "\"\(result)\""
}

private func describe(_ value: String?) -> String { value.map(referenceQuoted) ?? "nil" }

private func describe<T>(_ value: T?) -> String { value.map { "\($0)" } ?? "nil" }

import Foundation
import Testing
@testable import MagicalRecord

/// Every operator, option and modifier of the predicate language against the plain-Swift
/// reference of ReferenceRecords.swift, on random records (Spec/PREDICATES.md, P14-P28).
/// Seeded, so a failure replays; `MAGICALRECORD_TEST_SCALE` multiplies the number of
/// records and of predicates.
struct PredicateReferenceTests {
    /// What every run must exercise, each with both outcomes.
    static let features: Set<String> = [
        "==", "!=", "<", "<=", ">", ">=", "BETWEEN", "IN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES",
        "[c]", "[d]", "[cd]", "[n]", "ANY", "SOME", "ALL", "NONE", "@count", "@sum", "@avg", "@min", "@max",
        "to-one path", "nil", "boolean", "Float", "Decimal", "CAST", "dates", "ISO 8601 string", "objects", "SELF",
        "list", "key vs key", "cross kinds", "%@", "%K", "%d", "%f", "#key", "SELF.key", "AND", "OR", "NOT",
    ]

    @Test("random predicates agree with the reference on random records")
    func randomPredicatesAgreeWithReference() {
        var random = SeededGenerator(seed: 0x5EED_2EC0)
        let records = ReferenceData.records(count: 200 * testScale, using: &random)
        let subjects = records.map(\.subject)
        var generator = ReferencePredicates(random: SeededGenerator(seed: 0x5EED_F0E7))
        var trueCounts: [String: Int] = [:]
        var falseCounts: [String: Int] = [:]
        var failures = 0
        for _ in 0..<(300 * testScale) where failures < 20 {
            let candidate = generator.predicate()
            let predicate: ObjectPredicate
            do {
                predicate = try ObjectPredicate(format: candidate.format, argumentArray: candidate.arguments)
            } catch {
                Issue.record("\(candidate) does not parse: \(error)")
                failures += 1
                continue
            }
            var (trues, falses) = (0, 0)
            for (record, subject) in zip(records, subjects) {
                let expected = candidate.holds(record)
                let actual: Bool
                do {
                    actual = try predicate.evaluate(on: subject)
                } catch {
                    Issue.record("\(candidate)\non \(record)\nexpected \(expected), got an error: \(error)")
                    failures += 1
                    break
                }
                guard actual == expected else {
                    let mismatch = Comment(rawValue: "\(candidate)\non \(record)\nexpected \(expected), got \(actual)")
                    Issue.record(mismatch)
                    failures += 1
                    break
                }
                if actual { trues += 1 } else { falses += 1 }
            }
            for feature in candidate.features {
                trueCounts[feature, default: 0] += trues
                falseCounts[feature, default: 0] += falses
            }
        }
        guard failures == 0 else { return }
        for feature in Self.features.sorted() {
            let (trues, falses) = (trueCounts[feature] ?? 0, falseCounts[feature] ?? 0)
            #expect(trues > 0 && falses > 0, "\(feature) was true \(trues) times and false \(falses) times")
        }
    }

    @Test("the reference follows the rules on examples whose answers are known")
    func referenceRules() {
        let none = ReferenceOptions()
        let caseless = ReferenceOptions(caseInsensitive: true)
        let accentless = ReferenceOptions(diacriticInsensitive: true)
        #expect(ReferenceSemantics.equal(.null, .null, none))
        #expect(!ReferenceSemantics.equal(.null, .number(0), none))
        #expect(ReferenceSemantics.order(.null, .number(0), none) == nil)
        #expect(ReferenceSemantics.equal(.number(1), .number(1.0), none))
        #expect(!ReferenceSemantics.equal(.string("2"), .number(2), none))
        #expect(ReferenceSemantics.order(.string("ABC"), .string("abc"), none) == -1)
        #expect(ReferenceSemantics.equal(.string("straße"), .string("STRASSE"), caseless))
        #expect(!ReferenceSemantics.equal(.string("ábc"), .string("a\u{301}bc"), none))
        let folding = ReferenceOptions(caseInsensitive: true, diacriticInsensitive: true)
        #expect(ReferenceSemantics.equal(.string("ÁBC"), .string("a\u{301}bc"), folding))
        #expect(ReferenceStrings.like("abc", "a*", none) && ReferenceStrings.like("a\u{301}bc", "?bc", none))
        #expect(!ReferenceStrings.like("abc", "a\\*c", none) && ReferenceStrings.like("a*c", "a\\*c", none))
        #expect(ReferenceStrings.matches("a\u{301}bc", "a.bc", none) && !ReferenceStrings.matches("ábc", "a.bc", none))
        #expect(ReferenceStrings.matches("ABC", "[a-c]+", caseless) && ReferenceStrings.matches("ábc", "abc|x", accentless))
        #expect(ReferenceSemantics.holds(.all, .elements([]), .greater, .single(.number(1)), none))
        #expect(ReferenceSemantics.holds(.none, .single(.null), .equal, .single(.number(1)), none))
    }

    /// Found by the random test. `==`, BEGINSWITH and the rest compare literally, scalar by
    /// scalar (P16), and so do Core Data's LIKE (ICU) and SQLite's; but LIKE's literal pattern
    /// characters are compared as Swift `Character`s, whose equality is canonical
    /// equivalence, so a decomposed `ö` matches a precomposed one.
    @Test("LIKE compares literal characters scalar by scalar, as == does (P16, P18)")
    func likeLiteralsCompareLiterally() throws {
        let decomposed = DictionarySubject("Record", 1, ["name": .attribute(.string("o\u{308}l"))])
        #expect(try !ObjectPredicate(format: "name == %@", "\u{F6}l").evaluate(on: decomposed))
        #expect(try !ObjectPredicate(format: "name BEGINSWITH %@", "\u{F6}").evaluate(on: decomposed))
        #expect(try ObjectPredicate(format: "name LIKE %@", "o\u{308}?").evaluate(on: decomposed))
        #expect(try ObjectPredicate(format: "name LIKE[d] %@", "\u{F6}l").evaluate(on: decomposed), "[d] ignores the difference")
        let likeWhole = try ObjectPredicate(format: "name LIKE %@", "\u{F6}l").evaluate(on: decomposed)
        let likePrefix = try ObjectPredicate(format: "name LIKE %@", "\u{F6}*").evaluate(on: decomposed)
        #expect(!likeWhole)
        #expect(!likePrefix)
    }
}

/// One random predicate: the format string and arguments the library parses, what it means
/// for a record in plain Swift, and the features it exercises.
struct ReferenceCase: CustomStringConvertible {
    var format: String
    var arguments: [(any PredicateArgumentConvertible)?]
    var features: Set<String>
    /// Whether it is made of others (AND, OR, NOT): such a predicate needs parentheses
    /// inside another.
    var isCompound = false
    var holds: (ReferenceRecord) -> Bool

    var description: String {
        let arguments = arguments.map { Self.describe($0?.predicateArgument ?? .value(.null)) }
        return "\(referenceQuoted(format)) with arguments [\(arguments.joined(separator: ", "))]"
    }

    /// An argument with its kind (`integer(2)`, `float(2.5)`), strings escaped.
    private static func describe(_ argument: PredicateArgument) -> String {
        switch argument {
        case .value(.string(let text)): return referenceQuoted(text)
        case .value(let value): return "\(value)"
        case .object(let id): return id.description
        case .list(let items): return "[\(items.map(describe).joined(separator: ", "))]"
        }
    }
}

/// An operand as written in a format string: its text, its arguments, and its value for a
/// record.
struct ReferenceTerm {
    var written: String
    var arguments: [(any PredicateArgumentConvertible)?] = []
    var features: Set<String> = []
    var value: (ReferenceRecord) -> ReferenceOperand
    /// The value of a constant, the same for every record; nil for key paths.
    var constant: ReferenceValue?

    static func constant(
        _ written: String, _ arguments: [(any PredicateArgumentConvertible)?], _ features: Set<String>, _ value: ReferenceValue
    ) -> ReferenceTerm {
        ReferenceTerm(written: written, arguments: arguments, features: features, value: { _ in .single(value) }, constant: value)
    }

    static func constant(_ written: String, _ value: ReferenceValue) -> ReferenceTerm {
        constant(written, [], [], value)
    }

    static var evaluatedObject: ReferenceTerm {
        ReferenceTerm(written: "SELF", features: ["SELF", "objects"]) { .single(.object($0.id)) }
    }
}

/// Random predicates over the reference records, with their meaning.
struct ReferencePredicates {
    var random: SeededGenerator

    /// Strings to compare with: the records' names, and pieces of them.
    static let strings = ReferenceData.names + ["a", "A", "c", "á", "a\u{301}", "Á", "ö", "o", "O", "ss", "SS", "ß", "l"]
    static let likePatterns = [
        "a*", "*c", "a?c", "A?C", "?bc", "*b*", "*", "?", "", "a\\*c", "a\\?c", "á*", "Á*", "?l", "abc", "*ss*", "a*c*", "??", "*?",
        "ö*", "öl", "o\u{308}l", "stra?e", "STRA*",
    ]
    /// MATCHES patterns in the language ``ReferenceRegex`` knows; no `ß` or `ss`, which ICU
    /// folds into each other; not the empty pattern, which ICU refuses.
    static let regexPatterns = [
        "abc", "a.c", "a.*", ".*c", "[aá]bc", "[a-c]+", "ab?c", "a|ab", "abc|ABC", ".", ".*", "á.*", "A.*", "...",
        "a\\.c", "a\\*c", "o.l", "[A-Z]+", "ö.|ÖL",
    ]
    /// ISO 8601 strings that stand for dates (P27), with the time since the reference date.
    static let isoDates: [(String, TimeInterval)] = [
        ("2000-12-31", -86_400), ("2000-12-31T00:00:00Z", -86_400), ("2001-01-01T00:00:00Z", 0), ("2001-01-01T02:00:00+02:00", 0),
        ("2001-01-01T12:00:00Z", 43_200), ("2001-01-01T12:00:00.000Z", 43_200), ("2001-01-02", 86_400), ("2001-01-03T00:00:00Z", 172_800),
    ]

    // MARK: Predicates

    mutating func predicate(depth: Int = 2) -> ReferenceCase {
        guard depth > 0, random.chance(0.3) else { return leaf() }
        switch Int.random(in: 0..<3, using: &random) {
        case 0:
            let operand = predicate(depth: depth - 1)
            let written = operand.isCompound || random.chance(0.5) ? "(\(operand.format))" : operand.format
            return ReferenceCase(
                format: random.pick(["NOT ", "not ", "!"]) + written, arguments: operand.arguments,
                features: operand.features.union(["NOT"]), isCompound: true
            ) { !operand.holds($0) }
        case 1:
            let operands = (0..<Int.random(in: 2...3, using: &random)).map { _ in predicate(depth: depth - 1) }
            return junction(operands, random.pick([" AND ", " and ", " && "]), "AND") { record in operands.allSatisfy { $0.holds(record) } }
        default:
            let operands = (0..<Int.random(in: 2...3, using: &random)).map { _ in predicate(depth: depth - 1) }
            return junction(operands, random.pick([" OR ", " or ", " || "]), "OR") { record in operands.contains { $0.holds(record) } }
        }
    }

    private func junction(
        _ operands: [ReferenceCase], _ joiner: String, _ feature: String, holds: @escaping (ReferenceRecord) -> Bool
    ) -> ReferenceCase {
        ReferenceCase(
            format: operands.map { $0.isCompound ? "(\($0.format))" : $0.format }.joined(separator: joiner),
            arguments: operands.flatMap(\.arguments),
            features: operands.reduce([feature]) { $0.union($1.features) },
            isCompound: true, holds: holds
        )
    }

    mutating func leaf() -> ReferenceCase {
        switch Int.random(in: 0..<26, using: &random) {
        case 0: return ReferenceCase(format: "TRUEPREDICATE", arguments: [], features: ["TRUEPREDICATE"]) { _ in true }
        case 1: return ReferenceCase(format: "FALSEPREDICATE", arguments: [], features: ["FALSEPREDICATE"]) { _ in false }
        case 2...5: return numberComparison()
        case 6, 7: return nilComparison()
        case 8...11: return stringComparison()
        case 12, 13: return dateComparison()
        case 14, 15: return between()
        case 16, 17: return inList()
        case 18...21: return quantified()
        case 22, 23: return membership()
        case 24: return objectComparison()
        default: return keyComparison()
        }
    }

    /// `[modifier] left op[options] right`, and what it means.
    private mutating func compared(
        _ left: ReferenceTerm, _ comparisonOperator: ReferenceOperator, _ right: ReferenceTerm,
        _ options: WrittenOptions = WrittenOptions(), modifier: ReferenceModifier = .direct
    ) -> ReferenceCase {
        var features = left.features.union(right.features).union([comparisonOperator.name]).union(options.features)
        let prefix: String
        switch modifier {
        case .direct: prefix = ""
        case .any: prefix = random.pick(["ANY ", "any ", "SOME "])
        case .all: prefix = random.pick(["ALL ", "all "])
        case .none: prefix = random.pick(["NONE ", "none "])
        }
        if !prefix.isEmpty { features.insert(prefix.trimmingCharacters(in: .whitespaces).uppercased()) }
        let format = "\(prefix)\(left.written) \(random.pick(comparisonOperator.spellings))\(options.written) \(right.written)"
        return ReferenceCase(format: format, arguments: left.arguments + right.arguments, features: features) { record in
            ReferenceSemantics.holds(modifier, left.value(record), comparisonOperator, right.value(record), options.options)
        }
    }

    /// A comparison with its sides swapped now and then: `3 > quantity` as well as `quantity < 3`.
    private mutating func eitherWay(
        _ left: ReferenceTerm, _ comparisonOperator: ReferenceOperator, _ right: ReferenceTerm, _ options: WrittenOptions = WrittenOptions()
    ) -> ReferenceCase {
        random.chance(0.25) ? compared(right, comparisonOperator, left, options) : compared(left, comparisonOperator, right, options)
    }

    // MARK: Comparisons by kind

    /// P15: numbers (booleans included) against constants of every numeric kind.
    private mutating func numberComparison() -> ReferenceCase {
        eitherWay(term(single(.number)), random.pick(ReferenceOperator.orderings), numberConstant())
    }

    /// P14: nil equals nil only and never orders; string operators with nil are false.
    private mutating func nilComparison() -> ReferenceCase {
        let key = random.pick(ReferenceKey.singles)
        let nilTerm = random.chance(0.7)
            ? ReferenceTerm.constant(random.pick(["nil", "NIL", "null", "NULL"]), [], ["nil"], .null)
            : ReferenceTerm.constant("%@", [nil], ["nil", "%@"], .null)
        let comparisonOperator: ReferenceOperator = random.chance(0.7)
            ? random.pick([.equal, .notEqual])
            : random.pick(ReferenceOperator.orderings + [.beginsWith, .like] + (key.kind == .string ? [.contains] : []))
        return eitherWay(term(key), comparisonOperator, nilTerm)
    }

    /// P16-P19, P21: strings, with options; now and then against a number (P28).
    private mutating func stringComparison() -> ReferenceCase {
        let options = stringOptions()
        let comparisonOperator = random.pick(ReferenceOperator.orderings + [.beginsWith, .endsWith, .contains, .like, .matches, .in])
        var left = term(single(.string))
        var right: ReferenceTerm
        switch comparisonOperator {
        case .like: right = stringConstant(random.pick(Self.likePatterns))
        case .matches: right = stringConstant(random.pick(Self.regexPatterns))
        case .in where random.chance(0.5):
            // A substring of the constant.
            right = stringConstant(random.pick(ReferenceData.names + ["abcd", "xabcx", "STRASSE und straße"]))
        case .in:
            (left, right) = (stringConstant(random.pick(Self.strings)), left)
        default: right = stringConstant(random.pick(Self.strings))
        }
        // A number on the right of IN, or on the left of CONTAINS, is an error, not false.
        if comparisonOperator != .in, random.chance(0.1) {
            right = numberConstant()
            right.features.insert("cross kinds")
        } else if comparisonOperator != .contains, random.chance(0.05) {
            left = term(single(.number))
            left.features.insert("cross kinds")
        }
        return compared(left, comparisonOperator, right, options)
    }

    /// P27: dates against dates, ISO 8601 strings, and strings that are not dates.
    private mutating func dateComparison() -> ReferenceCase {
        eitherWay(term(single(.date)), random.pick(ReferenceOperator.orderings), dateConstant())
    }

    /// P20: BETWEEN, inclusive, numbers, strings and dates; bounds in braces or a list argument.
    private mutating func between() -> ReferenceCase {
        switch Int.random(in: 0..<3, using: &random) {
        case 0:
            let lower = random.chance(0.1) ? ReferenceTerm.constant("nil", [], ["nil"], .null) : numberConstant()
            return compared(term(single(.number)), .between, list([lower, numberConstant()]))
        case 1:
            let bounds = [stringConstant(random.pick(Self.strings)), stringConstant(random.pick(Self.strings))]
            return compared(term(single(.string)), .between, list(bounds), stringOptions())
        default: return compared(term(single(.date)), .between, list([dateConstant(), dateConstant()]))
        }
    }

    /// P21: IN a list of constants, nil among them now and then.
    private mutating func inList() -> ReferenceCase {
        let kind = random.pick([ReferenceKind.number, .number, .string, .string, .date, .object])
        let count = Int.random(in: 0...4, using: &random)
        var elements = (0..<count).map { _ in constant(of: kind) }
        if random.chance(0.15) { elements.append(.constant("nil", [], ["nil"], .null)) }
        let left = kind == .object && random.chance(0.5) ? ReferenceTerm.evaluatedObject : term(single(kind))
        return compared(left, .in, list(elements), kind == .string ? stringOptions() : WrittenOptions())
    }

    /// P23: ANY, SOME, ALL and NONE over to-many key paths, empty ones and ones through a
    /// nil parent included.
    private mutating func quantified() -> ReferenceCase {
        let key = random.pick(ReferenceKey.collections)
        let modifier = random.pick([ReferenceModifier.any, .all, .none])
        let left = term(key)
        switch key.kind {
        case .number:
            switch Int.random(in: 0..<8, using: &random) {
            case 0: return compared(left, .between, list([numberConstant(), numberConstant()]), modifier: modifier)
            case 1: return compared(left, .in, list([numberConstant(), numberConstant()]), modifier: modifier)
            case 2: return compared(left, random.pick(ReferenceOperator.orderings), keyTerm(single(.number)), modifier: modifier)
            case 3: return compared(left, random.pick([.equal, .notEqual]), .constant("nil", [], ["nil"], .null), modifier: modifier)
            default: return compared(left, random.pick(ReferenceOperator.orderings), numberConstant(), modifier: modifier)
            }
        case .string:
            let comparisonOperator = random.pick(ReferenceOperator.orderings + [.beginsWith, .endsWith, .contains, .like, .matches])
            let right: ReferenceTerm
            switch comparisonOperator {
            case .like: right = stringConstant(random.pick(Self.likePatterns))
            case .matches: right = stringConstant(random.pick(Self.regexPatterns))
            default: right = random.chance(0.2) ? keyTerm(single(.string)) : stringConstant(random.pick(Self.strings))
            }
            return compared(left, comparisonOperator, right, stringOptions(), modifier: modifier)
        default:
            return compared(left, random.pick([.equal, .notEqual]), constant(of: .object), modifier: modifier)
        }
    }

    /// P17, P21, P22: a to-many key path CONTAINS a value, a value IN a to-many key path.
    private mutating func membership() -> ReferenceCase {
        let key = random.pick(ReferenceKey.collections)
        let value: ReferenceTerm
        if random.chance(0.1) {
            value = .constant("nil", [], ["nil"], .null)
        } else if key.kind != .object, random.chance(0.3) {
            value = keyTerm(single(key.kind))
        } else {
            value = constant(of: key.kind)
        }
        let options = key.kind == .string ? stringOptions() : WrittenOptions()
        return random.chance(0.5) ? compared(term(key), .contains, value, options) : compared(value, .in, term(key), options)
    }

    /// P26: to-one relationships and SELF against object IDs and nil; objects have no order.
    private mutating func objectComparison() -> ReferenceCase {
        let left = random.chance(0.5) ? ReferenceTerm.evaluatedObject : term(single(.object))
        let right = random.chance(0.15) ? ReferenceTerm.constant("%@", [nil], ["nil", "%@"], .null) : constant(of: .object)
        let comparisonOperator: ReferenceOperator = random.chance(0.85)
            ? random.pick([.equal, .notEqual])
            : random.pick(ReferenceOperator.orderings)
        return eitherWay(left, comparisonOperator, right)
    }

    /// Two key paths of a record compared: numbers, strings (a label as a LIKE or MATCHES
    /// pattern), and kinds that do not compare (P28).
    private mutating func keyComparison() -> ReferenceCase {
        switch Int.random(in: 0..<3, using: &random) {
        case 0:
            return compared(keyTerm(single(.number)), random.pick(ReferenceOperator.orderings), keyTerm(single(.number)))
        case 1:
            let comparisonOperator = random.pick(ReferenceOperator.orderings + [.beginsWith, .endsWith, .contains, .like, .matches, .in])
            let right = comparisonOperator == .matches
                ? keyTerm(ReferenceKey.singles.first { $0.path == "parent.label" }!)
                : keyTerm(single(.string))
            return compared(keyTerm(single(.string)), comparisonOperator, right, stringOptions())
        default:
            let kinds = [ReferenceKind.number, .string, .date, .object].shuffled(using: &random)
            var left = keyTerm(single(kinds[0]))
            left.features.insert("cross kinds")
            let comparisonOperator: ReferenceOperator = random.chance(0.7)
                ? random.pick([.equal, .notEqual])
                : random.pick(ReferenceOperator.orderings)
            return compared(left, comparisonOperator, keyTerm(single(kinds[1])))
        }
    }

    // MARK: Operands

    private mutating func single(_ kind: ReferenceKind) -> ReferenceKey {
        random.pick(ReferenceKey.singles.filter { $0.kind == kind })
    }

    /// A key path, written plainly or as `%K`, `#key` or `SELF.key`.
    private mutating func term(_ key: ReferenceKey) -> ReferenceTerm {
        switch Int.random(in: 0..<12, using: &random) {
        case 0, 1: return ReferenceTerm(written: "%K" + key.aggregate, arguments: [key.path], features: key.features.union(["%K"]), value: key.value)
        case 2: return ReferenceTerm(written: "#" + key.path + key.aggregate, features: key.features.union(["#key"]), value: key.value)
        case 3: return ReferenceTerm(written: "SELF." + key.path + key.aggregate, features: key.features.union(["SELF.key"]), value: key.value)
        default: return ReferenceTerm(written: key.path + key.aggregate, features: key.features, value: key.value)
        }
    }

    /// A key path on the right of a comparison, or on both sides.
    private mutating func keyTerm(_ key: ReferenceKey) -> ReferenceTerm {
        var term = term(key)
        term.features.insert("key vs key")
        return term
    }

    private mutating func constant(of kind: ReferenceKind) -> ReferenceTerm {
        switch kind {
        case .number: return numberConstant()
        case .string: return stringConstant(random.pick(Self.strings))
        case .date: return dateConstant()
        case .object: return objectConstant()
        }
    }

    /// An integer, a real or a boolean, as a literal, an argument of every numeric kind, or a CAST.
    private mutating func numberConstant() -> ReferenceTerm {
        let integer = Int64.random(in: -3...5, using: &random)
        let real = random.chance(0.5) ? random.pick([-1.5, 0.5, 2.5, 4.5]) : Double(integer)
        let truth = random.chance(0.5)
        switch Int.random(in: 0..<12, using: &random) {
        case 0, 1: return .constant("\(integer)", .number(Double(integer)))
        case 2: return .constant("\(real)", .number(real))
        case 3:
            let written = random.pick(truth ? ["YES", "TRUE", "true"] : ["NO", "FALSE", "false"])
            return .constant(written, [], ["boolean"], .number(truth ? 1 : 0))
        case 4: return .constant("%@", [Int(integer)], ["%@"], .number(Double(integer)))
        case 5: return .constant("%@", [real], ["%@"], .number(real))
        case 6: return .constant("%@", [Float(real)], ["%@", "Float"], .number(real))
        case 7: return .constant("%@", [Decimal(string: "\(real)")!], ["%@", "Decimal"], .number(real))
        case 8: return .constant("%@", [truth], ["%@", "boolean"], .number(truth ? 1 : 0))
        case 9: return .constant(random.pick(["%d", "%ld", "%lld", "%i"]), [Int(integer)], ["%d"], .number(Double(integer)))
        case 10: return .constant(random.pick(["%f", "%lf", "%g"]), [real], ["%f"], .number(real))
        default:
            switch Int.random(in: 0..<3, using: &random) {
            case 0: return .constant("CAST('\(real)', 'NSNumber')", [], ["CAST"], .number(real))
            case 1: return .constant("CAST('\(real)', 'NSDecimalNumber')", [], ["CAST", "Decimal"], .number(real))
            default: return .constant("CAST(\(real), 'Float')", [], ["CAST", "Float"], .number(real))
            }
        }
    }

    /// `text` as a `'...'` or `"..."` literal, or as a `%@` argument.
    private mutating func stringConstant(_ text: String) -> ReferenceTerm {
        switch Int.random(in: 0..<3, using: &random) {
        case 0: return .constant("%@", [text], ["%@"], .string(text))
        case 1: return .constant(Self.literal(text, quote: "'"), .string(text))
        default: return .constant(Self.literal(text, quote: "\""), .string(text))
        }
    }

    /// A date as an argument, a CAST, an ISO 8601 string (P27), or a string that is no date.
    private mutating func dateConstant() -> ReferenceTerm {
        let date = Date(timeIntervalSinceReferenceDate: random.pick([-86_400, 0, 43_200, 86_400, 172_800]))
        switch Int.random(in: 0..<6, using: &random) {
        case 0, 1: return .constant("%@", [date], ["%@", "dates"], .date(date))
        case 2: return .constant("CAST(\(Int(date.timeIntervalSinceReferenceDate)), 'NSDate')", [], ["CAST", "dates"], .date(date))
        case 3, 4:
            let (text, interval) = random.pick(Self.isoDates)
            let date = Date(timeIntervalSinceReferenceDate: interval)
            if random.chance(0.5) { return .constant(Self.literal(text, quote: "'"), [], ["ISO 8601 string", "dates"], .date(date)) }
            return .constant("%@", [text], ["ISO 8601 string", "dates", "%@"], .date(date))
        default:
            return .constant("'soon'", [], ["cross kinds"], .string("soon"))
        }
    }

    /// A parent's or a record's or a child's ID (some not in the data), as an argument or a CAST.
    private mutating func objectConstant() -> ReferenceTerm {
        let id = random.pick([
            ObjectID(entityName: "Parent", number: Int64.random(in: 100_001...100_006, using: &random)),
            ObjectID(entityName: "Record", number: Int64.random(in: 1...200, using: &random)),
            ObjectID(entityName: "Child", number: Int64.random(in: 200_001...200_500, using: &random)),
        ])
        if random.chance(0.2) {
            return .constant("CAST('\(id.uriRepresentation)', 'NSManagedObjectID')", [], ["CAST", "objects"], .object(id))
        }
        return .constant("%@", [id], ["%@", "objects"], .object(id))
    }

    /// `{a, b, ...}`, or `%@` given an array built from the constants' values.
    private mutating func list(_ elements: [ReferenceTerm]) -> ReferenceTerm {
        let values = elements.map { element -> ReferenceValue in
            guard let value = element.constant else { fatalError("lists hold constants only") }
            return value
        }
        if random.chance(0.5) {
            return ReferenceTerm(
                written: "{\(elements.map(\.written).joined(separator: ", "))}", arguments: elements.flatMap(\.arguments),
                features: elements.reduce(["list"]) { $0.union($1.features) }
            ) { _ in .elements(values) }
        }
        let listArgument = PredicateArgument.list(values.map { argument(for: $0) })
        return ReferenceTerm(written: "%@", arguments: [listArgument], features: ["list", "%@"]) { _ in .elements(values) }
    }

    /// A reference value as a format argument, numbers as integers, doubles or decimals.
    private mutating func argument(for value: ReferenceValue) -> PredicateArgument {
        switch value {
        case .null: return .value(.null)
        case .number(let number):
            if number == number.rounded(), random.chance(0.5) { return .value(.integer(Int64(number))) }
            return random.chance(0.7) ? .value(.double(number)) : .value(.decimal(Decimal(string: "\(number)")!))
        case .string(let text): return .value(.string(text))
        case .date(let date): return .value(.date(date))
        case .object(let id): return .object(id)
        }
    }

    /// The options of a string comparison as written, in any order and case.
    private mutating func stringOptions() -> WrittenOptions {
        switch Int.random(in: 0..<12, using: &random) {
        case 0: return WrittenOptions("[c]", ReferenceOptions(caseInsensitive: true), ["[c]"])
        case 1: return WrittenOptions("[C]", ReferenceOptions(caseInsensitive: true), ["[c]"])
        case 2: return WrittenOptions("[d]", ReferenceOptions(diacriticInsensitive: true), ["[d]"])
        case 3: return WrittenOptions("[cd]", ReferenceOptions(caseInsensitive: true, diacriticInsensitive: true), ["[cd]"])
        case 4: return WrittenOptions("[dc]", ReferenceOptions(caseInsensitive: true, diacriticInsensitive: true), ["[cd]"])
        case 5: return WrittenOptions("[n]", ReferenceOptions(), ["[n]"])
        case 6: return WrittenOptions("[cn]", ReferenceOptions(caseInsensitive: true), ["[c]", "[n]"])
        default: return WrittenOptions()
        }
    }

    /// `text` between `quote`s, with backslashes and the quote escaped.
    static func literal(_ text: String, quote: Unicode.Scalar) -> String {
        var literal = String(quote)
        for scalar in text.unicodeScalars {
            if scalar == "\\" || scalar == quote { literal += "\\" }
            literal.unicodeScalars.append(scalar)
        }
        literal.unicodeScalars.append(quote)
        return literal
    }
}

/// Comparison options as written (`[cd]`) and what they mean.
struct WrittenOptions {
    var written = ""
    var options = ReferenceOptions()
    var features: Set<String> = []

    init() {}

    init(_ written: String, _ options: ReferenceOptions, _ features: Set<String>) {
        self.written = written
        self.options = options
        self.features = features
    }
}

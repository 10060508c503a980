import Foundation
import Testing
@testable import MagicalRecord

/// P31: bad format strings give typed errors that name the problem and its character
/// offset; nothing traps, whatever the input.
struct PredicateErrorTests {
    @Test("a table of bad inputs, with their exact messages and offsets")
    func badInputs() {
        let table: [(String, String)] = [
            ("age > 5 AND (name == 'x'", "expected ')' at offset 24"),
            ("age >", "expected an expression at offset 5"),
            ("age", "expected a comparison operator at offset 3"),
            ("age 5", "expected a comparison operator at offset 4"),
            ("age == 'abc", "unterminated string at offset 7"),
            ("age == 5)", "unexpected ')' at offset 8"),
            ("age == 1 2", "unexpected '2' at offset 9"),
            ("TRUEPREDICATE == 1", "unexpected '==' at offset 14"),
            ("", "expected an expression at offset 0"),
            ("   ", "expected an expression at offset 3"),
            ("ANY", "expected an expression at offset 3"),
            ("x IN", "expected an expression at offset 4"),
            ("age === 5", "expected an expression at offset 6"),
            ("age & 5", "unexpected character '&' at offset 4"),
            ("age | 5", "unexpected character '|' at offset 4"),
            ("age ~ 5", "unexpected character '~' at offset 4"),
            ("name ==[x] 'a'", "unknown comparison option 'x'; expected c, d or n at offset 8"),
            ("name ==[cq] 'a'", "unknown comparison option 'q'; expected c, d or n at offset 9"),
            ("name ==[c 'a'", "expected ']' at offset 10"),
            ("name ==[] 'a'", "expected comparison options (c, d or n) at offset 8"),
            ("x == 12abc", "unexpected character 'a' after a number at offset 7"),
            ("x == 1e", "expected digits in the exponent at offset 7"),
            ("x == 0x", "expected digits after '0x' at offset 7"),
            ("x == 0b102", "'0b102' is not a base-2 integer of 64 bits at offset 5"),
            ("x == 0xFFFFFFFFFFFFFFFFF", "'0xFFFFFFFFFFFFFFFFF' is not a base-16 integer of 64 bits at offset 5"),
            ("x == 9223372036854775808", "integer 9223372036854775808 does not fit in 64 bits at offset 5"),
            ("x == -9223372036854775809", "integer -9223372036854775809 does not fit in 64 bits at offset 5"),
            ("x == 99999999999999999999", "integer 99999999999999999999 does not fit in 64 bits at offset 5"),
            ("x == 1e999", "number 1e999 is out of range at offset 5"),
            ("x == -'a'", "expected a number after '-' at offset 6"),
            ("x == $var", "substitution variables ($name) are not supported at offset 5"),
            ("x == %y", "unknown format specifier '%y' at offset 5"),
            ("x == %q", "incomplete format specifier '%q' at offset 5"),
            ("x == %", "incomplete format specifier '%' at offset 5"),
            ("x == %ll", "incomplete format specifier '%ll' at offset 5"),
            ("SUBQUERY(x, $y, TRUEPREDICATE).@count > 0", "SUBQUERY is not supported (write #SUBQUERY for a key of that name) at offset 0"),
            ("x == FUNCTION(y, 'z')", "FUNCTION is not supported (write #FUNCTION for a key of that name) at offset 5"),
            ("AND == 1", "expected an expression, found the keyword AND at offset 0"),
            ("x == IN", "expected an expression, found the keyword IN at offset 5"),
            ("x.@foo > 1", "unknown collection operator '@foo'; expected @count, @sum, @avg, @min or @max at offset 2"),
            ("@count > 1", "@count must follow a key path, as in employees.@count at offset 0"),
            ("x. == 1", "expected a key after '.' at offset 3"),
            ("x.@sum.@count > 1", "only one collection operator is allowed in a key path at offset 7"),
            ("SELF.@count > 1", "expected a key path before '@count' at offset 5"),
            ("x IN {1, 2", "expected ',' or '}' at offset 10"),
            ("x IN {1 2}", "expected ',' or '}' at offset 8"),
            ("x IN {1,}", "expected an expression at offset 8"),
            ("x BETWEEN {1}", "BETWEEN needs two bounds, {lower, upper}; got 1 at offset 10"),
            ("x BETWEEN {1, 2, 3}", "BETWEEN needs two bounds, {lower, upper}; got 3 at offset 10"),
            ("x MATCHES '('", "invalid regular expression \"(\" at offset 10"),
            ("x MATCHES[c] 'a)|(b'", "invalid regular expression \"a)|(b\" at offset 13"),
            ("x == CAST(1, 'NSFoo')",
             "unknown CAST type \"NSFoo\"; expected one of NSDate, NSNumber, NSDecimalNumber, NSString, NSData, NSUUID, NSURL, NSManagedObjectID, Float at offset 13"),
            ("x == CAST('abc', 'NSUUID')", "cannot CAST \"abc\" to NSUUID at offset 10"),
            ("x == CAST('1.5x', 'NSDecimalNumber')", "cannot CAST \"1.5x\" to NSDecimalNumber at offset 10"),
            ("x == CAST('2024-13-01', 'NSDate')", "cannot CAST \"2024-13-01\" to NSDate at offset 10"),
            ("x == CAST(1 'NSDate')", "expected ',' at offset 12"),
            ("x == CAST(1, NSDate)", "expected a type name such as \"NSDate\" at offset 13"),
            ("x == CAST(y, 'NSDate')", "expected a number or a string to CAST at offset 10"),
            ("x == CAST 1", "expected '(' at offset 10"),
            (#"x == 'a\u12'"#, "invalid \\u escape at offset 7"),
            (#"x == 'a\u{110000}'"#, "invalid \\u escape at offset 7"),
            (#"x == 'a\u{12'"#, "invalid \\u{...} escape at offset 7"),
            ("#", "expected a key after '#' at offset 1"),
            ("# x == 1", "expected a key after '#' at offset 1"),
            ("x == @", "expected a collection operator after '@' at offset 6"),
            ("name == '👨‍👩‍👧' AND )", "expected an expression at offset 16"),
            ("naïve == 'é' OR", "expected an expression at offset 15"),
            ("x == 'é", "unterminated string at offset 5"),
            ("x == \u{301}", "unexpected character '\u{301}' at offset 4"),
        ]
        for (format, expected) in table {
            let error = predicateError { _ = try ObjectPredicate(format: format) }
            #expect(error?.description == expected, "\(format)")
        }
    }

    @Test("errors are typed: syntax, invalid operand, invalid pattern")
    func kinds() {
        #expect(predicateError { _ = try ObjectPredicate(format: "age >") } == .syntax("expected an expression", offset: 5))
        #expect(predicateError { _ = try ObjectPredicate(format: "x BETWEEN {1}") }
            == .invalidOperand("BETWEEN needs two bounds, {lower, upper}; got 1", offset: 10))
        #expect(predicateError { _ = try ObjectPredicate(format: "x MATCHES %@", "[") } == .invalidPattern("[", offset: 10))
        #expect(predicateError { _ = try ObjectPredicate(format: "x BETWEEN %@", [1, 2, 3]) }?.offset == 10)
        #expect(ObjectPredicateError.syntax("expected ')'", offset: 17).description == "expected ')' at offset 17")
        #expect(ObjectPredicateError.unknownKey("agee", entity: "Person", offset: 0).description == "unknown key `agee` in entity Person at offset 0")
        #expect(ObjectPredicateError.evaluation("no").offset == nil)
    }

    @Test("nesting deeper than the limit is an error, not a stack overflow")
    func deepNesting() {
        let depth = PredicateParser.maximumDepth
        let parenthesized = String(repeating: "(", count: depth) + "x == 1" + String(repeating: ")", count: depth)
        #expect(predicateError { _ = try ObjectPredicate(format: parenthesized) } == nil)
        let tooDeep = "(" + parenthesized + ")"
        #expect(predicateError { _ = try ObjectPredicate(format: tooDeep) } == .syntax("nested more than \(depth) levels deep", offset: depth))
        let nots = String(repeating: "NOT ", count: depth * 3) + "x == 1"
        #expect(predicateError { _ = try ObjectPredicate(format: nots) }?.message == "nested more than \(depth) levels deep")
        let lists = "x IN " + String(repeating: "{", count: depth * 2)
        #expect(predicateError { _ = try ObjectPredicate(format: lists) }?.message == "nested more than \(depth) levels deep")
        let long = (0..<5_000).map { "x == \($0)" }.joined(separator: " OR ")
        #expect(predicateError { _ = try ObjectPredicate(format: long) } == nil, "long flat chains are fine")
    }

    @Test("garbage in: random token soup parses or throws, never traps")
    func garbage() {
        let fragments = [
            "age", "name", "department.name", "reports", ".", "@count", "@sum", "@", "#", "#size", "SELF", "==", "=", "!=",
            "<>", "<", "<=", "=<", ">", ">=", "=>", "!", "&&", "||", "&", "|", "AND", "OR", "NOT", "ANY", "ALL", "NONE",
            "SOME", "IN", "BETWEEN", "CONTAINS", "LIKE", "MATCHES", "BEGINSWITH", "ENDSWITH", "[c]", "[cd]", "[", "]",
            "(", ")", "{", "}", ",", "1", "-", "-1", "0x1F", "0b", "1.5e3", "1e", "99999999999999999999", "'a'", "\"b",
            "'", "\\", "\\u", "nil", "YES", "TRUEPREDICATE", "FALSEPREDICATE", "CAST", "CAST(1, 'NSDate')", "%@", "%K",
            "%d", "%f", "%", "$x", "é", "\u{301}", "👍", "\n", "SUBQUERY",
        ]
        var random = SeededGenerator(seed: 0xBAD_F00D)
        var parsed = 0
        for _ in 0..<(3_000 * testScale) {
            let count = Int.random(in: 0...12, using: &random)
            let separator = random.chance(0.7) ? " " : ""
            let format = (0..<count).map { _ in random.pick(fragments) }.joined(separator: separator)
            let argumentCount = Int.random(in: 0...3, using: &random)
            let arguments: [(any PredicateArgumentConvertible)?] = (0..<argumentCount).map { _ in
                random.pick([1, "age", nil, [1, 2], 2.5, ObjectID(entityName: "Person", number: 1)] as [(any PredicateArgumentConvertible)?])
            }
            do {
                let predicate = try ObjectPredicate(format: format, argumentArray: arguments)
                parsed += 1
                _ = predicate.predicateFormat
            } catch {
                #expect(error.offset.map { $0 >= 0 && $0 <= format.count } ?? false, "\(format): \(error)")
            }
        }
        #expect(parsed > 0)
    }

    @Test("garbage in: random characters parse or throw, never trap")
    func randomCharacters() {
        let alphabet = Array("ab xyz019.,'\"\\(){}[]<>=!&|%@#$-+*?é\u{301}\u{1F600}\t\nANDORNOTINANY")
        var random = SeededGenerator(seed: 42)
        for _ in 0..<(3_000 * testScale) {
            let format = String((0..<Int.random(in: 0...24, using: &random)).map { _ in random.pick(alphabet) })
            do {
                _ = try ObjectPredicate(format: format, argumentArray: [1, "a"])
            } catch {
                #expect(error.offset.map { $0 >= 0 && $0 <= format.count } ?? false, "\(format.debugDescription): \(error)")
            }
        }
    }
}

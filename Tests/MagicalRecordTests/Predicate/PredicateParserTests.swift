import Foundation
import Testing
@testable import MagicalRecord

/// The grammar of Spec/PREDICATES.md: operators, modifiers, options, precedence, literals,
/// key paths. Arguments are in PredicateArgumentTests, errors in PredicateErrorTests.
struct PredicateParserTests {
    private func parse(_ format: String) throws -> ObjectPredicate {
        try ObjectPredicate(format: format)
    }

    @Test("P4: every comparison operator and its synonyms")
    func operators() throws {
        let table: [(String, PredicateOperator)] = [
            ("age == 1", .equalTo), ("age = 1", .equalTo),
            ("age != 1", .notEqualTo), ("age <> 1", .notEqualTo),
            ("age < 1", .lessThan), ("age <= 1", .lessThanOrEqualTo), ("age =< 1", .lessThanOrEqualTo),
            ("age > 1", .greaterThan), ("age >= 1", .greaterThanOrEqualTo), ("age => 1", .greaterThanOrEqualTo),
        ]
        for (format, expected) in table {
            #expect(try parse(format) == comparison(.key("age"), expected, .int(1)), "\(format)")
        }
        let words: [(String, PredicateOperator)] = [
            ("BEGINSWITH", .beginsWith), ("ENDSWITH", .endsWith), ("CONTAINS", .contains),
            ("LIKE", .like), ("MATCHES", .matches), ("IN", .in),
        ]
        for (word, expected) in words {
            #expect(try parse("name \(word) 'x'") == comparison(.key("name"), expected, .string("x")))
            #expect(try parse("name \(word.lowercased()) 'x'") == comparison(.key("name"), expected, .string("x")))
        }
        #expect(try parse("age BETWEEN {1, 5}") == comparison(.key("age"), .between, .list([.int(1), .int(5)])))
    }

    @Test("P13: options [c] [d] [cd] [n], any order and case")
    func options() throws {
        let table: [(String, PredicateOptions)] = [
            ("[c]", .caseInsensitive), ("[d]", .diacriticInsensitive), ("[cd]", [.caseInsensitive, .diacriticInsensitive]),
            ("[DC]", [.caseInsensitive, .diacriticInsensitive]), ("[n]", .normalized), ("[cdn]", [.caseInsensitive, .diacriticInsensitive, .normalized]),
        ]
        for (written, options) in table {
            #expect(try parse("name ==\(written) 'x'") == comparison(.key("name"), .equalTo, .string("x"), options: options))
            #expect(try parse("name LIKE \(written) 'x'") == comparison(.key("name"), .like, .string("x"), options: options))
        }
    }

    @Test("P5, P23: ANY, SOME, ALL, NONE")
    func modifiers() throws {
        let any = comparison(.key("reports.age"), .greaterThan, .int(3), modifier: .any)
        #expect(try parse("ANY reports.age > 3") == any)
        #expect(try parse("some reports.age > 3") == any)
        #expect(try parse("ALL reports.age > 3") == comparison(.key("reports.age"), .greaterThan, .int(3), modifier: .all))
        #expect(try parse("NONE reports.age > 3") == .not(any))
        #expect(try parse("NONE reports.age > 3") == parse("NOT ANY reports.age > 3"))
    }

    @Test("P3: comparison binds tightest, then NOT, then AND, then OR")
    func precedence() throws {
        let a = comparison(.key("a"), .equalTo, .int(1))
        let b = comparison(.key("b"), .equalTo, .int(2))
        let c = comparison(.key("c"), .equalTo, .int(3))
        #expect(try parse("a == 1 OR b == 2 AND c == 3") == .or([a, .and([b, c])]))
        #expect(try parse("a == 1 AND b == 2 OR c == 3") == .or([.and([a, b]), c]))
        #expect(try parse("NOT a == 1 AND b == 2") == .and([.not(a), b]))
        #expect(try parse("!a == 1 || b == 2 && c == 3") == .or([.not(a), .and([b, c])]))
        #expect(try parse("NOT (a == 1 AND b == 2)") == .not(.and([a, b])))
        #expect(try parse("(a == 1 OR b == 2) AND c == 3") == .and([.or([a, b]), c]))
        #expect(try parse("a == 1 AND b == 2 AND c == 3") == .and([a, b, c]))
        #expect(try parse("a == 1 AND (b == 2 AND c == 3)") == .and([a, .and([b, c])]))
        #expect(try parse("NOT NOT a == 1") == .not(.not(a)))
        #expect(try parse("((a == 1))") == a)
    }

    @Test("TRUEPREDICATE and FALSEPREDICATE")
    func constantPredicates() throws {
        #expect(try parse("TRUEPREDICATE") == .truePredicate)
        #expect(try parse("falsepredicate") == .falsePredicate)
        #expect(try parse("TRUEPREDICATE AND NOT FALSEPREDICATE") == .and([.truePredicate, .not(.falsePredicate)]))
    }

    @Test("P6: integers in four bases, negative, at the limits; reals with exponents")
    func numbers() throws {
        let table: [(String, AttributeValue)] = [
            ("42", .integer(42)), ("-42", .integer(-42)), ("0x1F", .integer(31)), ("0XfF", .integer(255)),
            ("0o17", .integer(15)), ("0b101", .integer(5)), ("-0x10", .integer(-16)),
            ("9223372036854775807", .integer(.max)), ("-9223372036854775808", .integer(.min)),
            ("1.5", .double(1.5)), ("-0.25", .double(-0.25)), ("1e3", .double(1000)), ("2.5E-3", .double(0.0025)),
            ("1e+2", .double(100)), ("- 7", .integer(-7)),
        ]
        for (written, value) in table {
            #expect(try parse("x == \(written)") == comparison(.key("x"), .equalTo, .constant(value)), "\(written)")
        }
    }

    @Test("P7: strings in either quotes, with escapes; unknown escapes kept")
    func strings() throws {
        let table: [(String, String)] = [
            (#""plain""#, "plain"), ("'single'", "single"), (#""it's""#, "it's"), (#"'say "hi"'"#, #"say "hi""#),
            (#""a\"b""#, #"a"b"#), (#"'a\'b'"#, "a'b"), (#""back\\slash""#, #"back\slash"#),
            (#""line\nbreak\ttab\rret""#, "line\nbreak\ttab\rret"), (#""\u00e9\u{1F600}""#, "é😀"),
            (#""\d+\.\*""#, #"\d+\.\*"#), (#""""#, ""), (#""%@ stays""#, "%@ stays"), (#""\u{301}x""#, "\u{301}x"),
        ]
        for (written, value) in table {
            #expect(try parse("name == \(written)") == comparison(.key("name"), .equalTo, .string(value)), "\(written)")
        }
    }

    @Test("P8: nil, NULL, YES, NO, TRUE, FALSE in any case")
    func keywordsConstants() throws {
        let table: [(String, AttributeValue)] = [
            ("nil", .null), ("NULL", .null), ("Nil", .null), ("YES", .bool(true)), ("true", .bool(true)),
            ("NO", .bool(false)), ("False", .bool(false)),
        ]
        for (written, value) in table {
            #expect(try parse("x == \(written)") == comparison(.key("x"), .equalTo, .constant(value)))
        }
    }

    @Test("P9: CAST to dates, numbers, decimals and the other constant types")
    func casts() throws {
        let id = UUID()
        let table: [(String, ObjectExpression)] = [
            (#"CAST(0, "NSDate")"#, .constant(.date(Date(timeIntervalSinceReferenceDate: 0)))),
            (#"CAST(-86400.5, "NSDate")"#, .constant(.date(Date(timeIntervalSinceReferenceDate: -86400.5)))),
            (#"cast("2001-01-02T00:00:00Z", "NSDate")"#, .constant(.date(Date(timeIntervalSinceReferenceDate: 86400)))),
            (#"CAST("12", "NSNumber")"#, .int(12)),
            (#"CAST("inf", "NSNumber")"#, .constant(.double(.infinity))),
            (#"CAST("1.25", "NSDecimalNumber")"#, .constant(.decimal(Decimal(string: "1.25")!))),
            (#"CAST(3, "NSDecimalNumber")"#, .constant(.decimal(3))),
            (#"CAST("1.5", "Float")"#, .constant(.float(1.5))),
            (#"CAST(12, "NSString")"#, .string("12")),
            (#"CAST("AAEC", "NSData")"#, .constant(.data(Data([0, 1, 2])))),
            ("CAST(\"\(id.uuidString)\", \"NSUUID\")", .constant(.uuid(id))),
            (#"CAST("https://example.com/a", "NSURL")"#, .constant(.uri(URL(string: "https://example.com/a")!))),
            (#"CAST("x-magicalrecord:///Person/p7", "NSManagedObjectID")"#, .object(ObjectID(entityName: "Person", number: 7))),
        ]
        for (written, expression) in table {
            #expect(try parse("x == \(written)") == comparison(.key("x"), .equalTo, expression), "\(written)")
        }
    }

    @Test("P10: list literals, empty and nested")
    func lists() throws {
        #expect(try parse("x IN {}") == comparison(.key("x"), .in, .list([])))
        #expect(try parse("x IN {1, 'a', nil, y}") == comparison(.key("x"), .in, .list([.int(1), .string("a"), .constant(.null), .key("y")])))
        #expect(try parse("{1, {2}} CONTAINS x") == comparison(.list([.int(1), .list([.int(2)])]), .contains, .key("x")))
    }

    @Test("P11: key paths, # escapes, SELF, collection operators")
    func keyPaths() throws {
        #expect(try parse("department.name == 'x'") == comparison(.key("department.name"), .equalTo, .string("x")))
        #expect(try parse("#size > 1") == comparison(.key("size"), .greaterThan, .int(1)))
        #expect(try parse("#SELF.#in == 1") == comparison(.key("SELF.in"), .equalTo, .int(1)))
        #expect(try parse("manager.size > 1") == comparison(.key("manager.size"), .greaterThan, .int(1)))
        #expect(try parse("SELF == x") == comparison(.evaluatedObject, .equalTo, .key("x")))
        #expect(try parse("self.age > 1") == comparison(.key("age"), .greaterThan, .int(1)))
        #expect(try parse("_private1 == 1") == comparison(.key("_private1"), .equalTo, .int(1)))
        #expect(try parse("café == 1") == comparison(.key("café"), .equalTo, .int(1)))
        #expect(try parse("cafe\u{301} == 1") == comparison(.key("cafe\u{301}"), .equalTo, .int(1)))
        #expect(try parse("reports.@count > 3") == comparison(.aggregate(.count, "reports", property: nil), .greaterThan, .int(3)))
        #expect(try parse("department.employees.@COUNT > 3")
            == comparison(.aggregate(.count, "department.employees", property: nil), .greaterThan, .int(3)))
        #expect(try parse("reports.@sum.salary > 3") == comparison(.aggregate(.sum, "reports", property: "salary"), .greaterThan, .int(3)))
        #expect(try parse("reports.@avg.salary > 3") == comparison(.aggregate(.average, "reports", property: "salary"), .greaterThan, .int(3)))
        #expect(try parse("reports.@min.born < 3") == comparison(.aggregate(.minimum, "reports", property: "born"), .lessThan, .int(3)))
        #expect(try parse("reports.@max.manager.age < 3")
            == comparison(.aggregate(.maximum, "reports", property: "manager.age"), .lessThan, .int(3)))
    }

    @Test("a constant may stand on the left, a key path on the right")
    func constantOnTheLeft() throws {
        #expect(try parse("40 < age") == comparison(.int(40), .lessThan, .key("age")))
        #expect(try parse("'x' IN name") == comparison(.string("x"), .in, .key("name")))
        #expect(try parse("age == salary") == comparison(.key("age"), .equalTo, .key("salary")))
    }

    @Test("whitespace is free, newlines included")
    func whitespace() throws {
        #expect(try parse("  age\n>=\t1  ") == comparison(.key("age"), .greaterThanOrEqualTo, .int(1)))
        #expect(try parse("age>=1&&name=='x'") == .and([comparison(.key("age"), .greaterThanOrEqualTo, .int(1)), comparison(.key("name"), .equalTo, .string("x"))]))
    }

    @Test("P31: comparisons remember where they were written, outside equality")
    func locations() throws {
        guard case .comparison(let parsed) = try parse("ANY reports.age >[c] 3") else {
            Issue.record("not a comparison")
            return
        }
        #expect(parsed.location == PredicateSourceLocation(start: 0, left: 4, operator: 16, right: 21))
        var moved = parsed
        moved.location = nil
        #expect(moved == parsed)
        #expect(moved.hashValue == parsed.hashValue)
    }
}

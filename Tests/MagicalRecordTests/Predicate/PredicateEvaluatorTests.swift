import Foundation
import Testing
@testable import MagicalRecord

/// The semantics of Spec/PREDICATES.md (P14-P28), example by example, on a small company.
struct PredicateEvaluatorTests {
    static let born = Date(timeIntervalSinceReferenceDate: -600_000_000)
    static let badge = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    static let sales = DictionarySubject("Department", 1, ["name": .attribute(.string("Sales"))])

    static let bob = DictionarySubject("Person", 11, [
        "firstName": .attribute(.string("Bob")), "lastName": .attribute(.string("Ström")),
        "age": .attribute(.integer(30)), "salary": .attribute(.integer(80_000)), "active": .attribute(.bool(false)),
        "department": .toOne(sales), "reports": .toMany([]),
    ])
    static let carol = DictionarySubject("Person", 12, [
        "firstName": .attribute(.string("Carol")), "lastName": .attribute(.string("Sánchez")),
        "age": .attribute(.null), "salary": .attribute(.integer(95_000)), "department": .toOne(nil), "reports": .toMany([]),
    ])
    static let alice = DictionarySubject("Person", 10, [
        "firstName": .attribute(.string("Alice")), "lastName": .attribute(.string("Smith")),
        "age": .attribute(.integer(42)), "salary": .attribute(.integer(120_000)), "rating": .attribute(.double(4.5)),
        "score": .attribute(.float(3.5)), "bonus": .attribute(.decimal(Decimal(string: "100.25")!)),
        "active": .attribute(.bool(true)), "born": .attribute(.date(born)), "badge": .attribute(.uuid(badge)),
        "homepage": .attribute(.uri(URL(string: "https://example.com/alice")!)), "photo": .attribute(.data(Data([1, 2, 3]))),
        "size": .attribute(.integer(9_007_199_254_740_993)), "nickname": .attribute(.null),
        "department": .toOne(sales), "manager": .toOne(nil), "reports": .toMany([bob, carol]),
    ])

    /// Parses `format` and evaluates it on `subject`, expecting `expected`; `why` explains
    /// a case that may surprise.
    private func check(
        _ format: String, _ arguments: (any PredicateArgumentConvertible)?..., on subject: DictionarySubject = alice,
        is expected: Bool, _ why: String = "", sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let predicate = try ObjectPredicate(format: format, argumentArray: arguments)
            #expect(try predicate.evaluate(on: subject) == expected, "\(format) \(why)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(format): \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("P14: nil equals nil only; orderings and string operators with nil are false")
    func nulls() {
        check("nickname == nil", is: true)
        check("nickname != nil", is: false)
        check("age == nil", is: false)
        check("age != nil", is: true)
        check("age == nil", on: Self.carol, is: true)
        check("age > 5", on: Self.carol, is: false)
        check("age < 5", on: Self.carol, is: false)
        check("age <= nil", on: Self.carol, is: false)
        check("age != 5", on: Self.carol, is: true)
        check("NOT age > 5", on: Self.carol, is: true)
        check("age BETWEEN {1, 100}", on: Self.carol, is: false)
        check("nickname BEGINSWITH 'a'", is: false)
        check("nickname CONTAINS ''", is: false)
        check("nickname LIKE '*'", is: false)
        check("nickname MATCHES '.*'", is: false)
        check("NOT nickname BEGINSWITH 'a'", is: true)
        check("firstName BEGINSWITH nil", is: false)
        check("nil == nil", is: true)
        check("manager == nil", is: true)
        check("nickname IN {nil, 1}", is: true)
    }

    @Test("P15: numbers compare exactly across integer, double, float, decimal and boolean")
    func numbers() {
        check("age == 42.0", is: true)
        check("age == 42.5", is: false)
        check("age < 42.5", is: true)
        check("rating > 4", is: true)
        check("rating == 4.5", is: true)
        check("score == 3.5", is: true)
        check("score == CAST('3.5', 'Float')", is: true)
        check("bonus == 100.25", is: true)
        check("bonus == CAST('100.25', 'NSDecimalNumber')", is: true)
        check("bonus > 100", is: true)
        check("active == YES", is: true)
        check("active == 1", is: true)
        check("active == 0", on: Self.bob, is: true)
        check("#size == 9007199254740993", is: true)
        check("#size == 9007199254740992.0", is: false, "an integer beyond 2^53 is not rounded to a double")
        check("#size > 9007199254740992.0", is: true)
        check("age == %@", Decimal(42), is: true)
        check("age == %@", Float(42), is: true)
        check("-1 < age", is: true)
    }

    @Test("P16: strings compare literally; [c] folds case, [d] removes diacritics")
    func stringEquality() {
        check("lastName == 'Smith'", is: true)
        check("lastName == 'smith'", is: false)
        check("lastName ==[c] 'SMITH'", is: true)
        check("lastName == 'Strom'", on: Self.bob, is: false)
        check("lastName ==[d] 'Strom'", on: Self.bob, is: true)
        check("lastName ==[d] 'strom'", on: Self.bob, is: false)
        check("lastName ==[cd] 'STROM'", on: Self.bob, is: true)
        check("lastName ==[cd] 'STRÖM'", on: Self.bob, is: true)
        check("lastName ==[n] 'Ström'", on: Self.bob, is: true)
        check("lastName == 'Stro\u{308}m'", on: Self.bob, is: false, "literal: precomposed and decomposed differ")
        check("lastName ==[d] 'Stro\u{308}m'", on: Self.bob, is: true)
        check("'straße' ==[c] 'STRASSE'", is: true)
        check("lastName != 'Smith'", is: false)
        check("lastName !=[c] 'smith'", is: false)
        check("lastName < 'T'", is: true)
        check("lastName > 'smith'", is: false, "literal order: upper case sorts before lower case")
        check("lastName >[c] 'Sm'", is: true)
        check("lastName <=[c] 'SMITH'", is: true)
        check("lastName BETWEEN {'S', 'T'}", is: true)
    }

    @Test("P17: BEGINSWITH, ENDSWITH, CONTAINS on strings, with options")
    func substrings() {
        check("firstName BEGINSWITH 'Al'", is: true)
        check("firstName BEGINSWITH 'al'", is: false)
        check("firstName BEGINSWITH[c] 'al'", is: true)
        check("firstName BEGINSWITH ''", is: true)
        check("firstName ENDSWITH 'ice'", is: true)
        check("firstName ENDSWITH[c] 'ICE'", is: true)
        check("firstName ENDSWITH 'Alice!'", is: false)
        check("firstName CONTAINS 'lic'", is: true)
        check("firstName CONTAINS 'LIC'", is: false)
        check("firstName CONTAINS[c] 'LIC'", is: true)
        check("lastName CONTAINS[cd] 'ROM'", on: Self.bob, is: true)
        check("lastName ENDSWITH[d] 'chez'", on: Self.carol, is: true)
        check("lastName BEGINSWITH 'Sa'", on: Self.carol, is: false)
        check("lastName BEGINSWITH[d] 'Sa'", on: Self.carol, is: true)
        check("age BEGINSWITH '4'", is: false, "string operators on numbers are false")
    }

    @Test("P18: LIKE with * and ?, escapes, options; the whole string must match")
    func like() {
        check("firstName LIKE 'Al*'", is: true)
        check("firstName LIKE 'A?ice'", is: true)
        check("firstName LIKE '*'", is: true)
        check("firstName LIKE '*l*c*'", is: true)
        check("firstName LIKE 'lic'", is: false)
        check("firstName LIKE 'A??ce'", is: true)
        check("firstName LIKE 'A???ce'", is: false)
        check("firstName LIKE 'al*'", is: false)
        check("firstName LIKE[c] 'al*'", is: true)
        check("lastName LIKE 'Str?m'", on: Self.bob, is: true)
        check("lastName LIKE[d] 'Strom'", on: Self.bob, is: true)
        check(#"'a*b' LIKE 'a\*b'"#, is: true)
        check(#"'axb' LIKE 'a\*b'"#, is: false)
        check(#"'a?' LIKE 'a\?'"#, is: true)
        check("'' LIKE '*'", is: true)
        check("'' LIKE '?'", is: false)
        check("'aaaaaaaaaaaaaaaaaaaaaaaaaaaaab' LIKE '*a*a*a*a*a*a*a*a*c'", is: false)
    }

    @Test("P19: MATCHES is a whole-string regular expression")
    func matches() {
        check("firstName MATCHES 'Al.*'", is: true)
        check("firstName MATCHES 'lic'", is: false)
        check("firstName MATCHES 'A|Alice'", is: true)
        check("firstName MATCHES 'alice'", is: false)
        check("firstName MATCHES[c] 'alice'", is: true)
        check("lastName MATCHES[d] 'Strom'", on: Self.bob, is: true)
        check(#"lastName MATCHES '\w+'"#, is: true)
        check("firstName MATCHES %@", "[A-Z][a-z]+", is: true)
        check("'a\n' MATCHES 'a'", is: false)
        check(#"'a.c' MATCHES '\Qa.c'"#, is: true)
        check(#"'abc' MATCHES '\Qa.c'"#, is: false)
        #expect(predicateError { _ = try ObjectPredicate(format: "firstName MATCHES lastName").evaluate(on: Self.alice) } == nil)
        let badPattern = DictionarySubject("Person", 1, ["a": .attribute(.string("x")), "b": .attribute(.string("("))])
        #expect(predicateError { _ = try ObjectPredicate(format: "a MATCHES b").evaluate(on: badPattern) } == .invalidPattern("(", offset: nil))
    }

    @Test("P20: BETWEEN is inclusive at both ends")
    func between() {
        check("age BETWEEN {42, 50}", is: true)
        check("age BETWEEN {30, 42}", is: true)
        check("age BETWEEN {43, 50}", is: false)
        check("age BETWEEN %@", [40, 41], is: false)
        check("rating BETWEEN {4, 5}", is: true)
        check("born BETWEEN %@", [Self.born, Self.born.addingTimeInterval(1)], is: true)
        check("age BETWEEN {50, 40}", is: false)
    }

    @Test("P21: IN a list, a to-many key path, or a string")
    func isIn() {
        check("age IN {1, 42, 3}", is: true)
        check("age IN %@", [1, 2], is: false)
        check("age IN %@", Set([42.0]), is: true)
        check("age IN {}", is: false)
        check("firstName IN {'alice', 'bob'}", is: false)
        check("firstName IN[c] {'alice', 'bob'}", is: true)
        check("'Bob' IN reports.firstName", is: true)
        check("'Dave' IN reports.firstName", is: false)
        check("'mit' IN lastName", is: true)
        check("'MIT' IN[c] lastName", is: true)
        check("age IN reports.age", is: false)
        check("SELF IN %@", [ObjectID(entityName: "Person", number: 10)], is: true)
        check("SELF IN %@", [ObjectID(entityName: "Person", number: 11)], is: false)
    }

    @Test("P22: CONTAINS on a collection looks for an equal element")
    func collectionContains() {
        check("reports CONTAINS %@", ObjectID(entityName: "Person", number: 11), is: true)
        check("reports CONTAINS %@", ObjectID(entityName: "Person", number: 99), is: false)
        check("reports.firstName CONTAINS 'Carol'", is: true)
        check("reports.firstName CONTAINS 'Car'", is: false, "elements are compared whole")
        check("reports.firstName CONTAINS[c] 'carol'", is: true)
        check("{1, 2, 3} CONTAINS age", is: false)
        check("{1, 42} CONTAINS age", is: true)
        check("reports.age CONTAINS nil", is: true)
    }

    @Test("P23: ANY, ALL, NONE over to-many key paths, empty collections included")
    func quantifiers() {
        check("ANY reports.salary > 90000", is: true)
        check("ALL reports.salary > 90000", is: false)
        check("ALL reports.salary > 50000", is: true)
        check("NONE reports.salary > 100000", is: true)
        check("NONE reports.salary > 90000", is: false)
        check("ANY reports.firstName BEGINSWITH[c] 'c'", is: true)
        check("ANY reports.department.name == 'Sales'", is: true)
        check("ALL reports.department.name == 'Sales'", is: false, "Carol has no department: her element is nil")
        check("ANY reports.salary > 0", on: Self.bob, is: false)
        check("ALL reports.salary > 0", on: Self.bob, is: true)
        check("NONE reports.salary > 0", on: Self.bob, is: true)
        check("ANY reports == %@", ObjectID(entityName: "Person", number: 12), is: true)
        check("ANY reports.age IN {30}", is: true)
        check("ANY department.employees.age > 1", on: Self.carol, is: false, "nil along the way has no elements")
    }

    @Test("P24: @count, @sum, @avg, @min, @max")
    func aggregates() {
        check("reports.@count == 2", is: true)
        check("reports.@count == 0", on: Self.bob, is: true)
        check("reports.@sum.salary == 175000", is: true)
        check("reports.@avg.salary == 87500", is: true)
        check("reports.@min.salary == 80000", is: true)
        check("reports.@max.salary == 95000", is: true)
        check("reports.@max.firstName == 'Carol'", is: true)
        check("reports.@sum.age == 30", is: true, "nil values are skipped")
        check("reports.@avg.age == 30", is: true)
        check("reports.@sum.salary == 0", on: Self.bob, is: true)
        check("reports.@avg.salary == nil", on: Self.bob, is: true)
        check("reports.@min.salary == nil", on: Self.bob, is: true)
        check("reports.salary.@sum == 175000", is: true)
        check("department.employees.@count == 0", on: Self.carol, is: true)
    }

    @Test("sums stay exact: integers past 64 bits become decimals; doubles make doubles")
    func sums() throws {
        let big = DictionarySubject("Person", 1, ["xs": .toMany([
            DictionarySubject("P", 2, ["v": .attribute(.integer(.max))]), DictionarySubject("P", 3, ["v": .attribute(.integer(.max))]),
        ])])
        #expect(try ObjectPredicate(format: "xs.@sum.v == %@", Decimal(Int64.max) * 2).evaluate(on: big))
        let mixed = DictionarySubject("Person", 1, ["xs": .toMany([
            DictionarySubject("P", 2, ["v": .attribute(.integer(1)), "w": .attribute(.integer(1))]),
            DictionarySubject("P", 3, ["v": .attribute(.double(0.5)), "w": .attribute(.null)]),
            DictionarySubject("P", 4, ["v": .attribute(.decimal(1)), "w": .attribute(.string("x"))]),
        ])])
        #expect(try ObjectPredicate(format: "xs.@sum.v == 2.5").evaluate(on: mixed))
        #expect(try ObjectPredicate(format: "xs.@avg.v == %@", 2.5 / 3).evaluate(on: mixed))
        #expect(predicateError { _ = try ObjectPredicate(format: "xs.@sum.w == 1").evaluate(on: mixed) }?.message
            == "xs.@sum.w needs numbers, got a string")
    }

    @Test("P25: key paths through to-one relationships; nil along the way is nil")
    func toOnePaths() {
        check("department.name == 'Sales'", is: true)
        check("department.name ==[c] 'sales'", is: true)
        check("department.name == 'Sales'", on: Self.carol, is: false)
        check("department.name == nil", on: Self.carol, is: true)
        check("department.name != 'Sales'", on: Self.carol, is: true)
        check("ANY reports.department.name BEGINSWITH 'S'", is: true)
    }

    @Test("P26: objects compare by identity: relationships, SELF, object IDs")
    func objects() {
        let salesID = ObjectID(entityName: "Department", number: 1)
        check("department == %@", salesID, is: true)
        check("department != %@", salesID, is: false)
        check("department == %@", ObjectID(entityName: "Department", number: 2), is: false)
        check("department == nil", on: Self.carol, is: true)
        check("department != nil", on: Self.carol, is: false)
        check("SELF == %@", ObjectID(entityName: "Person", number: 10), is: true)
        check("SELF != %@", ObjectID(entityName: "Person", number: 10), is: false)
        check("SELF == CAST('x-magicalrecord:///Person/p10', 'NSManagedObjectID')", is: true)
        check("department == 'Sales'", is: false, "an object is never equal to a value")
        check("department < %@", salesID, is: false, "objects have no order")
    }

    @Test("P27: dates; strings read as dates, UUIDs and URIs")
    func dates() {
        check("born == CAST(-600000000, 'NSDate')", is: true)
        check("born < CAST(0, 'NSDate')", is: true)
        check("born > %@", Date(timeIntervalSinceReferenceDate: -600_000_001), is: true)
        check("born > '1981-01-01'", is: true)
        check("born < '1981-12-31T23:59:59Z'", is: true)
        check("born == '1981-12-27T13:20:00Z'", is: true)
        check("born == '1981-12-27T15:20:00+02:00'", is: true)
        check("born == '1981-12-27T13:20:00.000Z'", is: true)
        check("born == 'yesterday'", is: false)
        check("badge == 'E621E1F8-C36C-495A-93FC-0C247A3E6E5F'", is: true)
        check("badge == %@", Self.badge, is: true)
        check("homepage == 'https://example.com/alice'", is: true)
        check("homepage BEGINSWITH 'https'", is: false, "string operators take strings only")
        check("photo == CAST('AQID', 'NSData')", is: true)
    }

    @Test("P28: values of kinds that do not compare are unequal and unordered")
    func incomparable() {
        check("age == 'x'", is: false)
        check("age != 'x'", is: true)
        check("age < 'x'", is: false)
        check("age >= 'x'", is: false)
        check("firstName > 3", is: false)
        check("active == 'YES'", is: false)
    }

    @Test("misused values are evaluation errors, and subjects' errors pass through")
    func errors() {
        func error(_ format: String) -> ObjectPredicateError? {
            predicateError { _ = try ObjectPredicate(format: format).evaluate(on: Self.alice) }
        }
        #expect(error("reports.salary > 5")?.message == "a to-many value can only be compared with ANY, ALL, NONE, @count, IN or CONTAINS")
        #expect(error("ANY firstName == 'a'")?.message == "ANY needs a to-many key path; firstName gave a single value")
        #expect(error("ALL age == 1")?.message == "ALL needs a to-many key path; age gave a single value")
        #expect(error("age IN 5")?.message == "IN needs a collection or a string on its right")
        #expect(error("age CONTAINS 5")?.message == "CONTAINS needs a collection or a string on its left")
        #expect(error("agee == 5") == .unknownKey("agee", entity: "Person", offset: nil))
        #expect(error("firstName.@count == 5")?.message == "firstName.@count needs a to-many key path, but it gave a single value")
        #expect(error("reports.@sum.department == 5")?.message == "reports.@sum.department needs attribute values, but the key path gave objects")
        #expect(error("TRUEPREDICATE OR agee == 5") == nil, "OR stops at the first true operand")
        #expect(error("FALSEPREDICATE AND agee == 5") == nil, "AND stops at the first false operand")
    }

    @Test("the comparison core, on values directly")
    func comparisonCore() throws {
        #expect(try PredicateEvaluator.compare(.attribute(.integer(3)), .lessThan, .attribute(.double(3.5))))
        #expect(try PredicateEvaluator.compare(.attribute(.string("ABC")), .beginsWith, .attribute(.string("ab")), options: .caseInsensitive))
        #expect(try PredicateEvaluator.compare(.attribute(.integer(2)), .in, .collection([.attribute(.integer(1)), .attribute(.integer(2))])))
        #expect(try PredicateEvaluator.compare(.object(nil), .equalTo, .attribute(.null)))
        #expect(try !PredicateEvaluator.compare(.attribute(.null), .greaterThanOrEqualTo, .attribute(.null)))
        #expect(try PredicateEvaluator.compare(.attribute(.integer(5)), .between, .collection([.attribute(.integer(5)), .attribute(.integer(5))])))
        #expect(predicateError { _ = try PredicateEvaluator.compare(.attribute(.integer(5)), .between, .attribute(.integer(5))) }
            == .evaluation("BETWEEN needs two bounds, {lower, upper}"))
        #expect(PredicateValue.object(nil).isNull && PredicateValue.attribute(.null).isNull && !PredicateValue.collection([]).isNull)
    }
}

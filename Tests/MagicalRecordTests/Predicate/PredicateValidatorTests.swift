import Foundation
import Testing
@testable import MagicalRecord

/// P29, P30: predicates checked against the company model.
struct PredicateValidatorTests {
    private let model = CompanyModel.model
    private let person = CompanyModel.person

    private func validated(
        _ format: String, _ arguments: (any PredicateArgumentConvertible)?..., entity: Entity = CompanyModel.person
    ) throws -> ObjectPredicate {
        try ObjectPredicate(format: format, argumentArray: arguments).validated(for: entity, in: model)
    }

    @Test("valid predicates pass unchanged")
    func valid() throws {
        let sales = ObjectID(entityName: "Department", number: 1)
        let boss = ObjectID(entityName: "Manager", number: 2)
        let someone = ObjectID(entityName: "Person", number: 3)
        let formats: [(String, [(any PredicateArgumentConvertible)?])] = [
            ("age > 40 AND lastName BEGINSWITH[c] 's'", []), ("department.name == 'Sales'", []),
            ("ANY reports.salary > 100000", []), ("ALL reports.age > 1", []), ("NONE reports.department.name == 'x'", []),
            ("reports.@count > 3", []), ("reports.@sum.salary > 3", []), ("reports.@avg.rating > 1.5", []),
            ("reports.@min.born < %@", [Date()]), ("reports.@max.lastName == 'x'", []), ("reports.@sum.active > 1", []),
            ("department == %@", [sales]), ("manager == %@", [boss]), ("manager == %@", [someone]), ("SELF == %@", [someone]),
            ("SELF IN %@", [[someone, boss]]), ("department == nil", []), ("nil == department", []),
            ("active == YES", []), ("active == 1", []), ("age == 1.5", []), ("bonus > 1", []), ("score < rating", []),
            ("#size > 1", []), ("'Bob' IN reports.firstName", []), ("reports CONTAINS %@", [someone]),
            ("reports.firstName CONTAINS 'x'", []), ("firstName IN 'abc'", []), ("firstName CONTAINS 'a'", []),
            ("firstName IN {'a', nil}", []), ("age == salary", []), ("age == nil", []), ("age > nil", []),
            ("TRUEPREDICATE", []), ("NOT (age > 1 OR age < 0)", []), ("photo == %@", [Data()]), ("badge == %@", [UUID()]),
            ("manager.manager.department.employees.@count > 1", []), ("ANY department.employees.reports.age > 1", []),
            ("{1, 2} CONTAINS age", []), ("ANY {1, 2} == age", []), ("firstName MATCHES '[A-Z].*'", []),
            ("lastName LIKE[cd] 's*'", []), ("age BETWEEN %@", [[1, 2]]), ("reports.@count BETWEEN {1, 2}", []),
        ]
        for (format, arguments) in formats {
            let parsed = try ObjectPredicate(format: format, argumentArray: arguments)
            do {
                #expect(try parsed.validated(for: person, in: model) == parsed, "\(format)")
            } catch {
                Issue.record("\(format): \(error)")
            }
        }
        let manager = try #require(model.entity(named: "Manager"))
        _ = try validated("level > 1 AND age > 2 AND SELF == %@", boss, entity: manager)
        _ = try validated("name == 'x' AND ANY employees.age > 1 AND budget > 1.5", entity: CompanyModel.department)
    }

    @Test("P27: strings compared with dates, UUIDs and URIs become dates, UUIDs and URIs")
    func conversions() throws {
        let day = try #require(PredicateCoercion.date(fromISO8601: "2020-01-01"))
        let later = try #require(PredicateCoercion.date(fromISO8601: "2021-01-01T12:00:00Z"))
        #expect(day == Date(timeIntervalSince1970: 1_577_836_800))
        #expect(try validated("born > '2020-01-01'") == ObjectPredicate(format: "born > %@", day))
        #expect(try validated("'2020-01-01' < born") == ObjectPredicate(format: "%@ < born", day))
        #expect(try validated("born BETWEEN {'2020-01-01', '2021-01-01T12:00:00Z'}") == ObjectPredicate(format: "born BETWEEN %@", [day, later]))
        #expect(try validated("born IN {'2020-01-01', nil}") == ObjectPredicate(format: "born IN {%@, nil}", day))
        #expect(try validated("ANY reports.born == '2020-01-01'") == ObjectPredicate(format: "ANY reports.born == %@", day))
        #expect(try validated("reports.born CONTAINS '2020-01-01'") == ObjectPredicate(format: "reports.born CONTAINS %@", day))
        #expect(try validated("reports.@max.born > '2020-01-01'") == ObjectPredicate(format: "reports.@max.born > %@", day))
        let badge = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
        #expect(try validated("badge == %@", badge) == ObjectPredicate(format: "badge == %@", UUID(uuidString: badge)!))
        #expect(try validated("homepage != 'https://example.com'") == ObjectPredicate(format: "homepage != %@", URL(string: "https://example.com")!))
    }

    @Test("errors name the key, the entity or the types, at the operand's offset")
    func errors() {
        let table: [(String, [(any PredicateArgumentConvertible)?], String)] = [
            ("agee > 40", [], "unknown key `agee` in entity Person at offset 0"),
            ("department.nmae == 'x'", [], "unknown key `nmae` in entity Department at offset 0"),
            ("age > 5 AND firstName.length == 1", [],
             "`firstName` is an attribute of Person: key path `firstName.length` cannot continue past it at offset 12"),
            ("age > 'x'", [], "type mismatch `age` (Integer 16) compared with a string at offset 6"),
            ("'x' < age", [], "type mismatch `age` (Integer 16) compared with a string at offset 0"),
            ("age == firstName", [], "type mismatch `age` (Integer 16) compared with `firstName` (String) at offset 7"),
            ("reports.salary > 5", [],
             "to-many key path `reports.salary` (Integer 32, to-many) needs ANY, ALL, NONE or a collection operator such as @count at offset 0"),
            ("5 < reports.salary", [],
             "to-many key path `reports.salary` (Integer 32, to-many) needs ANY, ALL, NONE or a collection operator such as @count at offset 4"),
            ("ANY age > 5", [], "ANY, ALL and NONE need a to-many key path; `age` (Integer 16) is not one at offset 0"),
            ("NONE department.name == 'x'", [], "ANY, ALL and NONE need a to-many key path; `department.name` (String) is not one at offset 0"),
            ("age.@count > 1", [], "@count needs a to-many key path; `age` (Integer 16) is not one at offset 0"),
            ("department.@count > 1", [], "@count needs a to-many key path; `department` (Department) is not one at offset 0"),
            ("reports.@sum.firstName > 1", [], "@sum cannot aggregate `reports.firstName` (String, to-many) at offset 0"),
            ("reports.@max.department > 1", [], "@max cannot aggregate `reports.department` (Department, to-many) at offset 0"),
            ("reports.@count == 'x'", [], "type mismatch `reports.@count` (Integer 64) compared with a string at offset 18"),
            ("age BEGINSWITH '4'", [], "BEGINSWITH compares strings, not `age` (Integer 16) at offset 0"),
            ("firstName LIKE 4", [], "LIKE compares strings, not an integer at offset 15"),
            ("department == %@", [ObjectID(entityName: "Person", number: 1)],
             "type mismatch `department` (Department) compared with an object ID of Person at offset 14"),
            ("department == 'Sales'", [], "type mismatch `department` (Department) compared with a string at offset 14"),
            ("department < %@", [ObjectID(entityName: "Department", number: 1)],
             "objects cannot be ordered: `department` (Department) compared with an object ID of Department at offset 0"),
            ("born > 'yesterday'", [], "type mismatch `born` (Date) compared with \"yesterday\", which is not a date at offset 7"),
            ("badge == 'not-a-uuid'", [], "type mismatch `badge` (UUID) compared with \"not-a-uuid\", which is not a UUID at offset 9"),
            ("born == firstName", [], "type mismatch `born` (Date) compared with `firstName` (String) at offset 8"),
            ("age BETWEEN {1, 'x'}", [], "type mismatch `age` (Integer 16) compared with a string at offset 12"),
            ("age BETWEEN age", [], "BETWEEN needs two bounds, {lower, upper}, not `age` (Integer 16) at offset 12"),
            ("age IN 5", [], "IN needs a list, a to-many key path or a string on its right, not an integer at offset 7"),
            ("age IN {1, 'x'}", [], "type mismatch `age` (Integer 16) compared with a string at offset 7"),
            ("age IN reports.firstName", [], "type mismatch `age` (Integer 16) compared with `reports.firstName` (String, to-many) at offset 7"),
            ("age CONTAINS 1", [], "CONTAINS needs a string, a list or a to-many key path on its left, not `age` (Integer 16) at offset 0"),
            ("age == {1, 2}", [], "a list can only be the right side of IN or BETWEEN, or the left side of CONTAINS at offset 7"),
            ("reports CONTAINS 'x'", [], "type mismatch `reports` (Person, to-many) compared with a string at offset 17"),
            ("SELF == %@", [ObjectID(entityName: "Department", number: 1)],
             "type mismatch SELF (Person) compared with an object ID of Department at offset 8"),
            ("manager == %@", [ObjectID(entityName: "Ghost", number: 1)],
             "object ID x-magicalrecord:///Ghost/p1 names an entity the model does not have at offset 11"),
            ("age > 1 AND (salary > 2 OR NOT lastName > 3)", [], "type mismatch `lastName` (String) compared with an integer at offset 42"),
        ]
        for (format, arguments, expected) in table {
            let error = predicateError { _ = try ObjectPredicate(format: format, argumentArray: arguments).validated(for: person, in: model) }
            #expect(error?.description == expected, "\(format)")
        }
    }

    @Test("error kinds; predicates built in Swift have no offsets")
    func builtInSwift() {
        func error(_ predicate: ObjectPredicate) -> ObjectPredicateError? {
            predicateError { _ = try predicate.validated(for: person, in: model) }
        }
        #expect(error(Key("agee") > 1) == .unknownKey("agee", entity: "Person", offset: nil))
        #expect(error(Key("age") > "x") == .typeMismatch("type mismatch `age` (Integer 16) compared with a string", offset: nil))
        #expect(error(Key("age").any > 1) == .invalidOperand("ANY, ALL and NONE need a to-many key path; `age` (Integer 16) is not one", offset: nil))
        #expect(error(Key("firstName").matches("(")) == .invalidPattern("(", offset: nil))
        #expect(error(Key("") == 1) == .invalidOperand("empty key in key path ``", offset: nil))
        #expect(error(Key("department..name") == 1) == .invalidOperand("empty key in key path `department..name`", offset: nil))
        #expect(error(.comparison(PredicateComparison(.keyPath(PredicateKeyPath([])), .equalTo, .int(1)))) == .invalidOperand("empty key path", offset: nil))
    }
}

import Foundation
import Testing
@testable import MagicalRecord

/// P33: the typed builder makes the predicates the format strings make.
struct PredicateBuilderTests {
    private func same(_ built: ObjectPredicate, _ format: String, _ arguments: (any PredicateArgumentConvertible)?...,
                      sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            #expect(built == (try ObjectPredicate(format: format, argumentArray: arguments)), "\(format)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(format): \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("comparison operators against values, keys, and with the value on the left")
    func comparisons() {
        same(Key("age") == 40, "age == 40")
        same(Key("age") != 40, "age != 40")
        same(Key("age") < 40, "age < 40")
        same(Key("age") <= 40, "age <= 40")
        same(Key("age") > 40, "age > 40")
        same(Key("age") >= 40, "age >= 40")
        same(Key("rating") > 4.5, "rating > 4.5")
        same(Key("department.name") == "Sales", "department.name == 'Sales'")
        same(Key("manager") == nil, "manager == nil")
        same(Key("manager") != nil, "manager != nil")
        let missing: String? = nil
        same(Key("nickname") == missing, "nickname == nil")
        same(Key("age") == Key("salary"), "age == salary")
        same(Key("age") < Key("reports").count, "age < reports.@count")
        same(40 < Key("age"), "40 < age")
        same("x" == Key("name"), "'x' == name")
        same(nil != Key("name"), "nil != name")
        same(2.5 >= Key("rating"), "2.5 >= rating")
        same(Key("born") > Date(timeIntervalSinceReferenceDate: 0), "born > CAST(0, 'NSDate')")
        same(EvaluatedObject() == ObjectID(entityName: "Person", number: 1), "SELF == %@", ObjectID(entityName: "Person", number: 1))
        same(Key("department") == ObjectID(entityName: "Department", number: 2), "department == %@", ObjectID(entityName: "Department", number: 2))
    }

    @Test("string operators with options")
    func strings() {
        same(Key("lastName").beginsWith("S", options: .caseInsensitive), "lastName BEGINSWITH[c] 'S'")
        same(Key("lastName").endsWith("th"), "lastName ENDSWITH 'th'")
        same(Key("lastName").contains("mi", options: [.caseInsensitive, .diacriticInsensitive]), "lastName CONTAINS[cd] 'mi'")
        same(Key("lastName").like("S*h", options: .diacriticInsensitive), "lastName LIKE[d] 'S*h'")
        same(Key("lastName").matches("[A-Z].*"), "lastName MATCHES '[A-Z].*'")
    }

    @Test("IN, BETWEEN, CONTAINS on collections")
    func collections() {
        same(Key("id").in([1, 2, 3]), "id IN {1, 2, 3}")
        same(Key("id").in(Set([3, 1])), "id IN {1, 3}")
        same(Key("name").in(["a", "b"], options: .caseInsensitive), "name IN[c] {'a', 'b'}")
        same(Key("name").in(Key("reports.firstName")), "name IN reports.firstName")
        same(Key("age").between(18, 65), "age BETWEEN {18, 65}")
        same(Key("born").between(Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: 1)),
             "born BETWEEN {CAST(0, 'NSDate'), CAST(1, 'NSDate')}")
        same(Key("reports").contains(ObjectID(entityName: "Person", number: 4)), "reports CONTAINS %@", ObjectID(entityName: "Person", number: 4))
        same(EvaluatedObject().in([ObjectID(entityName: "Person", number: 4)]), "SELF IN %@", [ObjectID(entityName: "Person", number: 4)])
    }

    @Test("ANY, ALL, NONE and the collection operators")
    func quantifiersAndAggregates() {
        same(Key("employees.salary").any > 100_000, "ANY employees.salary > 100000")
        same(Key("employees.salary").all > 100_000, "ALL employees.salary > 100000")
        same(Key("employees.salary").none > 100_000, "NONE employees.salary > 100000")
        same(Key("employees.name").any.beginsWith("A"), "ANY employees.name BEGINSWITH 'A'")
        same(Key("employees.name").none.in(["a"]), "NONE employees.name IN {'a'}")
        same(Key("employees.age").all.between(1, 2), "ALL employees.age BETWEEN {1, 2}")
        same(Key("employees.age").any == Key("age"), "ANY employees.age == age")
        same(Key("employees").count > 3, "employees.@count > 3")
        same(Key("employees").sum(of: "salary") > 3, "employees.@sum.salary > 3")
        same(Key("employees").average(of: "salary") > 3, "employees.@avg.salary > 3")
        same(Key("employees").minimum(of: "born") < Key("born"), "employees.@min.born < born")
        same(Key("employees").maximum(of: "manager.age") == 3, "employees.@max.manager.age == 3")
    }

    @Test("&&, || and ! combine, flattening chains as the parser does")
    func logic() {
        let a = Key("a") == 1, b = Key("b") == 2, c = Key("c") == 3
        same(a && b && c, "a == 1 AND b == 2 AND c == 3")
        same(a || b || c, "a == 1 OR b == 2 OR c == 3")
        same(a || b && c, "a == 1 OR b == 2 AND c == 3")
        same((a || b) && c, "(a == 1 OR b == 2) AND c == 3")
        same(!a && b, "NOT a == 1 AND b == 2")
        same(!(a && b), "NOT (a == 1 AND b == 2)")
        same(Key("age") > 40 && Key("lastName").beginsWith("S", options: .caseInsensitive), "age > 40 AND lastName BEGINSWITH[c] 'S'")
        #expect(a.conjuncts == [a] && (a && b).conjuncts == [a, b] && (a || b).disjuncts == [a, b])
    }

    @Test("built predicates evaluate like parsed ones")
    func evaluation() throws {
        let subject = DictionarySubject("Person", 1, ["age": .attribute(.integer(41)), "lastName": .attribute(.string("smith"))])
        #expect(try (Key("age") > 40 && Key("lastName").beginsWith("S", options: .caseInsensitive)).evaluate(on: subject))
        #expect(try !(Key("age").between(18, 40)).evaluate(on: subject))
    }
}

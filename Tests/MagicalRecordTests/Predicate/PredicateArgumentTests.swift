import Foundation
import Testing
@testable import MagicalRecord

/// P12: format arguments, every specifier and every Swift type that converts.
struct PredicateArgumentTests {
    private func right(_ format: String, _ arguments: (any PredicateArgumentConvertible)?...) throws -> ObjectExpression? {
        guard case .comparison(let comparison) = try ObjectPredicate(format: format, argumentArray: arguments) else { return nil }
        return comparison.right
    }

    @Test("every Swift type converts to its value")
    func swiftTypes() throws {
        let date = Date(timeIntervalSinceReferenceDate: 12.5)
        let id = UUID()
        let url = URL(string: "https://example.com")!
        let object = ObjectID(entityName: "Person", number: 3)
        let table: [(any PredicateArgumentConvertible, ObjectExpression)] = [
            (Int(-1), .int(-1)), (Int8(-2), .int(-2)), (Int16(3), .int(3)), (Int32(4), .int(4)), (Int64.max, .int(.max)),
            (UInt(5), .int(5)), (UInt8(6), .int(6)), (UInt16(7), .int(7)), (UInt32(8), .int(8)), (UInt64(9), .int(9)),
            (UInt64.max, .constant(.decimal(Decimal(UInt64.max)))),
            (2.5, .constant(.double(2.5))), (Float(1.5), .constant(.float(1.5))), (Decimal(string: "0.1")!, .constant(.decimal(Decimal(string: "0.1")!))),
            (true, .constant(.bool(true))), ("text", .string("text")), ("sub"[...], .string("sub")),
            (date, .constant(.date(date))), (Data([1, 2]), .constant(.data(Data([1, 2])))), (id, .constant(.uuid(id))),
            (url, .constant(.uri(url))), (AttributeValue.integer(4), .int(4)), (object, .object(object)),
            (PredicateArgument.value(.null), .constant(.null)), (Optional<Int>.none, .constant(.null)), (Optional(5), .int(5)),
            ([1, 2], .list([.int(1), .int(2)])), ([object], .list([.object(object)])), ([[1], [2]], .list([.list([.int(1)]), .list([.int(2)])])),
        ]
        for (argument, expected) in table {
            #expect(try right("x == %@", argument) == expected, "\(argument)")
        }
    }

    @Test("nil is an argument of its own")
    func nilArgument() throws {
        #expect(try right("x == %@", nil) == .constant(.null))
        #expect(try ObjectPredicate(format: "a == %@ AND b == %@", nil, 1) == ObjectPredicate(format: "a == nil AND b == 1"))
    }

    @Test("a set becomes a list in a fixed order")
    func sets() throws {
        let expected = ObjectExpression.list([.int(1), .int(2), .int(3)])
        for _ in 0..<20 {
            #expect(try right("x IN %@", Set([3, 1, 2])) == expected)
        }
        #expect(try right("x IN %@", Set(["b", "a"])) == .list([.string("a"), .string("b")]))
    }

    @Test("integer and floating-point specifiers with their lengths")
    func specifiers() throws {
        for specifier in ["%d", "%i", "%u", "%ld", "%li", "%lu", "%lld", "%lli", "%llu", "%hd", "%hu", "%qd", "%zd", "%x", "%o"] {
            #expect(try right("x == \(specifier)", 42) == .int(42), "\(specifier)")
        }
        for specifier in ["%f", "%lf", "%g", "%e", "%F", "%Lf"] {
            #expect(try right("x == \(specifier)", 2.5) == .constant(.double(2.5)), "\(specifier)")
            #expect(try right("x == \(specifier)", 2) == .int(2), "\(specifier) keeps an integer exact")
        }
        #expect(try right("x == %@", 42) == .int(42))
    }

    @Test("%K substitutes keys, dotted paths included, anywhere in a key path")
    func keySubstitution() throws {
        #expect(try ObjectPredicate(format: "%K == %@", "age", 3) == comparison(.key("age"), .equalTo, .int(3)))
        #expect(try ObjectPredicate(format: "%K == 1", "department.name") == comparison(.key("department.name"), .equalTo, .int(1)))
        #expect(try ObjectPredicate(format: "manager.%K.%K == 1", "department", "name")
            == comparison(.key("manager.department.name"), .equalTo, .int(1)))
        #expect(try ObjectPredicate(format: "%K.@count > 1", "reports") == comparison(.aggregate(.count, "reports", property: nil), .greaterThan, .int(1)))
        #expect(try ObjectPredicate(format: "%K == 1", "size") == comparison(.key("size"), .equalTo, .int(1)))
        #expect(try ObjectPredicate(format: "%K == 1", "first name") == comparison(.key("first name"), .equalTo, .int(1)))
        #expect(try ObjectPredicate(format: "%@ == 1", "age") == comparison(.string("age"), .equalTo, .int(1)), "%@ quotes strings")
    }

    @Test("arguments work in CAST, lists and BETWEEN")
    func argumentPlaces() throws {
        #expect(try right("x == CAST(%f, 'NSDate')", 10.0) == .constant(.date(Date(timeIntervalSinceReferenceDate: 10))))
        #expect(try right("x IN {%d, %@}", 1, "a") == .list([.int(1), .string("a")]))
        #expect(try right("x BETWEEN %@", [1, 9]) == .list([.int(1), .int(9)]))
        #expect(try right("x BETWEEN {%@, %@}", 1, 9) == .list([.int(1), .int(9)]))
    }

    @Test("argumentArray and the variadic form agree")
    func argumentArray() throws {
        let arguments: [(any PredicateArgumentConvertible)?] = ["age", 30, nil]
        #expect(try ObjectPredicate(format: "%K > %d OR name == %@", argumentArray: arguments)
            == ObjectPredicate(format: "%K > %d OR name == %@", "age", 30, nil))
    }

    @Test("wrong argument count or type: a typed error at the specifier")
    func argumentErrors() {
        let table: [(String, [(any PredicateArgumentConvertible)?], String)] = [
            ("x == %@", [], "missing argument for %@ (0 given) at offset 5"),
            ("x == %@ AND y == %d", [1], "missing argument for %d (1 given) at offset 17"),
            ("x == %@", [1, 2], "the format uses 1 argument but 2 were given at offset 7"),
            ("x == 1", [1], "the format uses 0 arguments but 1 was given at offset 6"),
            ("x == %d", ["a"], "%d (argument 1) expects an integer, got a string at offset 5"),
            ("x == %d", [1.5], "%d (argument 1) expects an integer, got a number at offset 5"),
            ("x == %d", [nil], "%d (argument 1) expects an integer, got nil at offset 5"),
            ("x == %f", [true], "%f (argument 1) expects a number, got a boolean at offset 5"),
            ("%K == 1", [1], "%K (argument 1) expects a key path string, got an integer at offset 0"),
            ("%K == 1", ["a..b"], "%K argument \"a..b\" has an empty key at offset 0"),
            ("%K == 1", [""], "%K argument \"\" has an empty key at offset 0"),
            ("x == CAST(%@, 'NSDate')", [[1]], "CAST takes a single value, not an object ID or a list at offset 10"),
        ]
        for (format, arguments, expected) in table {
            let error = predicateError { _ = try ObjectPredicate(format: format, argumentArray: arguments) }
            #expect(error?.description == expected, "\(format)")
            if case .argument = error {} else { Issue.record("\(format): \(String(describing: error)) is not an argument error") }
        }
    }

    @Test("a type of the user's conforms by saying what it stands for")
    func userConformance() throws {
        struct Employee: PredicateArgumentConvertible {
            var id: ObjectID
            var predicateArgument: PredicateArgument { .object(id) }
        }
        let employee = Employee(id: ObjectID(entityName: "Person", number: 8))
        #expect(try right("manager == %@", employee) == .object(employee.id))
        #expect(try right("SELF IN %@", [employee, employee]) == .list([.object(employee.id), .object(employee.id)]))
    }
}

import Foundation
import Testing
@testable import MagicalRecord

/// JSONValue(foundation:): Foundation trees, as JSONSerialization makes them on Linux.
struct JSONReaderFoundationTests {
    private static func number(_ text: String) -> JSONValue { .number(JSONNumber(text: text)) }

    /// JSONSerialization returns NSNumber for numbers and booleans alike, and `1 as? Bool`
    /// succeeds: 1 must stay a number and true a boolean.
    @Test func booleansAndNumbersFromJSONSerializationStayApart() throws {
        let text = "[1, true, 0, false, 1.5, 1.0, 10158365420975381, 9223372036854775807, -9223372036854775808, "
            + "18446744073709551615, 18446744073709551616, 12345678901234567890123]"
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        let expected: JSONValue = [
            1, true, 0, false, 1.5, 1.0, 10158365420975381, 9223372036854775807, .number(JSONNumber(text: "-9223372036854775808")),
            Self.number("18446744073709551615"), Self.number("18446744073709551616"), Self.number("12345678901234567890123"),
        ]
        #expect(try JSONValue(foundation: object) == expected)
    }

    @Test func swiftValues() throws {
        let optional: Int? = nil
        let object: [String: Any] = [
            "bool": true, "int": 1, "double": 1.5, "min": Int64.min, "max": UInt64.max, "float": Float(0.1),
            "decimal": Decimal(string: "1.25")!, "null": NSNull(), "nil": optional as Any, "some": Int?.some(3) as Any,
            "array": [1, 2], "nested": ["a": ["b": "c"]], "string": "s", "byte": UInt8(255), "value": JSONValue.array([nil]),
        ]
        let expected: JSONValue = [
            "array": [1, 2], "bool": true, "byte": 255, "decimal": 1.25, "double": 1.5, "float": 0.1,
            "int": 1, "max": Self.number("18446744073709551615"), "min": .number(JSONNumber(text: "-9223372036854775808")),
            "nested": ["a": ["b": "c"]], "nil": nil, "null": nil, "some": 3, "string": "s", "value": [nil],
        ]
        #expect(try JSONValue(foundation: object) == expected)
    }

    @Test func nsNumbersOfEveryKind() throws {
        let numbers: [(NSNumber, JSONValue)] = [
            (NSNumber(value: true), true), (NSNumber(value: false), false),
            (NSNumber(value: Int8(1)), 1), (NSNumber(value: UInt8(1)), 1), (NSNumber(value: Int32(-7)), -7),
            (NSNumber(value: UInt64.max), Self.number("18446744073709551615")), (NSNumber(value: 0.25), 0.25),
            (NSDecimalNumber(string: "12345678901234567890.5"), Self.number("12345678901234567890.5")),
        ]
        for (number, expected) in numbers {
            #expect(try JSONValue(foundation: number) == expected, "\(number)")
        }
    }

    @Test func valuesWithoutJSONEquivalentNameTheirPath() {
        let born = Date(timeIntervalSince1970: 0)
        let cases: [(Any, JSONError.Reason)] = [
            (born, .unsupportedValue("a value of type Date", path: "$")),
            (["people": [["name": "Ada"], ["born": born]]], .unsupportedValue("a value of type Date", path: "$.people[1].born")),
            (["first name": Data()], .unsupportedValue("a value of type Data", path: #"$["first name"]"#)),
            ([1: "one"], .unsupportedValue("a value of type Dictionary<Int, String>", path: "$")),
            ([Double.nan], .unsupportedValue("the Double nan", path: "$[0]")),
            (["x": -Double.infinity], .unsupportedValue("the Double -inf", path: "$.x")),
        ]
        for (object, reason) in cases {
            #expect(throws: JSONError(reason, offset: nil)) { try JSONValue(foundation: object) }
        }
        #expect((try? JSONValue(foundation: born)) == nil)
    }

    @Test func treesDeeperThanTheReaderAcceptsAreErrors() {
        var deep: Any = 1
        for _ in 0..<JSONReader.defaultMaximumDepth { deep = [deep] }
        #expect(throws: Never.self) { try JSONValue(foundation: deep) }
        #expect(throws: JSONError(.nestingTooDeep(limit: JSONReader.defaultMaximumDepth), offset: nil)) { try JSONValue(foundation: [deep]) }
    }

    /// Random documents: JSONSerialization then the bridge gives what the reader gives,
    /// up to number spelling and member order.
    @Test func randomDocumentsAgreeWithJSONSerialization() throws {
        var random = RandomJSON(seed: 0x4653_4552)
        var compared = 0
        for _ in 0..<(150 * testScale) {
            let value = random.value(depth: 4)
            let data = Data(JSONTestWriter.compact(value).utf8)
            guard let object = try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed) else { continue }
            let bridged = try JSONValue(foundation: object)
            #expect(bridged.numbersNormalized() == value.numbersNormalized().membersSorted(), "\(String(decoding: data, as: UTF8.self))")
            compared += 1
        }
        #expect(compared > 100 * testScale)
    }
}

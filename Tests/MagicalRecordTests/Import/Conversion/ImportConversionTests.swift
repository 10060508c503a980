import Foundation
import Testing
@testable import MagicalRecord

/// One JSON value to one attribute value, type by type (ImportConversion's rules), and the
/// SingleEntityWithNoRelationships fixture through the fixture model's own attributes.
struct ImportConversionTests {
    // MARK: Integers

    @Test(arguments: [
        (jsonNumber("42"), AttributeType.integer16, Int64(42)),
        ("42", .integer16, 42),
        ("-42", .integer32, -42),
        ("+42", .integer32, 42),
        ("0042", .integer32, 42),
        (jsonNumber("12.0"), .integer32, 12),
        ("12.0", .integer32, 12),
        (jsonNumber("1e3"), .integer32, 1000),
        ("2.50e1", .integer32, 25),
        (jsonNumber("-0"), .integer16, 0),
        (jsonNumber("32767"), .integer16, 32767),
        (jsonNumber("-32768"), .integer16, -32768),
        (jsonNumber("2147483647"), .integer32, 2_147_483_647),
        (jsonNumber("10158365420975381"), .integer64, 10_158_365_420_975_381),
        ("9007199254740993", .integer64, 9_007_199_254_740_993),
        (jsonNumber("9223372036854775807"), .integer64, .max),
        (jsonNumber("-9223372036854775808"), .integer64, .min),
    ])
    func integersConvertExactly(json: JSONValue, type: AttributeType, expected: Int64) throws {
        #expect(try importConverted(json, type) == .integer(expected))
    }

    @Test(arguments: [
        ("12abc", AttributeType.integer32, "\"12abc\" is not an integer"),
        ("abc", .integer32, "\"abc\" is not an integer"),
        ("", .integer32, "\"\" is not an integer"),
        (" 42", .integer32, "\" 42\" is not an integer"),
        ("42 ", .integer32, "\"42 \" is not an integer"),
        ("0x1F", .integer32, "\"0x1F\" is not an integer"),
        ("1,000", .integer32, "\"1,000\" is not an integer"),
        ("1.", .integer32, "\"1.\" is not an integer"),
        (".5", .integer32, "\".5\" is not an integer"),
        ("1.5", .integer32, "\"1.5\" is not an integer"),
        (jsonNumber("1.5"), .integer32, "1.5 is not an integer"),
        (jsonNumber("1e-400"), .integer32, "1e-400 is not an integer"),
        (jsonNumber("70000"), .integer16, "70000 is out of range for Integer 16"),
        ("70000", .integer16, "\"70000\" is out of range for Integer 16"),
        (jsonNumber("-32769"), .integer16, "-32769 is out of range for Integer 16"),
        (jsonNumber("2147483648"), .integer32, "2147483648 is out of range for Integer 32"),
        (jsonNumber("9223372036854775808"), .integer64, "9223372036854775808 is out of range for Integer 64"),
        (jsonNumber("1e400"), .integer64, "1e400 is out of range for Integer 64"),
        (true, .integer16, "true cannot be converted to Integer 16"),
        ([1, 2], .integer16, "an array cannot be converted to Integer 16"),
        (["a": 1], .integer64, "an object cannot be converted to Integer 64"),
    ] as [(JSONValue, AttributeType, String)])
    func integersRefuseWhatIsNotExactlyAnIntegerInRange(json: JSONValue, type: AttributeType, reason: String) {
        #expect(importFailure(json, type) == reason)
    }

    // MARK: Floating point and decimals

    @Test func doublesAndFloatsRoundToTheNearest() throws {
        #expect(try importConverted(jsonNumber("124.3"), .double) == .double(124.3))
        #expect(try importConverted("124.3", .double) == .double(124.3))
        #expect(try importConverted("-1.5E-3", .double) == .double(-0.0015))
        #expect(try importConverted(jsonNumber("9007199254740993"), .double) == .double(9_007_199_254_740_992))
        #expect(try importConverted(jsonNumber("1e-400"), .double) == .double(0))
        #expect(try importConverted(jsonNumber("10000000000"), .float) == .float(1e10))
        #expect(try importConverted("10000000000", .float) == .float(1e10))
        #expect(try importConverted(jsonNumber("0.1"), .float) == .float(Float(0.1)))
        #expect(importFailure(jsonNumber("1e309"), .double) == "1e309 is out of range for Double")
        #expect(importFailure(jsonNumber("1e39"), .float) == "1e39 is out of range for Float")
        #expect(importFailure("NaN", .double) == "\"NaN\" is not a number")
        #expect(importFailure("Infinity", .float) == "\"Infinity\" is not a number")
        #expect(importFailure("12abc", .double) == "\"12abc\" is not a number")
        #expect(importFailure(false, .double) == "false cannot be converted to Double")
    }

    @Test func decimalsAreExactFromTheText() throws {
        #expect(try importConverted(jsonNumber("1.2"), .decimal) == .decimal(Decimal(string: "1.2")!))
        #expect(try importConverted("1.2", .decimal) == .decimal(Decimal(string: "1.2")!))
        let long = "12345678901234567890.123456789012345678"
        #expect(try importConverted(jsonNumber(long), .decimal) == .decimal(Decimal(string: long)!))
        #expect(try importConverted("-0.000001", .decimal) == .decimal(Decimal(string: "-0.000001")!))
        let tooLong = "1234567890123456789012345678901234567891"
        #expect(importFailure(jsonNumber(tooLong), .decimal)?.hasPrefix("\(tooLong) cannot be held exactly by Decimal") == true)
        #expect(importFailure("1.2.3", .decimal) == "\"1.2.3\" is not a number")
        #expect(importFailure([1], .decimal) == "an array cannot be converted to Decimal")
    }

    // MARK: Strings and booleans

    @Test func stringsTakeNumbersAsWrittenAndBooleansAsJSONSpellsThem() throws {
        #expect(try importConverted("This is a test value", .string) == .string("This is a test value"))
        #expect(try importConverted(jsonNumber("10248909829"), .string) == .string("10248909829"))
        #expect(try importConverted(jsonNumber("1.0"), .string) == .string("1.0"))
        #expect(try importConverted(jsonNumber("1e3"), .string) == .string("1e3"))
        #expect(try importConverted(true, .string) == .string("true"))
        #expect(try importConverted(false, .string) == .string("false"))
        #expect(importFailure(["x"], .string) == "an array cannot be converted to String")
        #expect(importFailure([:], .string) == "an object cannot be converted to String")
    }

    @Test(arguments: [
        (true, true), (false, false), (jsonNumber("1"), true), (jsonNumber("0"), false), (jsonNumber("1.0"), true), (jsonNumber("0e5"), false),
        ("true", true), ("TRUE", true), ("True", true), ("yes", true), ("YES", true), ("1", true),
        ("false", false), ("False", false), ("no", false), ("No", false), ("0", false),
    ] as [(JSONValue, Bool)])
    func booleansReadTheirSpellings(json: JSONValue, expected: Bool) throws {
        #expect(try importConverted(json, .boolean) == .bool(expected))
    }

    @Test func booleansRefuseOtherNumbersAndWords() {
        #expect(importFailure(jsonNumber("2"), .boolean) == "2 is not a boolean (0 or 1)")
        #expect(importFailure(jsonNumber("0.5"), .boolean) == "0.5 is not a boolean (0 or 1)")
        #expect(importFailure("maybe", .boolean) == "\"maybe\" is not a boolean (true/false, yes/no or 1/0)")
        #expect(importFailure("", .boolean) == "\"\" is not a boolean (true/false, yes/no or 1/0)")
        #expect(importFailure("t", .boolean) == "\"t\" is not a boolean (true/false, yes/no or 1/0)")
        #expect(importFailure([true], .boolean) == "an array cannot be converted to Boolean")
    }

    // MARK: UUID, URI, binary

    @Test func uuidsURIsAndBinaryReadTheirStringForms() throws {
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        #expect(try importConverted("e621e1f8-c36c-495a-93fc-0c247a3e6e5f", .uuid) == .uuid(uuid))
        #expect(try importConverted("E621E1F8-C36C-495A-93FC-0C247A3E6E5F", .uuid) == .uuid(uuid))
        #expect(importFailure("e621e1f8c36c495a93fc0c247a3e6e5f", .uuid) == "\"e621e1f8c36c495a93fc0c247a3e6e5f\" is not a UUID")
        #expect(importFailure(jsonNumber("12"), .uuid) == "12 cannot be converted to UUID")

        #expect(try importConverted("https://example.com/a?b=c", .uri) == .uri(URL(string: "https://example.com/a?b=c")!))
        #expect(try importConverted("relative/path", .uri) == .uri(URL(string: "relative/path")!))
        #expect(importFailure("ht tp://x", .uri) == "\"ht tp://x\" is not a URI")
        #expect(importFailure(true, .uri) == "true cannot be converted to URI")

        #expect(try importConverted("aGVsbG8=", .binary) == .data(Data("hello".utf8)))
        #expect(try importConverted("aGVsbG8", .binary) == .data(Data("hello".utf8)))
        #expect(try importConverted("aGk", .binary) == .data(Data("hi".utf8)))
        #expect(try importConverted("", .binary) == .data(Data()))
        #expect(importFailure("aGVs bG8=", .binary) == "\"aGVs bG8=\" is not base64")
        #expect(importFailure("aGVsbG8-", .binary) == "\"aGVsbG8-\" is not base64")
        #expect(importFailure("a", .binary) == "\"a\" is not base64")
        #expect(importFailure([1, 2], .binary) == "an array cannot be converted to Binary")
        let blob = String(repeating: "#", count: 100)
        #expect(importFailure(.string(blob), .binary) == "\"\(String(repeating: "#", count: 64))…\" is not base64")
    }

    // MARK: Null, transformable

    @Test(arguments: AttributeType.allCases)
    func nullIsNullForEveryType(type: AttributeType) throws {
        #expect(try importConverted(nil, type) == .null)
    }

    @Test func transformableAttributesNeedATransformer() {
        #expect(importFailure("x", .transformable)
            == "a Transformable attribute needs an attributeValueClassName user-info key naming a registered value transformer")
        #expect(importFailure("x", .transformable, userInfo: [UserInfoKey.attributeValueClassName: "ImportConversionTestsNoSuchClass"])
            == "no value transformer is registered for attributeValueClassName ImportConversionTestsNoSuchClass (see ImportValueTransformers.register)")
    }

    @Test func aClassNameWithoutATransformerLeavesOtherTypesToTheirRules() throws {
        let userInfo = [UserInfoKey.attributeValueClassName: "NSString"]
        #expect(try importConverted(jsonNumber("7"), .string, userInfo: userInfo) == .string("7"))
    }

    // MARK: The fixture

    /// Every attribute of SingleEntityWithNoRelationships from its fixture record (key
    /// lookup as simple as the fixture needs: `mappedKeyName`, else the name).
    @Test func singleEntityWithNoRelationshipsConvertsAsMagicalRecordsTestsExpect() throws {
        let model = try ObjectModel(contentsOf: ModelFixtures.magicalRecordTestModel)
        let entity = try model.requireEntity("SingleEntityWithNoRelationships")
        let data = try Data(contentsOf: ModelFixtures.root.appendingPathComponent("magicalrecord/SingleEntityWithNoRelationships.json"))
        guard case .object(let record) = try JSONReader().read(data) else {
            Issue.record("the fixture is not an object")
            return
        }
        var values: [String: AttributeValue] = [:]
        for attribute in entity.attributes {
            guard let json = record[attribute.userInfo[UserInfoKey.mappedKeyName] ?? attribute.name] else { continue }
            values[attribute.name] = try ImportConversion(attribute).value(from: json)
        }
        #expect(values["stringTestAttribute"] == .string("This is a test value"))
        #expect(values["int16TestAttribute"] == .integer(256))
        #expect(values["int32TestAttribute"] == .integer(32))
        #expect(values["int64TestAttribute"] == .integer(10_158_365_420_975_381))
        #expect(values["decimalTestAttribute"] == .decimal(Decimal(string: "1.2")!))
        #expect(values["doubleTestAttribute"] == .double(124.3))
        #expect(values["floatTestAttribute"] == .float(1e10))
        #expect(values["booleanTestAttribute"] == .bool(false))
        #expect(values["mappedStringAttribute"] == .string("Mapped value"))
        #expect(values["nullTestAttribute"] == .null)
        #expect(values["numberAsStringTestAttribute"] == .string("10248909829"))
        #expect(values["booleanAsStringTestAttribute"] == .bool(true))
        #expect(values["notInJsonAttribute"] == nil)
        #expect(values["dateTestAttribute"] == .date(utcDate(2011, 7, 23, 22, 30, 40)))
        #expect(values["dateWithCustomFormat"] == .date(utcDate(2011, 8, 5, 1, 56, 4)))
        #expect(values["unixTimeTestAttribute"] == .date(Date(timeIntervalSince1970: 1_388_349_428)))
        #expect(values["unixTime13TestAttribute"] == .date(Date(timeIntervalSince1970: 1_388_349_427.543)))
        guard case .data(let colorData) = values["colorTestAttribute"], let color = ImportedColor(data: colorData) else {
            Issue.record("colorTestAttribute is \(String(describing: values["colorTestAttribute"]))")
            return
        }
        #expect(color == ImportedColor(red: 64 / 255, green: 128 / 255, blue: 225 / 255, alpha: 1))
    }
}

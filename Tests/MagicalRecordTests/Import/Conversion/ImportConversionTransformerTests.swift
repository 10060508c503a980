import Foundation
import Testing
@testable import MagicalRecord

/// Value transformers by `attributeValueClassName`: the registry's matching, the built-in
/// `*Color` transformer and ImportedColor's string and byte forms.
///
/// The registry is global: these tests register names of their own only, and remove them.
struct ImportConversionTransformerTests {
    @Test(arguments: [
        ("*Color", "UIColor", true), ("*Color", "NSColor", true), ("*Color", "*Color", true), ("*Color", "Color", true),
        ("*Color", "UIColour", false), ("*Color", "ColorSpace", false), ("*Color", "uicolor", false),
        ("NS*Value", "NSPointValue", true), ("NS*Value", "NSValue", true), ("NS*Value", "UIValue", false),
        ("*", "Anything", true), ("a*b*c", "aXbYc", true), ("a*b*c", "abcbc", true), ("a*b*c", "acb", false),
        ("Exact", "Exact", true), ("Exact", "Exactly", false),
    ])
    func namesMatchWithStarsForAnyRun(pattern: String, name: String, matches: Bool) {
        #expect(ImportValueTransformers.matches(pattern: pattern, name) == matches)
    }

    @Test func theColorTransformerIsBuiltIn() throws {
        #expect(ImportValueTransformers.registeredNames.contains("*Color"))
        for className in ["*Color", "UIColor", "NSColor"] {
            let transform = try #require(ImportValueTransformers.transform(forClassName: className))
            #expect(try transform("rgba(64,128,225,1)") == .data(ImportedColor(red: 64 / 255, green: 128 / 255, blue: 225 / 255).data))
        }
        #expect(ImportValueTransformers.transform(forClassName: "UIColour") == nil)
    }

    @Test func exactNamesWinThenTheMostSpecificPattern() throws {
        let names = ["ImportConversionTests*", "ImportConversionTests*Special*", "ImportConversionTestsSpecialCase"]
        for (index, name) in names.enumerated() {
            ImportValueTransformers.register(name: name) { _ throws(ImportValueError) in .integer(Int64(index)) }
        }
        defer { names.forEach { ImportValueTransformers.unregister(name: $0) } }
        func chosen(_ className: String) throws -> AttributeValue? {
            try ImportValueTransformers.transform(forClassName: className).map { try $0(nil) }
        }
        #expect(try chosen("ImportConversionTestsOther") == .integer(0))
        #expect(try chosen("ImportConversionTestsSpecialOther") == .integer(1))
        #expect(try chosen("ImportConversionTestsSpecialCase") == .integer(2))
        ImportValueTransformers.unregister(name: "ImportConversionTestsSpecialCase")
        #expect(try chosen("ImportConversionTestsSpecialCase") == .integer(1))
    }

    @Test func aRegisteredTransformerConvertsAnyKindForAnyType() throws {
        let name = "ImportConversionTestsCents"
        ImportValueTransformers.register(name: name) { json throws(ImportValueError) in
            guard case .object(let amount) = json, case .number(let cents)? = amount["cents"], let value = cents.int64Value else {
                throw ImportValueError("\(json) is not an amount")
            }
            return .integer(value)
        }
        defer { ImportValueTransformers.unregister(name: name) }
        let userInfo = [UserInfoKey.attributeValueClassName: name]
        #expect(try importConverted(["cents": 1250], .integer64, userInfo: userInfo) == .integer(1250))
        #expect(try importConverted(nil, .integer64, userInfo: userInfo) == .null)
        #expect(importFailure("12", .integer64, userInfo: userInfo) == "string(\"12\") is not an amount")
        #expect(importFailure(["cents": 1250], .string, userInfo: userInfo)
            == "the value transformer for \(name) made the integer 1250, which an attribute of type String cannot hold")
        #expect(importFailure(["cents": 70000], .integer16, userInfo: userInfo)
            == "the value transformer for \(name) made the integer 70000, which an attribute of type Integer 16 cannot hold")
    }

    @Test func colorAttributesStoreImportedColorData() throws {
        let userInfo = [UserInfoKey.attributeValueClassName: "*Color"]
        let value = try importConverted("rgba(64,128,225,1)", .transformable, userInfo: userInfo)
        guard case .data(let data) = value, let color = ImportedColor(data: data) else {
            Issue.record("\(value) is not color data")
            return
        }
        #expect(color.red == 64.0 / 255)
        #expect(color.green == 128.0 / 255)
        #expect(color.blue == 225.0 / 255)
        #expect(color.alpha == 1)
        #expect(try importConverted("rgb(0, 0, 255)", .binary, userInfo: userInfo) == .data(ImportedColor(red: 0, green: 0, blue: 1).data))
        #expect(importFailure(jsonNumber("12"), .transformable, userInfo: userInfo)
            == "12 is not a color: expected a string such as \"rgba(64,128,225,1)\"")
        #expect(importFailure("rgba(1,2,3,1)", .string, userInfo: userInfo)
            == "the value transformer for *Color made data, which an attribute of type String cannot hold")
    }

    @Test(arguments: [
        ("rgba(64,128,225,1)", ImportedColor(red: 64 / 255, green: 128 / 255, blue: 225 / 255, alpha: 1)),
        ("RGBA( 64 , 128 , 225 , 0.5 )", ImportedColor(red: 64 / 255, green: 128 / 255, blue: 225 / 255, alpha: 0.5)),
        ("rgb(255,0,127.5)", ImportedColor(red: 1, green: 0, blue: 0.5, alpha: 1)),
        ("rgba(0,0,0,0)", ImportedColor(red: 0, green: 0, blue: 0, alpha: 0)),
    ])
    func colorStringsParse(text: String, expected: ImportedColor) throws {
        #expect(try ImportedColor(parsing: text) == expected)
    }

    @Test(arguments: [
        ("#4080E1", "expected rgba(red, green, blue, alpha)"),
        ("rgba(64,128,225)", "expected 4 components, found 3"),
        ("rgb(64,128,225,1)", "expected 3 components, found 4"),
        ("rgba(64,128,225,1", "expected rgba(red, green, blue, alpha)"),
        ("rgba(256,0,0,1)", "red \"256\" is not a number from 0 to 255"),
        ("rgba(0,-1,0,1)", "green \"-1\" is not a number from 0 to 255"),
        ("rgba(0,0,x,1)", "blue \"x\" is not a number from 0 to 255"),
        ("rgba(0,0,0,2)", "alpha \"2\" is not a number from 0 to 1"),
        ("rgba(0,0,,1)", "blue \"\" is not a number from 0 to 255"),
    ])
    func malformedColorsSayWhy(text: String, why: String) {
        #expect(throws: ImportValueError("\"\(text)\" is not a color: \(why)")) { try ImportedColor(parsing: text) }
    }

    @Test func colorDataIs32LittleEndianDoubles() throws {
        let color = ImportedColor(red: 0.25, green: 0.5, blue: 0.75, alpha: 1)
        let data = color.data
        #expect(data.count == 32)
        #expect(Array(data.prefix(8)) == [0, 0, 0, 0, 0, 0, 0xD0, 0x3F])
        #expect(ImportedColor(data: data) == color)
        #expect(ImportedColor(data: data.prefix(31)) == nil)
    }
}

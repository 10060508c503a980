import Foundation
import Testing
@testable import MagicalRecord

/// Every error the reader throws, with its exact offset, and how it reads.
struct JSONReaderErrorTests {
    private static func byte(_ character: Unicode.Scalar) -> UInt8 { UInt8(character.value) }

    static let cases: [(bytes: [UInt8], error: JSONError)] = [
        // Structure.
        (bytes(""), JSONError(.unexpectedEnd(expected: .value), offset: 0)),
        (bytes("   "), JSONError(.unexpectedEnd(expected: .value), offset: 3)),
        (bytes("x"), JSONError(.unexpectedCharacter(byte("x"), expected: .value), offset: 0)),
        (bytes("[1 2]"), JSONError(.unexpectedCharacter(byte("2"), expected: .commaOrClosingBracket), offset: 3)),
        (bytes("[1"), JSONError(.unexpectedEnd(expected: .commaOrClosingBracket), offset: 2)),
        (bytes("[1,"), JSONError(.unexpectedEnd(expected: .value), offset: 3)),
        (bytes("[1}"), JSONError(.unexpectedCharacter(byte("}"), expected: .commaOrClosingBracket), offset: 2)),
        (bytes(#"{"a" 1}"#), JSONError(.unexpectedCharacter(byte("1"), expected: .colon), offset: 5)),
        (bytes(#"{"a""#), JSONError(.unexpectedEnd(expected: .colon), offset: 4)),
        (bytes("{1:2}"), JSONError(.unexpectedCharacter(byte("1"), expected: .memberName), offset: 1)),
        (bytes("{"), JSONError(.unexpectedEnd(expected: .memberName), offset: 1)),
        (bytes(#"{"a":1 "b":2}"#), JSONError(.unexpectedCharacter(byte("\""), expected: .commaOrClosingBrace), offset: 7)),
        (bytes(#"{"a":1,]"#), JSONError(.unexpectedCharacter(byte("]"), expected: .memberName), offset: 7)),
        (bytes(#"{"a":}"#), JSONError(.unexpectedCharacter(byte("}"), expected: .value), offset: 5)),
        (bytes("[1,2,]"), JSONError(.trailingComma, offset: 4)),
        (bytes(#"{"a":1 , }"#), JSONError(.trailingComma, offset: 7)),
        (bytes("1 2"), JSONError(.unexpectedCharacter(byte("2"), expected: .endOfInput), offset: 2)),
        (bytes("[]]"), JSONError(.unexpectedCharacter(byte("]"), expected: .endOfInput), offset: 2)),
        (bytes("{} x"), JSONError(.unexpectedCharacter(byte("x"), expected: .endOfInput), offset: 3)),
        (bytes("// comment\n1"), JSONError(.unexpectedCharacter(byte("/"), expected: .value), offset: 0)),
        ([0xEF, 0xBB, 0xBF] + bytes("[]"), JSONError(.unexpectedCharacter(0xEF, expected: .value), offset: 0)),
        (bytes("[\u{0B}]"), JSONError(.unexpectedCharacter(0x0B, expected: .value), offset: 1)),
        // Literals.
        (bytes("tru"), JSONError(.unexpectedEnd(expected: .literal("true")), offset: 3)),
        (bytes("nul1"), JSONError(.unexpectedCharacter(byte("1"), expected: .literal("null")), offset: 3)),
        (bytes("True"), JSONError(.unexpectedCharacter(byte("T"), expected: .value), offset: 0)),
        (bytes("[fals]"), JSONError(.unexpectedCharacter(byte("]"), expected: .literal("false")), offset: 5)),
        (bytes("NaN"), JSONError(.unexpectedCharacter(byte("N"), expected: .value), offset: 0)),
        (bytes("nullx"), JSONError(.unexpectedCharacter(byte("x"), expected: .endOfInput), offset: 4)),
        // Numbers.
        (bytes("01"), JSONError(.leadingZero, offset: 0)),
        (bytes("-01"), JSONError(.leadingZero, offset: 1)),
        (bytes("[00]"), JSONError(.leadingZero, offset: 1)),
        (bytes("-"), JSONError(.unexpectedEnd(expected: .digitAfterMinus), offset: 1)),
        (bytes("-a"), JSONError(.unexpectedCharacter(byte("a"), expected: .digitAfterMinus), offset: 1)),
        (bytes("1."), JSONError(.unexpectedEnd(expected: .digitAfterDecimalPoint), offset: 2)),
        (bytes("1.e5"), JSONError(.unexpectedCharacter(byte("e"), expected: .digitAfterDecimalPoint), offset: 2)),
        (bytes("1e"), JSONError(.unexpectedEnd(expected: .exponentDigit), offset: 2)),
        (bytes("1e+"), JSONError(.unexpectedEnd(expected: .exponentDigit), offset: 3)),
        (bytes("[1E-x]"), JSONError(.unexpectedCharacter(byte("x"), expected: .exponentDigit), offset: 4)),
        (bytes(".5"), JSONError(.unexpectedCharacter(byte("."), expected: .value), offset: 0)),
        (bytes("+1"), JSONError(.unexpectedCharacter(byte("+"), expected: .value), offset: 0)),
        (bytes("1.5.3"), JSONError(.unexpectedCharacter(byte("."), expected: .endOfInput), offset: 3)),
        (bytes("0x10"), JSONError(.unexpectedCharacter(byte("x"), expected: .endOfInput), offset: 1)),
        // Strings.
        (bytes(#""abc"#), JSONError(.unterminatedString, offset: 0)),
        (bytes(#"[1, "abc\""#), JSONError(.unterminatedString, offset: 4)),
        (bytes(#""abc\"#), JSONError(.unterminatedString, offset: 0)),
        (bytes(#""\u12"#), JSONError(.unterminatedString, offset: 0)),
        (bytes(#""\uD800"#), JSONError(.unterminatedString, offset: 0)),
        (bytes(#""\q""#), JSONError(.invalidEscape(byte("q")), offset: 1)),
        (bytes(#""ok\'""#), JSONError(.invalidEscape(byte("'")), offset: 3)),
        (bytes(#""\u12G4""#), JSONError(.invalidUnicodeEscape, offset: 1)),
        (bytes(#""\u12""#), JSONError(.invalidUnicodeEscape, offset: 1)),
        (bytes(#""\uD800""#), JSONError(.loneSurrogate(0xD800), offset: 1)),
        (bytes(#""\udbff x""#), JSONError(.loneSurrogate(0xDBFF), offset: 1)),
        (bytes(#""\uDC00""#), JSONError(.loneSurrogate(0xDC00), offset: 1)),
        (bytes(#""ab\uD800\u0041""#), JSONError(.loneSurrogate(0xD800), offset: 3)),
        (bytes(#""\uD800\uD800""#), JSONError(.loneSurrogate(0xD800), offset: 1)),
        (bytes(#""\uD800\uZZZZ""#), JSONError(.invalidUnicodeEscape, offset: 7)),
        (bytes("\"a\nb\""), JSONError(.controlCharacterInString(0x0A), offset: 2)),
        (bytes("\"\\n\tb\""), JSONError(.controlCharacterInString(0x09), offset: 3)),
        (bytes("\"0123456789abcdef\u{1F}\""), JSONError(.controlCharacterInString(0x1F), offset: 17)),
        (bytes("{\"a\u{0}\":1}"), JSONError(.controlCharacterInString(0x00), offset: 3)),
        // UTF-8, in plain strings and in strings with escapes.
        (bytes("\"a") + [0xFF] + bytes("b\""), JSONError(.invalidUTF8, offset: 2)),
        (bytes("[\"é\",\"") + [0xC3, 0x28] + bytes("\"]"), JSONError(.invalidUTF8, offset: 7)),
        (bytes("\"") + [0xC0, 0x80] + bytes("\""), JSONError(.invalidUTF8, offset: 1)),
        (bytes("\"") + [0xED, 0xA0, 0x80] + bytes("\""), JSONError(.invalidUTF8, offset: 1)),
        (bytes("\"") + [0xE2, 0x82] + bytes("\""), JSONError(.invalidUTF8, offset: 1)),
        (bytes("\"") + [0xF4, 0x90, 0x80, 0x80] + bytes("\""), JSONError(.invalidUTF8, offset: 1)),
        (bytes("\"\\n") + [0x80] + bytes("\""), JSONError(.invalidUTF8, offset: 3)),
        (bytes("\"abc") + [0xE2, 0x82] + bytes("\\n\""), JSONError(.invalidUTF8, offset: 4)),
    ]

    private static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func eachErrorAtItsOffset() {
        for (bytes, expected) in Self.cases {
            let text = String(decoding: bytes, as: UTF8.self).debugDescription
            #expect(throws: expected, "\(text)") { try JSONReader().read(bytes) }
            #expect(throws: expected, "\(text), lenient") { try JSONReader(allowsTrailingCommas: expected.reason != .trailingComma).read(bytes) }
        }
    }

    @Test func messagesSayWhatAndWhere() {
        let messages: [(JSONError, String)] = [
            (JSONError(.unexpectedCharacter(UInt8(ascii: "x"), expected: .value), offset: 123),
             "unexpected character 'x' at byte 123, expected a value"),
            (JSONError(.unexpectedCharacter(0xEF, expected: .commaOrClosingBracket), offset: 0),
             "unexpected byte 0xEF at byte 0, expected ',' or ']'"),
            (JSONError(.unexpectedEnd(expected: .digitAfterMinus), offset: 1), "unexpected end of input at byte 1, expected a digit after '-'"),
            (JSONError(.unexpectedEnd(expected: .literal("null")), offset: 3), "unexpected end of input at byte 3, expected 'null'"),
            (JSONError(.unterminatedString, offset: 5), "unterminated string starting at byte 5"),
            (JSONError(.trailingComma, offset: 40), "trailing comma at byte 40 (allowsTrailingCommas accepts it)"),
            (JSONError(.invalidEscape(UInt8(ascii: "q")), offset: 1), "invalid escape '\\q' at byte 1"),
            (JSONError(.invalidEscape(0x0A), offset: 1), "invalid escape '\\' then byte 0x0A at byte 1"),
            (JSONError(.invalidUnicodeEscape, offset: 1), "invalid \\u escape at byte 1, expected four hexadecimal digits"),
            (JSONError(.loneSurrogate(0xD800), offset: 1),
             "lone surrogate \\uD800 at byte 1, expected a \\uD800-\\uDBFF \\uDC00-\\uDFFF pair"),
            (JSONError(.controlCharacterInString(0x0A), offset: 2), "unescaped control character 0x0A in string at byte 2"),
            (JSONError(.leadingZero, offset: 0), "number with a leading zero at byte 0"),
            (JSONError(.nestingTooDeep(limit: 512), offset: 512), "arrays and objects nested deeper than 512 levels at byte 512"),
            (JSONError(.invalidUTF8, offset: 2), "invalid UTF-8 at byte 2"),
            (JSONError(.unexpectedCharacter(UInt8(ascii: "5"), expected: .arrayOrObject), offset: 0),
             "unexpected character '5' at byte 0, expected '[' or '{'"),
            (JSONError(.unsupportedValue("a value of type Date", path: "$.born"), offset: nil), "a value of type Date at $.born has no JSON equivalent"),
            (JSONError(.readFailed("Bad file descriptor"), offset: 4096), "could not read the input at byte 4096: Bad file descriptor"),
        ]
        for (error, message) in messages {
            #expect(error.description == message)
        }
    }
}

import Foundation
import Testing
@testable import MagicalRecord

/// Valid documents and the values they read as; the trailing-comma option.
struct JSONReaderTests {
    static let documents: [(text: String, value: JSONValue)] = [
        ("null", nil),
        ("true", true),
        ("false", false),
        ("0", .number(JSONNumber(text: "0"))),
        ("-0", .number(JSONNumber(text: "-0"))),
        ("123", 123),
        ("-1E+2", .number(JSONNumber(text: "-1E+2"))),
        ("1.5e-3", .number(JSONNumber(text: "1.5e-3"))),
        ("0.0", .number(JSONNumber(text: "0.0"))),
        ("10158365420975381", 10158365420975381),
        ("18446744073709551616", .number(JSONNumber(text: "18446744073709551616"))),
        (#""""#, ""),
        (#""abc""#, "abc"),
        (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{8}\u{C}\n\r\t"),
        (#""\u00e9\u00C9\u20AC""#, "éÉ€"),
        (#""\uD83D\uDE00""#, "😀"),
        (#""\u0000""#, "\u{0}"),
        (#""é😀 raw""#, "é😀 raw"),
        (#""a long string past the eight-byte scan with an \" escape near the end""#,
         "a long string past the eight-byte scan with an \" escape near the end"),
        ("\"\u{7F}\"", "\u{7F}"),
        ("[]", []),
        ("{}", [:]),
        (" \t\r\n[ 1 , 2 ] \n", [1, 2]),
        (#"[[[]],[{}]]"#, [[[]], [[:]]]),
        (#"{"a":{"b":[null,true]},"":0}"#, ["a": ["b": [nil, true]], "": 0]),
        (#"{"b":1,"a":2}"#, ["b": 1, "a": 2]),
        (#"{"a":1,"b":2,"a":3}"#, ["a": 3, "b": 2]),
    ]

    @Test func readsEachDocument() throws {
        for (text, expected) in Self.documents {
            #expect(try JSONReader().read(text) == expected, "\(text)")
            #expect(try JSONReader(allowsTrailingCommas: true).read(text) == expected, "\(text)")
        }
    }

    @Test func readsDataBytesAndBuffers() throws {
        let text = #"{"name":"Ada","born":1815}"#
        let expected: JSONValue = ["name": "Ada", "born": 1815]
        #expect(try JSONReader().read(Data(text.utf8)) == expected)
        #expect(try JSONReader().read(Array(text.utf8)) == expected)
        #expect(try Array(text.utf8).withUnsafeBytes { try JSONReader().read($0) } == expected)
        // A slice of a larger buffer: offsets stay relative to what was passed.
        let padded = Array("xx\(text)".utf8)
        #expect(try padded.withUnsafeBytes { try JSONReader().read(UnsafeRawBufferPointer(rebasing: $0[2...])) } == expected)
        #expect(try Data(padded).dropFirst(2).withUnsafeBytes { try JSONReader().read($0) } == expected)
    }

    @Test func repeatedNamesKeepTheLastValueInTheFirstPlace() throws {
        guard case .object(let object) = try JSONReader().read(#"{"a":1,"b":2,"a":3}"#) else {
            Issue.record("not an object")
            return
        }
        #expect(object.order == ["a", "b"])
        #expect(object["a"] == 3)
    }

    @Test func trailingCommasAreRejectedUnlessAllowed() throws {
        let lenient = JSONReader(allowsTrailingCommas: true)
        #expect(try lenient.read("[1,2,]") == [1, 2])
        #expect(try lenient.read(#"{"a":1,}"#) == ["a": 1])
        #expect(try lenient.read("[[1 , ] , {\"a\":[],\n}\n,\t]") == [[1], ["a": []]])
        #expect(throws: JSONError(.trailingComma, offset: 4)) { try JSONReader().read("[1,2,]") }
        #expect(throws: JSONError(.trailingComma, offset: 6)) { try JSONReader().read(#"{"a":1,}"#) }
        // Only one comma, and only after an element.
        #expect(throws: JSONError(.unexpectedCharacter(UInt8(ascii: ","), expected: .value), offset: 1)) { try lenient.read("[,]") }
        #expect(throws: JSONError(.unexpectedCharacter(UInt8(ascii: ","), expected: .memberName), offset: 1)) { try lenient.read("{,}") }
        #expect(throws: JSONError(.unexpectedCharacter(UInt8(ascii: ","), expected: .value), offset: 3)) { try lenient.read("[1,,]") }
    }

    /// MagicalRecord's own fixture has a trailing comma in every object.
    @Test func magicalRecordFixtureNeedsTrailingCommas() throws {
        let data = try Data(contentsOf: Self.fixture("MultipleEntitiesWithNoPrimaryKey.json"))
        let error = #expect(throws: JSONError.self) { try JSONReader().read(data) }
        #expect(error == JSONError(.trailingComma, offset: 61))
        #expect(error?.description == "trailing comma at byte 61 (allowsTrailingCommas accepts it)")
        let record: JSONValue = ["stringTestAttribute": "This is a test value"]
        #expect(try JSONReader(allowsTrailingCommas: true).read(data) == [record, record, record, record])
    }

    /// Every JSON fixture reads as JSONSerialization reads it (where it can).
    @Test func fixturesReadAsJSONSerializationReadsThem() throws {
        let folder = ModelFixtures.root.appendingPathComponent("magicalrecord")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        #expect(files.count >= 10)
        for file in files {
            let data = try Data(contentsOf: folder.appendingPathComponent(file))
            let ours = try JSONReader(allowsTrailingCommas: true).read(data)
            guard let theirs = try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed) else { continue }
            #expect(try JSONValue(foundation: theirs).numbersNormalized() == ours.numbersNormalized().membersSorted(), "\(file)")
        }
    }

    /// Nesting is checked on the reader's own stack: the limit is an error, a much deeper
    /// document is the same error, never a stack overflow.
    @Test func nestingDepthIsLimited() throws {
        let limit = JSONReader.defaultMaximumDepth
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(throws: Never.self) { try JSONReader().read(deepest) }
        let tooDeep = "[" + deepest + "]"
        #expect(throws: JSONError(.nestingTooDeep(limit: limit), offset: limit)) { try JSONReader().read(tooDeep) }
        let objects = String(repeating: #"{"a":"#, count: limit + 1) + "1" + String(repeating: "}", count: limit + 1)
        #expect(throws: JSONError(.nestingTooDeep(limit: limit), offset: 5 * limit)) { try JSONReader().read(objects) }
        #expect(throws: JSONError(.nestingTooDeep(limit: limit), offset: limit)) {
            try JSONReader().read(String(repeating: "[", count: 1_000_000))
        }
        #expect(throws: JSONError(.nestingTooDeep(limit: 2), offset: 2)) { try JSONReader(maximumDepth: 2).read("[[[]]]") }
        #expect(try JSONReader(maximumDepth: 0).read("1") == 1)
    }

    static func fixture(_ name: String) -> URL {
        ModelFixtures.root.appendingPathComponent("magicalrecord").appendingPathComponent(name)
    }
}

extension JSONValue {
    /// Objects with their members in name order, as the Foundation bridge orders them.
    func membersSorted() -> JSONValue {
        switch self {
        case .array(let elements): .array(elements.map { $0.membersSorted() })
        case .object(let object): .object(JSONObject(object.order.sorted().map { ($0, object.members[$0]!.membersSorted()) }))
        default: self
        }
    }
}

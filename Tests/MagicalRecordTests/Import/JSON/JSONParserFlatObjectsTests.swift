import Foundation
import Testing
@testable import MagicalRecord

/// Records read flat (`JSONParser.readFlatObject`): an object repeating the names of the
/// one before, with scalar values, is read without the general parse's frames; any other
/// object falls back to it. Either way the elements, and the error and its offset, are
/// those of reading the document one element at a time.
struct JSONParserFlatObjectsTests {
    @Test func recordsReadFlatMatchTheGeneralParse() {
        var random = SeededGenerator(seed: 0x464C_4154)
        var unbuilt = 0
        for round in 0..<(150 * testScale) {
            var text = "["
            for record in 0..<Int.random(in: 0...10, using: &random) {
                if record > 0 { text += Self.space(&random) + "," }
                text += Self.space(&random) + Self.record(&random)
            }
            text += Self.space(&random) + "]"
            var bytes = Array(text.utf8)
            if round % 4 == 0, !bytes.isEmpty {
                let spoilers: [UInt8] = Array("#\"},0-\\:[{ e.".utf8) + [0x01, 0xFF]
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = spoilers[Int.random(in: 0..<spoilers.count, using: &random)]
            }
            if round % 7 == 0 { bytes.removeLast(Int.random(in: 0...min(bytes.count, 12), using: &random)) }
            let reader = JSONReader(allowsTrailingCommas: Bool.random(using: &random), maximumDepth: Int.random(in: 1...4, using: &random))
            let expected = readAll(JSONArrayStream(data: Data(bytes), reader: reader))
            let read = readInPlace(JSONArrayStream(data: Data(bytes), reader: reader), &random, unbuilt: &unbuilt)
            #expect(read.elements == expected.elements, "round \(round): \(String(decoding: bytes, as: UTF8.self))")
            #expect(read.error == expected.error, "round \(round): \(String(decoding: bytes, as: UTF8.self))")
        }
        // Plain strings were left unbuilt where asked, and built where read.
        #expect(unbuilt > 0)
    }

    /// The flat read leaves nothing behind when it falls back midway: a record that
    /// breaks off after matching names and values is read whole by the general parse.
    @Test func aRecordThatBreaksOffIsReadWhole() throws {
        let text = #"[{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3, "name": [4]}, {"id": 5, "name": "c", "more": true}]"#
        var random = SeededGenerator(seed: 1)
        var unbuilt = 0
        let read = readInPlace(JSONArrayStream(data: Data(text.utf8)), &random, unbuilt: &unbuilt)
        #expect(read.error == nil)
        #expect(read.elements == [["id": 1, "name": "a"], ["id": 2, "name": "b"], ["id": 3, "name": [4]], ["id": 5, "name": "c", "more": true]])
    }

    /// A document that is one object is not read in place (nil at once): read as values
    /// instead, as an import then reads it, it gives the general parse's element or error.
    @Test func aTopLevelObjectIsReadAsValues() {
        for text in [#"{"id": 1, "name": "a"}"#, "{ ]", "{"] {
            var random = SeededGenerator(seed: 2)
            var unbuilt = 0
            let expected = readAll(JSONArrayStream(data: Data(text.utf8)))
            let read = readInPlace(JSONArrayStream(data: Data(text.utf8)), &random, unbuilt: &unbuilt)
            #expect(read.elements == expected.elements, "\(text)")
            #expect(read.error == expected.error, "\(text)")
        }
    }

    /// Only plain ASCII strings are left unbuilt where asked: a string with an escape or a
    /// non-ASCII letter, and a number, are built; every value reads as the general parse's.
    @Test func onlyPlainStringsAreLeftUnbuilt() throws {
        let text = #"[{"id": 1, "name": "a", "note": "n"}, {"id": 2, "name": "b", "note": "x\"y"}, {"id": 3, "name": "plain", "note": "é"}]"#
        var unbuiltPlaces: [[Int]] = []
        var elements: [JSONValue] = []
        let stream = JSONArrayStream(data: Data(text.utf8))
        while let run = try stream.next(upTo: 10, inPlace: { _, object in
            unbuiltPlaces.append(object.names.names.indices.filter { object.unbuiltString(atMember: $0) != nil })
            elements.append(.object(JSONObject(names: object.names, values: object.names.names.indices.map(object.value(atMember:)))))
            return true
        }, built: { _, value in
            elements.append(value)
            return true
        }, unbuiltStrings: { names in
            names.names.map { _ in true }
        }), run > 0 {}
        #expect(unbuiltPlaces == [[1], [1]])
        #expect(elements == [["id": 1, "name": "a", "note": "n"], ["id": 2, "name": "b", "note": "x\"y"], ["id": 3, "name": "plain", "note": "é"]])
    }

    /// Reads `stream` in runs of in-place objects, as an import planning from bytes does,
    /// leaving the plain strings of random members unbuilt (counted in `unbuilt`): the
    /// view builds each when asked for its value. A run the stream will not read in place
    /// (nil) is read as values, as the import then reads its batch.
    private func readInPlace(
        _ stream: JSONArrayStream, _ random: inout SeededGenerator, unbuilt: inout Int
    ) -> (elements: [JSONValue], error: JSONError?) {
        var elements: [JSONValue] = []
        do throws(JSONError) {
            while true {
                let count = Int.random(in: 1...6, using: &random)
                var run = try readRunInPlace(stream, upTo: count, into: &elements, &random, unbuilt: &unbuilt)
                if run == nil { run = try stream.next(upTo: count) { elements.append($0.value) } }
                if run == 0 { return (elements, nil) }
            }
        } catch {
            return (elements, error)
        }
    }

    /// One run of ``readInPlace(_:_:unbuilt:)``: how many elements it read, nil when the
    /// stream reads none in place.
    private func readRunInPlace(
        _ stream: JSONArrayStream, upTo count: Int, into elements: inout [JSONValue], _ random: inout SeededGenerator,
        unbuilt: inout Int
    ) throws(JSONError) -> Int? {
        try stream.next(upTo: count, inPlace: { index, object in
            precondition(index == elements.count)
            #expect(object.values.count == object.names.names.count, "a value for each name")
            let values = object.names.names.indices.map { position in
                if let bytes = object.unbuiltString(atMember: position) {
                    unbuilt += 1
                    #expect(bytes.allSatisfy { $0 >= 0x20 && $0 < 0x80 && $0 != UInt8(ascii: "\\") }, "only plain ASCII is left unbuilt")
                }
                return object.value(atMember: position)
            }
            elements.append(.object(JSONObject(names: object.names, values: values)))
            return true
        }, built: { index, value in
            precondition(index == elements.count)
            elements.append(value)
            return true
        }, unbuiltStrings: { names in
            names.names.map { _ in Bool.random(using: &random) }
        })
    }

    /// A record of mostly the same names in the same order, now and then changed: another
    /// order, a member more or less, a repeated or escaped name, a nested value, a
    /// trailing comma.
    private static func record(_ random: inout SeededGenerator) -> String {
        var names = ["id", "firstName", "a", "createdAtLongerName"]
        switch Int.random(in: 0..<12, using: &random) {
        case 0: names.shuffle(using: &random)
        case 1: names.removeLast()
        case 2: names.append("extra")
        case 3: names.append("id")
        case 4: names[1] = #"first\u004eame"#
        default: break
        }
        var members = names.map { "\"\($0)\"" + space(&random) + ":" + space(&random) + value(&random) }
        if Int.random(in: 0..<15, using: &random) == 0 { members[members.count - 1] += "," }
        return "{" + members.map { space(&random) + $0 + space(&random) }.joined(separator: ",") + "}"
    }

    /// Mostly scalars, now and then a container, seldom something malformed (the general
    /// parse then throws, and so must reading in place).
    private static func value(_ random: inout SeededGenerator) -> String {
        let scalars = [
            "0", "-0", "17", "-42", "12.50", "-0.5", "1e3", "2.5E-2", "123456789012345678901", "3.14159265358979323846",
            #""""#, #""plain""#, #""esc\"aped\n""#, #""\u00e9t\u00e9""#, "\"caf\u{e9}\"", "true", "false", "null",
        ]
        let containers = ["[]", "[1, 2]", "{}", #"{"x": 1}"#]
        let malformed = ["01", "-", "1.", "tru", "nul", #""unterminated"#]
        let pick = Int.random(in: 0..<100, using: &random)
        let values = pick < 90 ? scalars : pick < 97 ? containers : malformed
        return values[Int.random(in: 0..<values.count, using: &random)]
    }

    private static func space(_ random: inout SeededGenerator) -> String {
        guard Int.random(in: 0..<4, using: &random) == 0 else { return "" }
        return [" ", "\n", "\t", "\r\n", "  "][Int.random(in: 0..<5, using: &random)]
    }
}

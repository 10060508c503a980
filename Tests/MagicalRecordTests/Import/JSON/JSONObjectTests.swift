import MagicalStore
import Testing
@testable import MagicalRecord

/// A JSON object behaves as an ordered map of names, searched name by name when small and
/// through its table of positions when large, and the two agree.
@Suite struct JSONObjectTests {
    /// Random sets and removals against a dictionary and an ordered list of names, through
    /// sizes on both sides of the searched limit.
    @Test func matchesAnOrderedMapUnderChanges() {
        var random = SplitMix64(seed: 17)
        var object = JSONObject()
        var reference: [String: JSONValue] = [:]
        var order: [String] = []
        for step in 0..<3000 {
            let name = "m\(Int.random(in: 0..<40, using: &random))"
            if Int.random(in: 0..<3, using: &random) == 0 {
                object[name] = nil
                reference[name] = nil
                order.removeAll { $0 == name }
            } else {
                let value = JSONValue.number(JSONNumber(text: "\(step)"))
                object[name] = value
                if reference.updateValue(value, forKey: name) == nil { order.append(name) }
            }
            #expect(object.order == order)
            #expect(object.count == order.count)
            #expect(object.members == reference)
            for probe in 0..<42 { #expect(object["m\(probe)"] == reference["m\(probe)"]) }
        }
    }

    @Test func largeObjectsReadAndKeepTheLastOfARepeatedName() throws {
        let names = (0..<30).map { "field\($0)" }
        let text = "{" + names.enumerated().map { "\"\($1)\":\($0)" }.joined(separator: ",") + ",\"field7\":\"last\"}"
        guard case .object(let object) = try JSONReader().read(text) else {
            Issue.record("not an object")
            return
        }
        #expect(object.order == names)
        #expect(object["field7"] == "last")
        #expect(object["field29"] == 29)
        #expect(object["field30"] == nil)
    }

    /// Records with the same names in the same order share them; other shapes, in any
    /// mix, keep their own names and values.
    @Test func recordsShareTheirNames() throws {
        let text = #"[{"a":1,"b":2},{"b":3,"a":4},{"a":5,"b":6,"c":7},{"a":8,"b":9},{"a":10,"a":11},{},{"b":12,"a":13}]"#
        guard case .array(let elements) = try JSONReader().read(text) else {
            Issue.record("not an array")
            return
        }
        let objects = elements.compactMap { element -> JSONObject? in
            guard case .object(let object) = element else { return nil }
            return object
        }
        #expect(objects.map(\.order) == [["a", "b"], ["b", "a"], ["a", "b", "c"], ["a", "b"], ["a"], [], ["b", "a"]])
        #expect(objects.map { $0["a"] } == [1, 4, 5, 8, 11, nil, 13])
        #expect(objects[0].names === objects[3].names)
        #expect(objects[1].names === objects[6].names)
        #expect(objects[0].names !== objects[1].names)
    }

    /// Member names are matched in place against the names of the object read before:
    /// whatever mix of repeated, reordered, prefixed, extended and escaped spellings the
    /// records use, whole or streamed in small chunks, they read as their names say.
    @Test func namesReadInPlaceAreTheNamesTheInputSpells() throws {
        let pool = ["id", "name", "nam", "names", "é", "a\"b", "x\\y", "\u{1}c"]
        var random = SplitMix64(seed: 0x4E41_4D45)
        var records: [[(String, Int)]] = []
        var text = "["
        for index in 0..<(200 * testScale) {
            // Mostly the same names in the same order, as records are.
            let names = Int.random(in: 0..<4, using: &random) == 0
                ? Array(pool.shuffled(using: &random).prefix(Int.random(in: 0...4, using: &random)))
                : ["id", "name", "nam", "é"]
            let record = names.enumerated().map { ($1, index * 10 + $0) }
            records.append(record)
            let members = record.map { name, value in "\(Self.spell(name, escaping: Int.random(in: 0..<5, using: &random) == 0)):\(value)" }
            text += (index == 0 ? "" : ",") + "{" + members.joined(separator: ",") + "}"
        }
        text += "]"
        let expected = JSONValue.array(records.map { .object(JSONObject($0.map { ($0, JSONValue.number(JSONNumber(text: "\($1)"))) })) })
        #expect(try JSONReader().read(text) == expected)
        let folder = JSONScratchFolder()
        for chunkSize in [1, 5, 64] {
            let streamed = readAll(try folder.stream(Array(text.utf8), chunkSize: chunkSize))
            #expect(streamed.error == nil)
            #expect(.array(streamed.elements) == expected, "chunks of \(chunkSize)")
        }
    }

    /// A name the object before spelled with an escape is still refused when the next
    /// spells it with the raw control character.
    @Test func aRawControlCharacterInARepeatedNameIsStillAnError() {
        let text = Array(#"[{"\u0001":1},{""#.utf8) + [1] + Array(#"":2}]"#.utf8)
        #expect(throws: JSONError(.controlCharacterInString(1), offset: 16)) { try JSONReader().read(text) }
    }

    /// `name` as a JSON string: quotes, backslashes and control characters escaped, and
    /// with `escaping` every letter as a `\u` escape too.
    private static func spell(_ name: String, escaping: Bool) -> String {
        var spelled = "\""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\"": spelled += "\\\""
            case "\\": spelled += "\\\\"
            case _ where scalar.value < 0x20 || (escaping && scalar.properties.isAlphabetic):
                spelled += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: spelled.unicodeScalars.append(scalar)
            }
        }
        return spelled + "\""
    }

    /// Equal objects have the same members in the same order, and hash alike.
    @Test func equalityFollowsMembersAndOrder() {
        let small = JSONObject([("a", 1), ("b", 2)])
        #expect(small == JSONObject([("a", 1), ("b", 2)]))
        #expect(small != JSONObject([("b", 2), ("a", 1)]))
        #expect(small.hashValue == JSONObject([("a", 1), ("b", 2)]).hashValue)
        var built = JSONObject((0..<20).map { ("k\($0)", JSONValue.number(JSONNumber(text: "\($0)"))) })
        var copy = built
        #expect(built == copy)
        copy["k3"] = .null
        #expect(built != copy)
        built["k3"] = .null
        #expect(built == copy)
    }
}

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

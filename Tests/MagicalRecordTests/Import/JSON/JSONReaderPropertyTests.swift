import Foundation
import Testing
@testable import MagicalRecord

/// Randomized, seeded properties: written trees read back equal; streams agree with
/// whole documents on any input, garbage included; nothing traps.
struct JSONReaderPropertyTests {
    /// Random trees, written with random whitespace and escapes, read back equal.
    @Test func writtenTreesReadBackEqual() throws {
        var random = RandomJSON(seed: 0x5254_5250)
        for round in 0..<(400 * testScale) {
            let value = random.value()
            #expect(try JSONReader().read(JSONTestWriter.compact(value)) == value, "round \(round)")
            var writer = JSONTestWriter(random: random.random, trailingCommas: round % 2 == 0)
            let text = writer.write(value)
            random.random = writer.random!
            #expect(try JSONReader(allowsTrailingCommas: true).read(text) == value, "round \(round): \(text.debugDescription)")
        }
    }

    /// Special bytes at every position around the eight-byte scan.
    @Test func stringScanFindsSpecialBytesAnywhere() throws {
        for length in 0..<24 {
            for position in 0..<length {
                var plain = Array(repeating: UInt8(ascii: "a"), count: length)
                plain[position] = UInt8(ascii: "\"")
                let quoted = [UInt8(ascii: "\"")] + plain + [UInt8(ascii: "\"")]
                #expect(throws: JSONError(.unexpectedCharacter(quoted[position + 2], expected: .endOfInput), offset: position + 2)) {
                    try JSONReader().read(quoted)
                }
                plain[position] = 0x1F
                #expect(throws: JSONError(.controlCharacterInString(0x1F), offset: position + 1)) {
                    try JSONReader().read([UInt8(ascii: "\"")] + plain + [UInt8(ascii: "\"")])
                }
                plain[position] = UInt8(ascii: "\\")
                plain.insert(UInt8(ascii: "n"), at: position + 1)
                let expected = String(repeating: "a", count: position) + "\n" + String(repeating: "a", count: length - position - 1)
                #expect(try JSONReader().read([UInt8(ascii: "\"")] + plain + [UInt8(ascii: "\"")]) == .string(expected))
            }
            let plain = String(repeating: "é", count: length)
            #expect(try JSONReader().read("\"\(plain)\"") == .string(plain))
        }
    }

    /// The reader's UTF-8 check agrees with the standard library's on random bytes
    /// biased toward multi-byte sequences.
    @Test func utf8CheckAgreesWithTheStandardLibrary() {
        var random = SeededGenerator(seed: 0x5554_4638)
        let interesting: [UInt8] = [0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
        for _ in 0..<(20000 * testScale) {
            let bytes = (0..<Int.random(in: 0...6, using: &random)).map { _ in random.pick(interesting) }
            let ours = bytes.withUnsafeBufferPointer { JSONParser.firstIllFormedUTF8(in: $0) }
            #expect((ours == nil) == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
        }
    }

    /// Random bytes, mutated documents and every prefix of documents: the reader throws
    /// or reads, never traps; and a stream (from memory, and from a file in small chunks)
    /// gives the same elements or the same error.
    @Test func garbageThrowsOrReadsAndStreamsAgree() throws {
        let folder = JSONScratchFolder()
        var random = RandomJSON(seed: 0x4741_5242)
        let alphabet = Array(#"[]{},:"\ -+.eE0123456789tfnrulasu"#.utf8) + [0x00, 0x0A, 0x1F, 0x80, 0xC3, 0xA9, 0xED, 0xF0, 0xFF]
        var inputs: [[UInt8]] = []
        for _ in 0..<(150 * testScale) {
            inputs.append((0..<Int.random(in: 0...24, using: &random.random)).map { _ in random.random.pick(alphabet) })
            var document = Array(JSONTestWriter.compact(.array((0..<3).map { _ in random.value(depth: 2) })).utf8)
            for _ in 0..<Int.random(in: 1...3, using: &random.random) where !document.isEmpty {
                let index = Int.random(in: 0..<document.count, using: &random.random)
                switch Int.random(in: 0..<3, using: &random.random) {
                case 0: document[index] = random.random.pick(alphabet)
                case 1: document.remove(at: index)
                default: document.insert(random.random.pick(alphabet), at: index)
                }
            }
            inputs.append(document)
        }
        let whole = Array(JSONTestWriter.compact(.array([["a": "é\n", "b": [1.5, -0.0, nil]], "😀", true, 120])).utf8)
        inputs += (0...whole.count).map { Array(whole[..<$0]) }
        for (index, bytes) in inputs.enumerated() {
            let strict = index % 2 == 0
            let reader = JSONReader(allowsTrailingCommas: !strict, maximumDepth: strict ? 512 : 3)
            let expected = Self.streamOutcome(of: bytes, reader: reader)
            let fromData = readAll(JSONArrayStream(data: Data(bytes), reader: reader))
            let fromFile = readAll(try folder.stream(bytes, chunkSize: Int.random(in: 1...9, using: &random.random), reader: reader))
            for streamed in [fromData, fromFile] {
                #expect(streamed.error == expected.error, "\(bytes)")
                if expected.error == nil { #expect(streamed.elements == expected.elements, "\(bytes)") }
            }
        }
    }

    /// What a stream should give, from reading the whole document.
    private static func streamOutcome(of bytes: [UInt8], reader: JSONReader) -> (elements: [JSONValue], error: JSONError?) {
        let whitespace = Array(" \t\r\n".utf8)
        let firstIndex = bytes.firstIndex { !whitespace.contains($0) }
        guard let firstIndex else { return ([], JSONError(.unexpectedEnd(expected: .arrayOrObject), offset: bytes.count)) }
        let first = bytes[firstIndex]
        guard first == UInt8(ascii: "[") || first == UInt8(ascii: "{") else {
            return ([], JSONError(.unexpectedCharacter(first, expected: .arrayOrObject), offset: firstIndex))
        }
        do {
            switch try reader.read(bytes) {
            case .array(let elements): return (elements, nil)
            case let object: return ([object], nil)
            }
        } catch {
            return ([], error)
        }
    }
}

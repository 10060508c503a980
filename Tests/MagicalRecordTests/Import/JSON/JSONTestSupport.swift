import Foundation
@testable import MagicalRecord

/// A reference writer, independent of the reader: compact by default; with a generator,
/// random whitespace, optional escapes (`\/`, `\u00e9`, surrogate pairs) and, when asked,
/// a trailing comma in some containers.
struct JSONTestWriter {
    var random: SeededGenerator?
    var trailingCommas = false

    static func compact(_ value: JSONValue) -> String {
        var writer = JSONTestWriter()
        return writer.write(value)
    }

    mutating func write(_ value: JSONValue) -> String {
        var text = ""
        write(value, into: &text)
        return text
    }

    private mutating func write(_ value: JSONValue, into text: inout String) {
        space(&text)
        switch value {
        case .null: text += "null"
        case .bool(let flag): text += flag ? "true" : "false"
        case .number(let number): text += number.text
        case .string(let string): write(string: string, into: &text)
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += "," }
                write(element, into: &text)
            }
            trailingComma(after: elements.count, &text)
            text += "]"
        case .object(let object):
            text += "{"
            for (index, name) in object.order.enumerated() {
                if index > 0 { text += "," }
                space(&text)
                write(string: name, into: &text)
                space(&text)
                text += ":"
                write(object.members[name]!, into: &text)
            }
            trailingComma(after: object.order.count, &text)
            text += "}"
        }
        space(&text)
    }

    private mutating func write(string: String, into text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\t": text += "\\t"
            case "/" where random?.chance(0.5) == true: text += "\\/"
            case _ where scalar.value < 0x20 || random?.chance(0.1) == true:
                if scalar.value > 0xFFFF {
                    let offset = scalar.value - 0x10000
                    text += Self.unicodeEscape(0xD800 + offset >> 10) + Self.unicodeEscape(0xDC00 + offset & 0x3FF)
                } else {
                    text += Self.unicodeEscape(scalar.value)
                }
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    private static func unicodeEscape(_ unit: UInt32) -> String {
        let hex = String(unit, radix: 16, uppercase: unit % 2 == 0)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }

    private mutating func space(_ text: inout String) {
        guard var generator = random else { return }
        if generator.chance(0.3) { text += generator.pick([" ", "\n", "\t", "\r\n  ", "  "]) }
        random = generator
    }

    private mutating func trailingComma(after count: Int, _ text: inout String) {
        guard trailingCommas, count > 0, random?.chance(0.5) ?? true else { return }
        text += ","
        space(&text)
    }
}

/// Random JSON trees, seeded: strings with every kind of character a writer must escape
/// or may not, numbers in every spelling the grammar allows.
struct RandomJSON {
    var random: SeededGenerator

    init(seed: UInt64) {
        random = SeededGenerator(seed: seed)
    }

    mutating func value(depth: Int = 4) -> JSONValue {
        switch Int.random(in: 0..<(depth > 0 ? 8 : 5), using: &random) {
        case 0: return .null
        case 1: return .bool(random.chance(0.5))
        case 2, 3: return .number(number())
        case 4: return .string(string())
        case 5: return .array((0..<Int.random(in: 0...5, using: &random)).map { _ in value(depth: depth - 1) })
        default:
            return .object(JSONObject((0..<Int.random(in: 0...5, using: &random)).map { _ in (string(), value(depth: depth - 1)) }))
        }
    }

    mutating func number() -> JSONNumber {
        var text = random.chance(0.3) ? "-" : ""
        text += random.chance(0.2) ? "0" : String(Int.random(in: 1...9, using: &random)) + digits(0...20)
        if random.chance(0.3) { text += "." + digits(1...8) }
        if random.chance(0.2) {
            text += random.pick(["e", "E"]) + random.pick(["", "+", "-"]) + digits(1...3)
        }
        return JSONNumber(text: text)
    }

    mutating func string() -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...12, using: &random) {
            let value: UInt32 =
                switch Int.random(in: 0..<10, using: &random) {
                case 0: random.pick([0x22, 0x5C, 0x2F, 0x00, 0x0A, 0x1F, 0x7F])
                case 1: UInt32.random(in: 0x80...0x7FF, using: &random)
                case 2: random.pick([0x800, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x20AC])
                case 3: UInt32.random(in: 0x10000...0x10FFFF, using: &random)
                default: UInt32.random(in: 0x20...0x7E, using: &random)
                }
            scalars.append(Unicode.Scalar(value)!)
        }
        return String(scalars)
    }

    private mutating func digits(_ count: ClosedRange<Int>) -> String {
        String((0..<Int.random(in: count, using: &random)).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
    }
}

/// Reads every element of a stream, the error that stopped it if any.
func readAll(_ stream: JSONArrayStream) -> (elements: [JSONValue], error: JSONError?) {
    var elements: [JSONValue] = []
    do {
        while let (index, value) = try stream.next() {
            precondition(index == elements.count, "indices count up from 0")
            elements.append(value)
        }
        return (elements, nil)
    } catch {
        return (elements, error)
    }
}

/// A scratch folder for stream files, removed when released.
final class JSONScratchFolder {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("json-tests-\(UUID().uuidString)")
    private var fileCount = 0

    init() {
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// A new file holding `bytes`.
    func file(_ bytes: [UInt8]) throws -> URL {
        fileCount += 1
        let file = url.appendingPathComponent("\(fileCount).json")
        try Data(bytes).write(to: file)
        return file
    }

    /// The stream over `bytes` read from a file `chunkSize` bytes at a time.
    func stream(_ bytes: [UInt8], chunkSize: Int, reader: JSONReader = JSONReader()) throws -> JSONArrayStream {
        try JSONArrayStream(contentsOf: file(bytes), reader: reader, chunkSize: chunkSize)
    }
}

extension JSONValue {
    /// The same tree with numbers spelled by value (an `Int64`, else the nearest
    /// `Double`), for values that went through JSONSerialization, which keeps integers
    /// exact and turns every other number into a `Double` (`1e2` becomes `100.0`).
    func numbersNormalized() -> JSONValue {
        switch self {
        case .number(let number):
            if let integer = number.int64Value { return .number(JSONNumber(text: String(integer))) }
            let double = number.doubleValue ?? .nan
            if double == double.rounded(), abs(double) < 0x1p63 { return .number(JSONNumber(text: String(Int64(double)))) }
            return .number(JSONNumber(text: "\(double)"))
        case .array(let elements): return .array(elements.map { $0.numbersNormalized() })
        case .object(let object):
            return .object(JSONObject(object.order.map { ($0, object.members[$0]!.numbersNormalized()) }))
        default: return self
        }
    }
}

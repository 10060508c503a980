import Foundation
@testable import MagicalRecord

/// Shared by the libFuzzer target (Fuzz/) and the corpus replay in `make test`.
///
/// Arbitrary bytes, read strictly and leniently (trailing commas, depth 8): the reader
/// throws an error located inside the input, or reads a value that reads back equal once
/// written; and a stream over the same bytes, from memory and from a pipe in small chunks,
/// gives the same elements or the same error as reading the whole document, as does one
/// read in runs with objects in place (as an import plans records), giving up now and then.
func fuzzJSONReader(_ bytes: UnsafeRawBufferPointer) {
    let size = bytes.count
    for reader in [JSONReader(), JSONReader(allowsTrailingCommas: true, maximumDepth: 8)] {
        let expected: (elements: [JSONValue], error: JSONError?)
        // Names read afresh every time: the names matched in place must read the same.
        var afresh = reader
        afresh.matchesRepeatedNames = false
        let readAfresh = Result { () throws(JSONError) in try afresh.read(bytes) }
        do {
            let value = try reader.read(bytes)
            precondition((try? readAfresh.get()) == value, "names matched in place read differently")
            precondition((try? reader.read(write(value))) == value, "written value reads back different")
            expected = streamOutcome(of: bytes, whole: .success(value))
        } catch {
            precondition((0...size).contains(error.offset ?? -1), "error outside the input: \(error)")
            guard case .failure(let other) = readAfresh, other == error else { preconditionFailure("names matched in place fail differently") }
            expected = streamOutcome(of: bytes, whole: .failure(error))
        }
        let fromData = readAll(JSONArrayStream(data: Data(bytes), reader: reader))
        var streams = [fromData, readInPlace(JSONArrayStream(data: Data(bytes), reader: reader), run: 1 + size % 7)]
        // Chunks of 1 to 61 bytes by input size: every split point gets tried across the
        // corpus, at a fifth of the read calls of chunks under 8 bytes.
        if size <= 60_000 { streams.append(readAll(pipeStream(bytes, chunkSize: 1 + size % 61, reader: reader))) }
        for streamed in streams {
            precondition(streamed.error == expected.error, "stream error \(String(describing: streamed.error)), whole \(String(describing: expected.error))")
            if expected.error == nil { precondition(streamed.elements == expected.elements, "stream elements differ") }
        }
    }
}

/// What a stream must give: the array's elements, or the object alone, or the whole
/// document's error; any other top-level value is an error at its first byte.
private func streamOutcome(of bytes: UnsafeRawBufferPointer, whole: Result<JSONValue, JSONError>) -> (elements: [JSONValue], error: JSONError?) {
    guard let start = bytes.firstIndex(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else {
        return ([], JSONError(.unexpectedEnd(expected: .arrayOrObject), offset: bytes.count))
    }
    guard bytes[start] == UInt8(ascii: "[") || bytes[start] == UInt8(ascii: "{") else {
        return ([], JSONError(.unexpectedCharacter(bytes[start], expected: .arrayOrObject), offset: start))
    }
    switch whole {
    case .success(.array(let elements)): return (elements, nil)
    case .success(let object): return ([object], nil)
    case .failure(let error): return ([], error)
    }
}

private func readAll(_ stream: JSONArrayStream) -> (elements: [JSONValue], error: JSONError?) {
    var elements: [JSONValue] = []
    do {
        while let (index, value) = try stream.next() {
            precondition(index == elements.count, "indices count up from 0")
            elements.append(value)
        }
        // Finished streams stay finished.
        precondition((try? stream.next()) == nil, "a value after the end")
        return (elements, nil)
    } catch {
        return (elements, error)
    }
}

/// `stream` read in runs of `run` elements, objects whose names repeat taken in place and
/// rebuilt; every fifth element given up at once (the run is read again one at a time).
private func readInPlace(_ stream: JSONArrayStream, run: Int) -> (elements: [JSONValue], error: JSONError?) {
    var elements: [JSONValue] = []
    var gaveUp: Set<Int> = []
    do {
        while true {
            let before = elements.count
            let take = { (index: Int, value: JSONValue) -> Bool in
                precondition(index == elements.count, "indices count up from 0")
                guard index % 5 != 4 || gaveUp.contains(index) else {
                    gaveUp.insert(index)
                    return false
                }
                elements.append(value)
                return true
            }
            let read = try stream.next(upTo: run) { index, object in
                take(index, .object(JSONObject(names: object.names, values: Array(object.values))))
            } built: { index, value in
                take(index, value)
            }
            guard let read else {
                elements.removeSubrange(before...)
                guard let (index, value) = try stream.next() else { break }
                precondition(index == elements.count, "a run given up starts again where it began")
                elements.append(value)
                continue
            }
            if read == 0 { break }
        }
        return (elements, nil)
    } catch {
        return (elements, error)
    }
}

/// A stream reading `bytes` through a pipe, written whole first: only for inputs below a
/// pipe's capacity (64 KiB). The pipe closes its ends when released.
private func pipeStream(_ bytes: UnsafeRawBufferPointer, chunkSize: Int, reader: JSONReader) -> JSONArrayStream {
    let pipe = Pipe()
    pipe.fileHandleForWriting.write(Data(bytes))
    try? pipe.fileHandleForWriting.close()
    return JSONArrayStream(fileHandle: pipe.fileHandleForReading, closesWhenDone: false, reader: reader, chunkSize: chunkSize)
}

/// Compact JSON text for `value`.
private func write(_ value: JSONValue) -> [UInt8] {
    var text = ""
    func append(_ value: JSONValue) {
        switch value {
        case .null: text += "null"
        case .bool(let flag): text += flag ? "true" : "false"
        case .number(let number): text += number.text
        case .string(let string): appendString(string)
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += "," }
                append(element)
            }
            text += "]"
        case .object(let object):
            text += "{"
            for (index, name) in object.order.enumerated() {
                if index > 0 { text += "," }
                appendString(name)
                text += ":"
                append(object.members[name] ?? .null)
            }
            text += "}"
        }
    }
    func appendString(_ string: String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
    append(value)
    return Array(text.utf8)
}

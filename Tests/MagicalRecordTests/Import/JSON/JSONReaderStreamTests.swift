import Foundation
import Testing
@testable import MagicalRecord

/// JSONArrayStream: the same elements and errors as reading the whole document, whatever
/// the chunk size, within a buffer no bigger than an element plus a chunk.
struct JSONReaderStreamTests {
    @Test func yieldsElementsWithTheirIndices() throws {
        let stream = JSONArrayStream(data: Data(#" [1, {"a": 2}, "x", [], null] "#.utf8))
        var seen: [Int] = []
        var values: [JSONValue] = []
        try stream.forEach { index, value in
            seen.append(index)
            values.append(value)
        }
        #expect(seen == [0, 1, 2, 3, 4])
        #expect(values == [1, ["a": 2], "x", [], nil])
        #expect(try stream.next() == nil)
    }

    @Test func emptyArrayAndTopLevelObject() throws {
        #expect(readAll(JSONArrayStream(data: Data("[ ]\n".utf8))).elements.isEmpty)
        let object = readAll(JSONArrayStream(data: Data(#"{"a": [1, 2]} "#.utf8)))
        #expect(object.elements == [["a": [1, 2]]])
        #expect(object.error == nil)
    }

    @Test func otherTopLevelValuesAreErrors() {
        #expect(readAll(JSONArrayStream(data: Data("  5".utf8))).error
            == JSONError(.unexpectedCharacter(UInt8(ascii: "5"), expected: .arrayOrObject), offset: 2))
        #expect(readAll(JSONArrayStream(data: Data(" \n".utf8))).error == JSONError(.unexpectedEnd(expected: .arrayOrObject), offset: 2))
    }

    /// Elements before a problem are returned; the error then repeats.
    @Test func errorsComeAfterTheGoodElementsAndStay() throws {
        let folder = JSONScratchFolder()
        for stream in [JSONArrayStream(data: Data("[1, 2, x]".utf8)), try folder.stream(Array("[1, 2, x]".utf8), chunkSize: 2)] {
            #expect(try stream.next()?.value == 1)
            #expect(try stream.next()?.value == 2)
            let error = JSONError(.unexpectedCharacter(UInt8(ascii: "x"), expected: .value), offset: 7)
            #expect(throws: error) { try stream.next() }
            #expect(throws: error) { try stream.next() }
        }
        let after = readAll(try folder.stream(Array("[1] \n x".utf8), chunkSize: 3))
        #expect(after.elements == [1])
        #expect(after.error == JSONError(.unexpectedCharacter(UInt8(ascii: "x"), expected: .endOfInput), offset: 6))
    }

    /// The fixture with trailing commas, from its file: rejected at the comma's offset in
    /// strict mode, read in lenient mode, with chunks that split it everywhere.
    @Test func magicalRecordFixtureFromItsFile() throws {
        let url = JSONReaderTests.fixture("MultipleEntitiesWithNoPrimaryKey.json")
        let record: JSONValue = ["stringTestAttribute": "This is a test value"]
        for chunkSize in [1, 7, 64, JSONArrayStream.defaultChunkSize] {
            let strict = readAll(try JSONArrayStream(contentsOf: url, reader: JSONReader(), chunkSize: chunkSize))
            #expect(strict.elements.isEmpty)
            #expect(strict.error == JSONError(.trailingComma, offset: 61))
            let lenient = readAll(try JSONArrayStream(contentsOf: url, reader: JSONReader(allowsTrailingCommas: true), chunkSize: chunkSize))
            #expect(lenient.elements == [record, record, record, record])
            #expect(lenient.error == nil)
        }
        #expect(throws: JSONError.self) { try JSONArrayStream(contentsOf: url.appendingPathExtension("missing")) }
    }

    /// Random arrays from files in chunks of 1 to 40 bytes: elements straddle chunk
    /// boundaries everywhere, and come out as whole-document reading gives them.
    @Test func chunkedFilesMatchWholeDocuments() throws {
        let folder = JSONScratchFolder()
        var random = RandomJSON(seed: 0x5354_524D)
        for round in 0..<(60 * testScale) {
            let elements = (0..<Int.random(in: 0...12, using: &random.random)).map { _ in random.value(depth: 3) }
            var writer = JSONTestWriter(random: random.random, trailingCommas: round % 3 == 0)
            let bytes = Array(writer.write(.array(elements)).utf8)
            random.random = writer.random!
            let reader = JSONReader(allowsTrailingCommas: round % 3 == 0)
            let chunkSize = Int.random(in: 1...40, using: &random.random)
            let streamed = readAll(try folder.stream(bytes, chunkSize: chunkSize, reader: reader))
            #expect(streamed.error == nil)
            #expect(streamed.elements == elements, "round \(round), chunks of \(chunkSize)")
            #expect(readAll(JSONArrayStream(data: Data(bytes), reader: reader)).elements == elements)
        }
    }

    /// Reading in runs (`next(upTo:)`, as an import reads its batches) gives the elements,
    /// indices, errors and offsets that reading one at a time gives, in memory and from
    /// files, for arrays with and without a bad byte somewhere.
    @Test func runsMatchOneAtATime() throws {
        let folder = JSONScratchFolder()
        var random = RandomJSON(seed: 0x5255_4E53)
        for round in 0..<(60 * testScale) {
            let elements = (0..<Int.random(in: 0...12, using: &random.random)).map { _ in random.value(depth: 2) }
            var writer = JSONTestWriter(random: random.random, trailingCommas: false)
            var bytes = Array(writer.write(round % 7 == 0 ? elements.first ?? .null : .array(elements)).utf8)
            random.random = writer.random!
            if round % 3 == 0, !bytes.isEmpty { bytes[Int.random(in: 0..<bytes.count, using: &random.random)] = UInt8(ascii: "#") }
            let runLength = Int.random(in: 1...5, using: &random.random)
            let chunkSize = Int.random(in: 1...40, using: &random.random)
            let makers: [() throws -> JSONArrayStream] = [{ JSONArrayStream(data: Data(bytes)) }, { try folder.stream(bytes, chunkSize: chunkSize) }]
            for makeStream in makers {
                let single = try makeStream()
                let expected = readAll(single)
                let stream = try makeStream()
                let runs = readInRuns(stream, of: runLength)
                #expect(runs.elements == expected.elements, "round \(round)")
                #expect(runs.error == expected.error, "round \(round)")
                #expect(stream.offset == single.offset, "round \(round)")
                // Finished or failed, it stays so.
                #expect((try? stream.next(upTo: runLength) { _ in }) == (expected.error == nil ? 0 : nil))
            }
        }
    }

    /// Read in place (`next(upTo:inPlace:built:)`), an object whose names repeat the
    /// object before's comes unbuilt, with the members the built one has; every other
    /// element comes built. Giving up puts the stream back where the run began; files and a
    /// top-level object are not read so (nil), and errors are those of reading one at a time.
    @Test func objectsReadInPlaceMatchBuiltOnes() throws {
        var random = RandomJSON(seed: 0x504C_4143)
        for round in 0..<(60 * testScale) {
            // Records of a few shapes, so that names repeat, among other values.
            let shapes: [[String]] = [["id", "name"], ["id", "name", "tags"], ["a"]]
            let elements: [JSONValue] = (0..<Int.random(in: 0...12, using: &random.random)).map { _ in
                guard Int.random(in: 0..<5, using: &random.random) > 0 else { return random.value(depth: 2) }
                let shape = shapes[Int.random(in: 0..<shapes.count, using: &random.random)]
                return .object(JSONObject(shape.map { ($0, random.value(depth: 1)) }))
            }
            var bytes = Array(JSONTestWriter.compact(.array(elements)).utf8)
            if round % 5 == 0, !bytes.isEmpty { bytes[Int.random(in: 0..<bytes.count, using: &random.random)] = UInt8(ascii: "#") }
            let expected = readAll(JSONArrayStream(data: Data(bytes)))
            let stream = JSONArrayStream(data: Data(bytes))
            var read: [JSONValue] = []
            let giveUpAt = round % 3 == 0 ? Int.random(in: 0...12, using: &random.random) : nil
            var failure: JSONError?
            do {
                while true {
                    let before = read.count
                    let run = try stream.next(upTo: Int.random(in: 1...5, using: &random.random)) { index, object in
                        guard index != giveUpAt else { return false }
                        #expect(index == read.count)
                        read.append(.object(JSONObject(names: object.names, values: Array(object.values))))
                        return true
                    } built: { index, value in
                        guard index != giveUpAt else { return false }
                        #expect(index == read.count)
                        read.append(value)
                        return true
                    }
                    guard let run else {
                        // Given up: the run's elements are read again, one at a time.
                        read.removeSubrange(before...)
                        while let (index, value) = try stream.next() {
                            #expect(index == read.count)
                            read.append(value)
                        }
                        break
                    }
                    if run == 0 { break }
                }
            } catch {
                failure = error
            }
            #expect(read == expected.elements, "round \(round)")
            #expect(failure == expected.error, "round \(round)")
        }
        var inPlace: [Int] = []
        let records = JSONArrayStream(data: Data(#"[{"a": 1, "b": [2]}, {"a": 3, "b": []}, 4, {"a": 5, "b": {}}]"#.utf8))
        #expect(try records.next(upTo: 10, inPlace: { index, object in
            inPlace.append(index)
            return object.names.names == ["a", "b"] && object.values.count == 2
        }, built: { _, _ in true }) == 4)
        #expect(inPlace == [1, 3], "the first object is built, and names its members for those after it")
        let folder = JSONScratchFolder()
        #expect(try folder.stream(Array("[1, 2]".utf8), chunkSize: 4).next(upTo: 2, inPlace: { _, _ in true }, built: { _, _ in true }) == nil)
        let object = JSONArrayStream(data: Data(#"{"a": 1}"#.utf8))
        #expect(try object.next(upTo: 2, inPlace: { _, _ in true }, built: { _, _ in true }) == nil)
        #expect(try object.next()?.value == ["a": 1])
    }

    /// The buffer holds the element being read plus at most a chunk, never the file.
    @Test func memoryIsBoundedByTheLargestElementPlusAChunk() throws {
        let folder = JSONScratchFolder()
        var random = RandomJSON(seed: 0x4D45_4D)
        var elements: [JSONValue] = (0..<2000).map { _ in random.value(depth: 3) }
        elements.insert(.string(String(repeating: "large ", count: 200)), at: 1000)
        let texts = elements.map(JSONTestWriter.compact)
        let bytes = Array(("[" + texts.joined(separator: ",\n") + "]").utf8)
        let largest = texts.map(\.utf8.count).max()!
        let chunkSize = 256
        let stream = try folder.stream(bytes, chunkSize: chunkSize)
        var mostBuffered = 0
        var read: [JSONValue] = []
        while let (_, value) = try stream.next() {
            read.append(value)
            mostBuffered = max(mostBuffered, stream.bufferedByteCount)
        }
        #expect(read == elements)
        #expect(bytes.count > 10 * (largest + chunkSize))
        #expect(mostBuffered <= largest + chunkSize + 4)
    }

    /// Standard input is a pipe: short reads, and a writer that blocks until read.
    @Test func readsFromAPipeAsFromStandardInput() throws {
        var random = RandomJSON(seed: 0x5049_5045)
        let elements = (0..<3000).map { _ in random.value(depth: 3) }
        let bytes = Data(JSONTestWriter.compact(.array(elements)).utf8)
        #expect(bytes.count > 65536)
        let pipe = Pipe()
        let writer = pipe.fileHandleForWriting
        let thread = Thread {
            writer.write(bytes)
            try? writer.close()
        }
        thread.start()
        let streamed = readAll(JSONArrayStream(fileHandle: pipe.fileHandleForReading))
        #expect(streamed.error == nil)
        #expect(streamed.elements == elements)
    }

    /// Offsets count from the start of the stream, whatever was dropped from the buffer.
    @Test func offsetsAreAbsolute() throws {
        let folder = JSONScratchFolder()
        let prefix = "[" + String(repeating: #""padding", "#, count: 500)
        let bytes = Array((prefix + #""bad \q"]"#).utf8)
        let expected = JSONError(.invalidEscape(UInt8(ascii: "q")), offset: prefix.utf8.count + 5)
        for chunkSize in [1, 10, 100, 4096] {
            let streamed = readAll(try folder.stream(bytes, chunkSize: chunkSize))
            #expect(streamed.elements.count == 500)
            #expect(streamed.error == expected)
        }
        #expect(throws: expected) { try JSONReader().read(bytes) }
        let deep = Array(("[" + String(repeating: "[", count: 600)).utf8)
        #expect(readAll(try folder.stream(deep, chunkSize: 16)).error == JSONError(.nestingTooDeep(limit: 512), offset: 512))
    }
}

/// Reads `stream` in runs of `length` elements, checking each run's count and indices.
private func readInRuns(_ stream: JSONArrayStream, of length: Int) -> (elements: [JSONValue], error: JSONError?) {
    var elements: [JSONValue] = []
    do {
        while true {
            let before = elements.count
            let read = try stream.next(upTo: length) { index, value in
                precondition(index == elements.count, "indices count up from 0")
                elements.append(value)
            }
            precondition(read == elements.count - before && read <= length, "a run counts what it handed over")
            if read == 0 { return (elements, nil) }
        }
    } catch {
        return (elements, error)
    }
}

import Foundation

/// Reads a top-level JSON array one element at a time, from a file, standard input or
/// `Data`, so an import of millions of records never holds the whole document.
///
/// ```swift
/// let stream = try JSONArrayStream(contentsOf: url)
/// while let (index, value) = try stream.next() {
///     try importRecord(value, at: index)
/// }
/// // or: try JSONArrayStream(fileHandle: .standardInput).forEach { index, value in ... }
/// ```
///
/// A top-level object is read as the single element 0, as `importFromObject:` takes
/// one object; any other top-level value is an error (`expected '[' or '{'`).
///
/// **Errors.** The same rules, options and errors as ``JSONReader``, with offsets counted
/// from the start of the stream: an element that reads fine is returned before any
/// problem after it is found, and once `next()` has thrown it throws the same error
/// again. Bytes after the array are checked (only whitespace) before `next()` returns nil.
///
/// **Memory.** Files and handles are read in chunks (1 MiB); bytes are dropped once
/// their element is returned, so the buffer holds at most the largest element plus a
/// chunk. `Data` is read in place.
///
/// **Why not `Sequence`.** `IteratorProtocol.next()` cannot throw, and a stream must be
/// able to fail halfway, so `next()` is a throwing method of the stream itself;
/// ``forEach(_:)`` covers the common loop.
///
/// **Threads.** Not `Sendable`: use a stream from one thread or task at a time.
/// A stream opened from a URL closes its file when it finishes, fails, or is released;
/// one given a `FileHandle` leaves closing it to the caller.
public final class JSONArrayStream {
    public typealias Element = (index: Int, value: JSONValue)

    static let defaultChunkSize = 1 << 20

    private enum Source {
        case data(Data)
        case file(FileHandle, closesWhenDone: Bool)
    }

    private enum State {
        case start
        case firstElement
        case nextElement
        case endOfInput
        case finished
        case failed(JSONError)

        /// Whether the next step reads an element: then whether it is the first.
        var readsAnElement: Bool? {
            switch self {
            case .firstElement: true
            case .nextElement: false
            default: nil
            }
        }
    }

    private var source: Source
    private let chunkSize: Int
    private var parser: JSONParser
    private var state = State.start
    private var nextIndex = 0
    /// The bytes read from a file and not yet consumed; `buffer[0]` is at `bufferBase`.
    private var buffer: [UInt8] = []
    private var bufferBase = 0
    private var reachedEndOfFile = false

    /// The offset of the next byte to read, from the start of the stream: after a
    /// successful `next()`, the end of the element returned (for progress reports).
    public private(set) var offset = 0

    /// Streams the file at `url`, reading it in chunks.
    public convenience init(contentsOf url: URL, reader: JSONReader = JSONReader()) throws(JSONError) {
        try self.init(contentsOf: url, reader: reader, chunkSize: Self.defaultChunkSize)
    }

    /// Streams what `fileHandle` reads from its current position to its end, such as
    /// `FileHandle.standardInput`. The handle stays open.
    public convenience init(fileHandle: FileHandle, reader: JSONReader = JSONReader()) {
        self.init(fileHandle: fileHandle, closesWhenDone: false, reader: reader, chunkSize: Self.defaultChunkSize)
    }

    /// Streams the elements of a document already in memory, without copying it.
    public init(data: Data, reader: JSONReader = JSONReader()) {
        source = .data(data)
        chunkSize = Self.defaultChunkSize
        parser = JSONParser(reader)
    }

    /// `chunkSize` is for tests, which use tiny chunks to make elements straddle them.
    convenience init(contentsOf url: URL, reader: JSONReader, chunkSize: Int) throws(JSONError) {
        let fileHandle: FileHandle
        do {
            fileHandle = try FileHandle(forReadingFrom: url)
        } catch {
            throw JSONError(.readFailed("cannot open \(url.path): \(error.localizedDescription)"), offset: nil)
        }
        self.init(fileHandle: fileHandle, closesWhenDone: true, reader: reader, chunkSize: chunkSize)
    }

    init(fileHandle: FileHandle, closesWhenDone: Bool, reader: JSONReader, chunkSize: Int) {
        source = .file(fileHandle, closesWhenDone: closesWhenDone)
        self.chunkSize = max(1, chunkSize)
        parser = JSONParser(reader)
    }

    /// How many bytes the stream holds now (tests check the memory bound with it).
    var bufferedByteCount: Int { buffer.count }

    deinit {
        closeFile()
    }

    /// The next element and its index, or nil after the last one.
    public func next() throws(JSONError) -> Element? {
        do {
            return try step()
        } catch {
            state = .failed(error)
            release()
            throw error
        }
    }

    /// Reads up to `count` elements, handing each to `body` in order; returns how many, 0
    /// after the last one. Errors as ``next()``: `body` has every element before the
    /// problem first. A document in memory is read in one pass of the parser: element by
    /// element, the stream's state, offset and parser (properties of a class) cost a checked
    /// access each, some 2% of an import's reading thread.
    func next(upTo count: Int, _ body: (Element) -> Void) throws(JSONError) -> Int {
        var read = 0
        do {
            while read < count {
                if case .data = source, let isFirst = state.readsAnElement {
                    read += try readInOnePass(upTo: count - read, isFirst: isFirst, readsInPlace: false, inPlace: { _, _ in true }) { index, value in
                        body((index, value))
                        return true
                    }.read
                    continue
                }
                guard let element = try step() else { break }
                body(element)
                read += 1
            }
        } catch {
            state = .failed(error)
            release()
            throw error
        }
        return read
    }

    /// ``next(upTo:_:)`` for an import that plans records straight from the bytes: an object
    /// whose member names repeat those of an object read before (the records of an array)
    /// goes to `inPlace` unbuilt, valid during the call only; any other element goes to
    /// `built`. Either returns false to give the run up: the stream is then back where this
    /// call found it (the elements can be read again as values), and nil is returned. Nil
    /// at once, too, where the elements could not be read again: from a file (its bytes
    /// are dropped as they are read), and for a top-level object.
    /// `unbuiltStrings`: see ``JSONParser/parseValue(depth:inPlace:unbuiltStrings:)``.
    func next(
        upTo count: Int, inPlace: (Int, JSONObjectView) -> Bool, built: (Int, JSONValue) -> Bool,
        unbuiltStrings: (JSONMemberNames) -> [Bool] = { _ in [] }
    ) throws(JSONError) -> Int? {
        guard case .data = source else { return nil }
        let start = (offset: offset, nextIndex: nextIndex, state: state)
        var read = 0
        do {
            while read < count {
                if let isFirst = state.readsAnElement {
                    let run = try readInOnePass(
                        upTo: count - read, isFirst: isFirst, readsInPlace: true, inPlace: inPlace, built: built, unbuiltStrings: unbuiltStrings
                    )
                    read += run.read
                    if run.gaveUp {
                        (offset, nextIndex, state) = start
                        return nil
                    }
                } else if case .start = state {
                    guard try openTopLevelArray() else {
                        (offset, nextIndex, state) = start
                        return nil
                    }
                } else {
                    // At the end (or failed): the checks `next()` makes there.
                    _ = try step()
                    break
                }
            }
        } catch {
            state = .failed(error)
            release()
            throw error
        }
        return read
    }

    /// Calls `body` with each remaining element in order; throws the first error, the
    /// stream's or `body`'s.
    public func forEach(_ body: (_ index: Int, _ value: JSONValue) throws -> Void) throws {
        while let (index, value) = try next() {
            try body(index, value)
        }
    }

    private func step() throws(JSONError) -> Element? {
        while true {
            switch state {
            case .failed(let error):
                throw error
            case .finished:
                return nil
            case .start:
                guard try !openTopLevelArray() else { continue }
                try fill(.element(isFirst: true))
                let object = try withParser { parser throws(JSONError) in try parser.parseValue(depth: 0) }
                state = .endOfInput
                return yield(object)
            case .firstElement, .nextElement:
                let isFirst = if case .firstElement = state { true } else { false }
                try fill(.element(isFirst: isFirst))
                let element = try withParser { parser throws(JSONError) -> JSONValue? in
                    guard try isFirst ? parser.beginArray() : parser.continueArray() else { return nil }
                    return try parser.parseValue(depth: 1)
                }
                guard let element else {
                    state = .endOfInput
                    continue
                }
                state = .nextElement
                return yield(element)
            case .endOfInput:
                // Only whitespace to the end, a chunk at a time.
                while true {
                    try withParser { parser throws(JSONError) in try parser.expectEndOfInput() }
                    guard case .file = source, !reachedEndOfFile else { break }
                    try readChunk()
                }
                state = .finished
                release()
                return nil
            }
        }
    }

    /// At the start: reads up to the top-level value, and past its `[` when it is an array
    /// (true); a top-level object is left to be read as the one element (false).
    private func openTopLevelArray() throws(JSONError) -> Bool {
        try fill(.firstNonWhitespace)
        let first = try withParser { parser throws(JSONError) in
            parser.skipWhitespace()
            guard parser.position < parser.input.count,
                [UInt8(ascii: "["), UInt8(ascii: "{")].contains(parser.input[parser.position])
            else { throw parser.unexpected(.arrayOrObject) }
            return parser.input[parser.position]
        }
        guard first == UInt8(ascii: "[") else { return false }
        guard parser.maximumDepth > 0 else { throw JSONError(.nestingTooDeep(limit: parser.maximumDepth), offset: offset) }
        offset += 1
        state = .firstElement
        return true
    }

    /// Parses elements of an in-memory document until `count` of them, the array's end, or
    /// an element `inPlace` or `built` (see ``next(upTo:inPlace:built:)``) gives up at;
    /// returns how many they took, and whether one gave up (the stream is then past it).
    /// Unless `readsInPlace`, every element is built.
    private func readInOnePass(
        upTo count: Int, isFirst: Bool, readsInPlace: Bool, inPlace: (Int, JSONObjectView) -> Bool, built: (Int, JSONValue) -> Bool,
        unbuiltStrings: (JSONMemberNames) -> [Bool] = { _ in [] }
    ) throws(JSONError) -> (read: Int, gaveUp: Bool) {
        let firstIndex = nextIndex
        var read = 0
        var reachedEnd = false
        var gaveUp = false
        defer {
            nextIndex = firstIndex + read
            if reachedEnd { state = .endOfInput } else if read > 0 { state = .nextElement }
        }
        try withParser { parser throws(JSONError) in
            while read < count {
                guard try read == 0 && isFirst ? parser.beginArray() : parser.continueArray() else {
                    reachedEnd = true
                    return
                }
                let index = firstIndex + read
                var taken = true
                if readsInPlace {
                    if let value = try parser.parseValue(depth: 1, inPlace: { taken = inPlace(index, $0) }, unbuiltStrings: unbuiltStrings) {
                        taken = built(index, value)
                    }
                } else {
                    taken = built(index, try parser.parseValue(depth: 1))
                }
                guard taken else {
                    gaveUp = true
                    return
                }
                read += 1
            }
        }
        return (read, gaveUp)
    }

    private func yield(_ value: JSONValue) -> Element {
        defer { nextIndex += 1 }
        return (nextIndex, value)
    }

    // MARK: Input

    /// Runs `body` on a parser attached to the bytes at hand, positioned at `offset`.
    private func withParser<Result>(_ body: (inout JSONParser) throws(JSONError) -> Result) throws(JSONError) -> Result {
        let outcome: Swift.Result<Result, JSONError>
        switch source {
        case .data(let data):
            outcome = data.withUnsafeBytes { bytes in run(body, on: bytes, base: 0) }
        case .file:
            outcome = buffer.withUnsafeBytes { bytes in run(body, on: bytes, base: bufferBase) }
        }
        return try outcome.get()
    }

    private func run<Result>(
        _ body: (inout JSONParser) throws(JSONError) -> Result, on bytes: UnsafeRawBufferPointer, base: Int
    ) -> Swift.Result<Result, JSONError> {
        parser.attach(bytes, base: base, position: offset - base)
        defer { offset = base + parser.position }
        return Swift.Result { () throws(JSONError) in try body(&parser) }
    }

    /// Reads chunks until the scanner says the parser's next step has what it needs, or
    /// the file ends.
    private func fill(_ goal: JSONElementScanner.Goal) throws(JSONError) {
        guard case .file = source else { return }
        var scanner = JSONElementScanner(goal, maximumDepth: parser.maximumDepth)
        var scanned = offset - bufferBase
        while !buffer.withUnsafeBufferPointer({ scanner.scan($0, from: &scanned) }), !reachedEndOfFile {
            let dropped = offset - bufferBase
            try readChunk()
            scanned -= dropped
        }
    }

    /// Drops the bytes before `offset`, then appends up to a chunk from the file.
    private func readChunk() throws(JSONError) {
        guard case .file(let fileHandle, _) = source else { return }
        buffer.removeFirst(offset - bufferBase)
        bufferBase = offset
        let chunk: Data?
        do {
            chunk = try fileHandle.read(upToCount: chunkSize)
        } catch {
            throw JSONError(.readFailed(error.localizedDescription), offset: bufferBase + buffer.count)
        }
        guard let chunk, !chunk.isEmpty else {
            reachedEndOfFile = true
            return
        }
        buffer.append(contentsOf: chunk)
    }

    /// Frees the buffer and closes a file the stream opened, once it is no longer needed.
    private func release() {
        buffer = []
        bufferBase = offset
        closeFile()
        if case .data = source { source = .data(Data()) }
    }

    private func closeFile() {
        guard case .file(let fileHandle, let closesWhenDone) = source, closesWhenDone else { return }
        try? fileHandle.close()
        source = .file(fileHandle, closesWhenDone: false)
    }
}

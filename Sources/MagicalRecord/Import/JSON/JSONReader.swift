import Foundation

/// Reads JSON text (RFC 8259) into ``JSONValue``s, for MagicalRecord's import (issue 4).
///
/// ```swift
/// let people = try JSONReader().read(Data(contentsOf: url))
/// let lenient = try JSONReader(allowsTrailingCommas: true).read(bytes)
/// ```
///
/// Strict by default: one value, optionally surrounded by whitespace (space, tab, line
/// feed, carriage return); strings are well-formed UTF-8 with control characters
/// escaped and surrogate escapes in pairs; numbers as the grammar writes them (no leading
/// zeros, no `+`, no `.5` or `1.`); no comments; no byte order mark. Any departure throws
/// a ``JSONError`` with the byte offset of the problem. Objects keep the last value of a
/// repeated name (``JSONObject``), and numbers keep their literal text (``JSONNumber``).
///
/// One pass over the bytes, without Foundation's parsers: strings without escapes become
/// `String`s straight from the input, and containers are built once, at their size, from
/// a scratch stack. Nesting is tracked on that stack, not the call stack, so deep
/// documents end in ``JSONError/Reason/nestingTooDeep(limit:)``, never a stack overflow.
/// To read a big top-level array one element at a time, use ``JSONArrayStream``.
///
/// A reader is a value holding only its options: share it freely across threads.
public struct JSONReader: Sendable {
    /// Accept one comma before a closing `]` or `}` (`[1,2,]`, `{"a":1,}`), as some
    /// hand-written files have (MagicalRecord's own MultipleEntitiesWithNoPrimaryKey.json).
    /// Off by default: the comma is then a ``JSONError/Reason/trailingComma`` error.
    public var allowsTrailingCommas: Bool
    /// The deepest nesting of arrays and objects accepted; `[[1]]` is depth 2.
    public var maximumDepth: Int

    public static let defaultMaximumDepth = 512

    /// Whether member names are matched in place against the previous object's (off only
    /// for tests and the fuzz target, which hold the two ways of reading to one answer).
    var matchesRepeatedNames = true

    public init(allowsTrailingCommas: Bool = false, maximumDepth: Int = JSONReader.defaultMaximumDepth) {
        self.allowsTrailingCommas = allowsTrailingCommas
        self.maximumDepth = maximumDepth
    }

    /// The value `data` holds, which must be the whole document.
    public func read(_ data: Data) throws(JSONError) -> JSONValue {
        try data.withUnsafeBytes { raw in Result { () throws(JSONError) in try read(raw) } }.get()
    }

    /// The value `bytes` hold, which must be the whole document.
    public func read(_ bytes: [UInt8]) throws(JSONError) -> JSONValue {
        try bytes.withUnsafeBytes { raw in Result { () throws(JSONError) in try read(raw) } }.get()
    }

    /// The value `text` spells, read from its UTF-8 bytes.
    public func read(_ text: String) throws(JSONError) -> JSONValue {
        var text = text
        return try text.withUTF8 { bytes in Result { () throws(JSONError) in try read(UnsafeRawBufferPointer(bytes)) } }.get()
    }

    /// The value the bytes in `buffer` hold, which must be the whole document. The buffer
    /// is only read during the call.
    public func read(_ buffer: UnsafeRawBufferPointer) throws(JSONError) -> JSONValue {
        var parser = JSONParser(self)
        parser.attach(buffer, base: 0, position: 0)
        let value = try parser.parseValue(depth: 0)
        try parser.expectEndOfInput()
        return value
    }
}

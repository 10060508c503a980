import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a model `contents` file may hold before Foundation's XMLParser (libxml2) sees it.
/// Xcode writes UTF-8 with one XML declaration and no processing instructions or DTDs;
/// anything else is refused with a reason, because the parser crashes the process on some
/// of it instead of reporting an error: switching to another encoding, declared (UTF-7) or
/// guessed from NUL bytes (UCS-4), and a processing instruction without data (all found by
/// fuzzing; Fuzz/regressions/FuzzModelXML). Without a DTD no entity can expand either.
enum XMLScreening {
    /// Nil when `data` is UTF-8 text without NUL characters (XML allows none), whose XML
    /// declaration, if any, declares UTF-8 or no encoding, and which has no other processing
    /// instruction and no document type declaration; otherwise what is wrong.
    static func problem(in data: Data) -> String? {
        // Bytes, not String searches: Foundation's substring search took four fifths of
        // reading a model.
        let bytes = [UInt8](data)
        if let offset = bytes.firstIndex(of: 0) {
            return "byte \(offset) is NUL, which XML does not allow (model files are UTF-8 text)"
        }
        guard String(validating: bytes, as: UTF8.self) != nil else {
            return "the file is not UTF-8 text (model files are UTF-8)"
        }
        var rest = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        if bytes[rest...].starts(with: "<?xml".utf8), let end = offset(of: "?>", in: bytes, from: rest) {
            let declaration = String(decoding: bytes[rest..<end], as: UTF8.self)
            if let problem = encodingProblem(in: Substring(declaration)) { return problem }
            rest = end + 2
        }
        if offset(of: "<?", in: bytes, from: rest) != nil {
            return "it holds a processing instruction (<?...?>), which model files do not have"
        }
        if offset(of: "<!DOCTYPE", in: bytes, from: rest) != nil {
            return "it holds a document type declaration (<!DOCTYPE), which model files do not have"
        }
        return nil
    }

    /// Where `needle` first starts in `bytes` at or after `start`: libc's `memchr` finds
    /// each candidate first byte, `memcmp` checks the rest.
    private static func offset(of needle: StaticString, in bytes: [UInt8], from start: Int) -> Int? {
        let length = needle.utf8CodeUnitCount
        return bytes.withUnsafeBytes { haystack -> Int? in
            guard let base = haystack.baseAddress, length > 0 else { return nil }
            let first = Int32(needle.utf8Start.pointee)
            var position = start
            while position + length <= haystack.count {
                guard let found = memchr(base + position, first, haystack.count - length + 1 - position) else { return nil }
                let candidate = UnsafeRawPointer(found) - base
                if memcmp(found, needle.utf8Start, length) == 0 { return candidate }
                position = candidate + 1
            }
            return nil
        }
    }

    private static func encodingProblem(in declaration: Substring) -> String? {
        guard let name = declaration.range(of: "encoding") else { return nil }
        var value = declaration[name.upperBound...].drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard value.first == "=" else { return nil }
        value = value.dropFirst().drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let quote = value.first, quote == "\"" || quote == "'" else {
            return "the XML declaration's encoding is not quoted"
        }
        let encoding = value.dropFirst().prefix { $0 != quote }
        guard ["utf-8", "utf8"].contains(encoding.lowercased()) else {
            return "the XML declaration says encoding \"\(encoding)\": model files are UTF-8"
        }
        return nil
    }
}

import Foundation

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
        if let offset = data.firstIndex(of: 0) {
            return "byte \(offset - data.startIndex) is NUL, which XML does not allow (model files are UTF-8 text)"
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            return "the file is not UTF-8 text (model files are UTF-8)"
        }
        var rest = Substring(text)
        if rest.first == "\u{FEFF}" { rest = rest.dropFirst() }
        if rest.hasPrefix("<?xml"), let end = rest.range(of: "?>") {
            if let problem = encodingProblem(in: rest[rest.startIndex..<end.lowerBound]) { return problem }
            rest = rest[end.upperBound...]
        }
        if rest.contains("<?") { return "it holds a processing instruction (<?...?>), which model files do not have" }
        if rest.contains("<!DOCTYPE") { return "it holds a document type declaration (<!DOCTYPE), which model files do not have" }
        return nil
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

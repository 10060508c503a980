import Foundation

/// Model `contents` files are UTF-8 (Xcode writes nothing else). Anything else is refused
/// before libxml2 sees it: when it switches to another encoding, declared (UTF-7) or
/// guessed from NUL bytes (UCS-4), it crashes the process on damaged input instead of
/// reporting an error (both found by fuzzing; Fuzz/regressions/FuzzModelXML).
enum XMLDeclaration {
    /// Nil when `data` is UTF-8 text without NUL characters (XML allows none) whose XML
    /// declaration, if any, declares UTF-8 or no encoding; otherwise what is wrong.
    static func encodingProblem(in data: Data) -> String? {
        if let offset = data.firstIndex(of: 0) {
            return "byte \(offset - data.startIndex) is NUL, which XML does not allow (model files are UTF-8 text)"
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            return "the file is not UTF-8 text (model files are UTF-8)"
        }
        var rest = Substring(text)
        if rest.first == "\u{FEFF}" { rest = rest.dropFirst() }
        guard rest.hasPrefix("<?xml"), let end = rest.range(of: "?>") else { return nil }
        let declaration = rest[rest.startIndex..<end.lowerBound]
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

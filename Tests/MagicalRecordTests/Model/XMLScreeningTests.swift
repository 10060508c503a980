import Foundation
import Testing
@testable import MagicalRecord

/// What model files may hold: other encodings, processing instructions and DTDs are refused
/// with a typed error before libxml2, which crashed on some of them (Fuzz/regressions/FuzzModelXML).
@Suite struct XMLScreeningTests {
    private func read(_ bytes: [UInt8]) -> Result<[EntityDescription], ModelError> {
        Result { () throws(ModelError) in try XcodeContentsParser.entities(from: Data(bytes), source: "contents") }
    }

    private static let body = #"<model><entity name="A"><attribute name="x" attributeType="String"/></entity></model>"#

    @Test(arguments: [#"<?xml version="1.0" encoding="UTF-8"?>"#, #"<?xml version='1.0' encoding='utf-8'?>"#, #"<?xml version="1.0"?>"#, ""])
    func utf8AndUndeclaredEncodingsRead(declaration: String) throws {
        let entities = try read(Array((declaration + Self.body).utf8)).get()
        #expect(entities.map(\.name) == ["A"])
        #expect(try read([0xEF, 0xBB, 0xBF] + Array((declaration + Self.body).utf8)).get().count == 1)
    }

    @Test(arguments: ["UTF-7", "UTF-16", "ISO-8859-1", "EBCDIC-US"])
    func otherDeclaredEncodingsAreRefused(encoding: String) {
        guard case .failure(.unreadable(let source, let reason)) = read(Array((#"<?xml version="1.0" encoding="\#(encoding)"?>"# + Self.body).utf8)) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(source == "contents")
        #expect(reason.contains(encoding))
    }

    @Test func nulBytesAreRefusedBeforeLibxml2GuessesAnEncodingFromThem() {
        guard case .failure(.unreadable(_, let reason)) = read([0, 0, 0, 0x3C] + Array(Self.body.utf8)) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(reason.contains("byte 0 is NUL"))
    }

    @Test func bytesThatAreNotUTF8AreRefused() {
        // Latin-1 "é" (0xE9) in an entity name.
        let latin1 = Array(#"<model><entity name="Caf"#.utf8) + [0xE9] + Array(#""/></model>"#.utf8)
        guard case .failure(.unreadable(_, let reason)) = read(latin1) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(reason.contains("not UTF-8"))
    }

    @Test(arguments: ["<?x?>", "<?target some data?>", "<!DOCTYPE model [<!ENTITY a \"b\">]>"])
    func processingInstructionsAndDTDsAreRefused(prefix: String) {
        guard case .failure(.unreadable(_, let reason)) = read(Array((#"<?xml version="1.0"?>"# + prefix + Self.body).utf8)) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(reason.contains("processing instruction") || reason.contains("document type"))
    }

    /// The byte search finds a marker wherever it is: at the very end, after near misses
    /// ("<!DOCTYP", "<!-"), and just after the XML declaration.
    @Test(arguments: [
        Self.body + "<?", Self.body + "<!DOCTYP <!DOCTYPE", "<<<?a?>" + Self.body, "<!-- <!DOCTYPE -->" + Self.body,
    ])
    func markersAreFoundAnywhere(text: String) {
        #expect(XMLScreening.problem(in: Data((#"<?xml version="1.0"?>"# + text).utf8)) != nil)
    }

    @Test func nearMissesPass() {
        #expect(XMLScreening.problem(in: Data((#"<?xml version="1.0"?>"# + "<!DOCTYP" + Self.body + "<").utf8)) == nil)
        #expect(XMLScreening.problem(in: Data()) == nil)
    }
}

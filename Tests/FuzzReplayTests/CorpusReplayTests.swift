import Foundation
import Testing

/// Every input in `Fuzz/corpus/<target>` (the seeds and what fuzzing kept) and in
/// `Fuzz/regressions/<target>` (inputs that once failed) through the same entry points the
/// libFuzzer targets call, without the sanitizer build: cheap, and in every `make test`.
@Suite struct CorpusReplayTests {
    static let fuzzFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    static let entries: [String: @Sendable (UnsafeRawBufferPointer) -> Void] = [
        "FuzzStoreFile": fuzzStoreFile,
        "FuzzKeyDecoding": fuzzKeyDecoding,
        "FuzzPageDecoding": fuzzPageDecoding,
        "FuzzJSONReader": fuzzJSONReader,
        "FuzzImport": fuzzImport,
        "FuzzDirectImport": fuzzDirectImport,
        "FuzzPredicate": fuzzPredicate,
        "FuzzModelXML": fuzzModelXML,
        "FuzzRecordDecoding": fuzzRecordDecoding,
        "FuzzMemberRuns": fuzzMemberRuns,
    ]

    static func inputs(_ target: String) -> [URL] {
        ["corpus", "regressions"].flatMap { folder -> [URL] in
            let directory = fuzzFolder.appendingPathComponent(folder).appendingPathComponent(target)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            return names.sorted().map { directory.appendingPathComponent($0) }
        }
    }

    @Test(arguments: entries.keys.sorted())
    func everyKeptInputPasses(target: String) throws {
        let inputs = Self.inputs(target)
        #expect(!inputs.isEmpty, "no seed corpus for \(target)")
        let entry = try #require(Self.entries[target])
        for input in inputs {
            let data = try Data(contentsOf: input)
            data.withUnsafeBytes { entry($0) }
        }
    }
}

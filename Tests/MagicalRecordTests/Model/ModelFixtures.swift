import Foundation
@testable import MagicalRecord

/// The model files under `Fixtures/`, and scratch folders for damaged ones.
enum ModelFixtures {
    static let root = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!

    /// MagicalRecord's own test model (Fixtures/magicalrecord, see SOURCE.md there).
    static let magicalRecordTestModel = root.appendingPathComponent("magicalrecord/TestModel.xcdatamodeld")

    /// Ours: two versions, V2 current (Fixtures/models).
    static let versioned = root.appendingPathComponent("models/Versioned.xcdatamodeld")

    /// A fresh empty folder, removed by `body`'s end.
    static func withScratchFolder<Result>(_ body: (URL) throws -> Result) throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("model-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try body(folder)
    }

    /// Writes `files` (path relative to `folder` → text), making folders as needed.
    static func write(_ files: [String: String], in folder: URL) throws {
        for (path, text) in files {
            let url = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
    }

    /// A `contents` file around `body` (entities and the like).
    static func contents(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
        \(body)
        </model>
        """
    }
}

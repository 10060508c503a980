import Foundation
@testable import MagicalRecord

/// Shared by the libFuzzer target (Fuzz/) and the corpus replay in `make test`.
///
/// Arbitrary bytes read as an Xcode model version's `contents` XML (Spec/MODEL.md,
/// section 1): they read or fail with a typed error; a model that resolves has a stable
/// version hash, no differences from itself, a summary, and a JSON description that reads
/// back to the same declarations.
func fuzzModelXML(_ input: UnsafeRawBufferPointer) {
    guard let entities = try? XcodeContentsParser.entities(from: Data(input), source: "fuzz input"),
          let model = try? ObjectModel(entities: entities, versionName: "Fuzz") else { return }
    precondition(model.differences(from: model).isEmpty, "a model differs from itself")
    _ = model.summary
    let json = JSONModelDescription(model).encoded()
    guard let read = try? JSONModelDescription(data: json) else {
        preconditionFailure("the JSON description of a model does not read back")
    }
    precondition(read.versions.current.declarations == model.declarations, "the JSON description reads back different")
    precondition(read.versions.current.versionHash == model.versionHash, "the version hash changed through JSON")
}

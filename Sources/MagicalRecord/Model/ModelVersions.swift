import Foundation

/// Every version of a model, and which one is current: what an Xcode `.xcdatamodeld` or a
/// JSON model description holds.
///
/// ```swift
/// let versions = try ModelVersions(contentsOf: URL(fileURLWithPath: "Model.xcdatamodeld"))
/// let model = versions.current            // the version .xccurrentversion names
/// let first = versions.version(named: "Model")
/// ```
///
/// Immutable and `Sendable`, like ``ObjectModel``.
public struct ModelVersions: Sendable, Equatable {
    /// Every version, in the order read (Xcode's: by name, numbers compared as numbers,
    /// so `Model 2` comes before `Model 10`).
    public let all: [ObjectModel]
    /// The position of ``current`` in ``all``.
    public let currentIndex: Int

    /// The version to open stores with.
    public var current: ObjectModel { all[currentIndex] }

    /// A family of one.
    public init(_ model: ObjectModel) {
        all = [model]
        currentIndex = 0
    }

    /// `versions`, of which the one named `currentName` is current.
    ///
    /// Throws ``ModelError/unreadable(source:reason:)`` (source `model versions`) when
    /// `versions` is empty, when two versions share a name, when one of several versions
    /// has none, or when none is named `currentName`.
    public init(_ versions: [ObjectModel], current currentName: String) throws(ModelError) {
        try self.init(versions, current: currentName, source: "model versions")
    }

    init(_ versions: [ObjectModel], current currentName: String?, source: String) throws(ModelError) {
        guard !versions.isEmpty else { throw .unreadable(source: source, reason: "there are no model versions") }
        var names: Set<String> = []
        for version in versions {
            guard let name = version.versionName else {
                guard versions.count == 1 else { throw .unreadable(source: source, reason: "one of \(versions.count) model versions has no name") }
                continue
            }
            guard names.insert(name).inserted else { throw .unreadable(source: source, reason: "two model versions are named \(name)") }
        }
        guard let index = versions.firstIndex(where: { $0.versionName == currentName }) else {
            throw .unreadable(source: source, reason: "the current version, \(currentName ?? "(unnamed)"), is not one of the versions (\(names.sorted().joined(separator: ", ")))")
        }
        all = versions
        currentIndex = index
    }

    /// The version named `name`.
    public func version(named name: String) -> ObjectModel? {
        all.first { $0.versionName == name }
    }

    /// Same versions (names and declarations, in order) and the same one current.
    public static func == (left: ModelVersions, right: ModelVersions) -> Bool {
        left.currentIndex == right.currentIndex && left.all.count == right.all.count
            && zip(left.all, right.all).allSatisfy { $0.versionName == $1.versionName && $0.declarations == $1.declarations }
    }
}

extension ModelVersions {
    /// Reads a model file: an Xcode `.xcdatamodeld` (every version) or `.xcdatamodel` (one
    /// version), or a JSON model description (`.json`, Spec/MODEL.md).
    ///
    /// Throws ``ModelError/unreadable(source:reason:)`` naming the file, the line and the
    /// element when a file is missing or damaged, and the other ``ModelError`` cases when
    /// a version reads but is not a usable model.
    public init(contentsOf url: URL) throws(ModelError) {
        switch url.pathExtension {
        case "xcdatamodeld":
            self = try XcodeModelReader.readVersions(url)
        case "xcdatamodel":
            self.init(try XcodeModelReader.readVersion(url))
        case "json":
            self = try JSONModelDescription(data: ModelFile.read(url), source: url.path).versions
        default:
            throw .unreadable(source: url.path, reason: "not a model file: expected a .xcdatamodeld, .xcdatamodel or .json")
        }
    }
}

extension ObjectModel {
    /// Reads the current version of a model file (see ``ModelVersions/init(contentsOf:)``).
    public convenience init(contentsOf url: URL) throws(ModelError) {
        let current = try ModelVersions(contentsOf: url).current
        try self.init(entities: current.declarations, versionName: current.versionName)
    }
}

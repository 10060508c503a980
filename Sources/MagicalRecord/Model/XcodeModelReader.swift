import Foundation

/// Reads Xcode's Core Data model files: a `.xcdatamodel` folder (one version, its XML in
/// `contents`) and a `.xcdatamodeld` folder (one `.xcdatamodel` per version, the current
/// one named by the `.xccurrentversion` property list): Spec/MODEL.md, M1 and M2.
enum XcodeModelReader {
    private static let currentVersionFile = ".xccurrentversion"
    private static let currentVersionKey = "_XCCurrentVersionName"
    private static let versionExtension = "xcdatamodel"

    /// Every version in a `.xcdatamodeld`. Without a `.xccurrentversion`, a lone version is
    /// current; with several, that file must say which.
    static func readVersions(_ url: URL) throws(ModelError) -> ModelVersions {
        guard ModelFile.isFolder(url) else {
            throw .unreadable(source: url.path, reason: ModelFile.isFile(url) ? "not a folder" : "no such folder")
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: url.path)
                .filter { $0.hasSuffix("." + versionExtension) }
                .map { String($0.dropLast(versionExtension.count + 1)) }
                .sorted { $0.compare($1, options: .numeric) == .orderedAscending }
        } catch {
            throw .unreadable(source: url.path, reason: "cannot list the folder (\((error as NSError).localizedDescription))")
        }
        guard !names.isEmpty else { throw .unreadable(source: url.path, reason: "the folder holds no .\(versionExtension) version") }
        var versions: [ObjectModel] = []
        for name in names {
            versions.append(try readVersion(url.appendingPathComponent(name + "." + versionExtension)))
        }
        let current = try currentVersionName(in: url, versions: versions)
        return try ModelVersions(versions, current: current, source: url.path)
    }

    /// One `.xcdatamodel`, named after its folder (`Model 2.xcdatamodel` is `Model 2`).
    static func readVersion(_ url: URL) throws(ModelError) -> ObjectModel {
        guard ModelFile.isFolder(url) else {
            throw .unreadable(source: url.path, reason: ModelFile.isFile(url) ? "not a folder" : "no such model version folder")
        }
        let contents = url.appendingPathComponent("contents")
        let entities = try XcodeContentsParser.entities(from: ModelFile.read(contents), source: contents.path)
        return try ObjectModel(entities: entities, versionName: url.deletingPathExtension().lastPathComponent)
    }

    private static func currentVersionName(in url: URL, versions: [ObjectModel]) throws(ModelError) -> String? {
        let file = url.appendingPathComponent(currentVersionFile)
        guard ModelFile.isFile(file) else {
            guard versions.count == 1 else {
                throw .unreadable(source: url.path, reason: "\(versions.count) versions and no \(currentVersionFile) saying which is current")
            }
            return versions[0].versionName
        }
        let data = try ModelFile.read(file)
        let plist = try? PropertyListSerialization.propertyList(from: data, format: nil)
        guard let dictionary = plist as? [String: Any] else {
            throw .unreadable(source: file.path, reason: "not a property list dictionary")
        }
        guard let name = dictionary[currentVersionKey] as? String, !name.isEmpty else {
            throw .unreadable(source: file.path, reason: "no \(currentVersionKey) string naming the current version")
        }
        let version = name.hasSuffix("." + versionExtension) ? String(name.dropLast(versionExtension.count + 1)) : name
        guard versions.contains(where: { $0.versionName == version }) else {
            throw .unreadable(source: file.path, reason: "names \(name), which \(url.lastPathComponent) does not hold")
        }
        return version
    }
}

import Foundation

/// Reading model files, with failures as ``ModelError/unreadable(source:reason:)``.
enum ModelFile {
    static func read(_ url: URL) throws(ModelError) -> Data {
        guard isFile(url) else { throw .unreadable(source: url.path, reason: isFolder(url) ? "a folder, not a file" : "no such file") }
        do {
            return try Data(contentsOf: url)
        } catch {
            throw .unreadable(source: url.path, reason: "cannot read the file (\((error as NSError).localizedDescription))")
        }
    }

    static func isFile(_ url: URL) -> Bool {
        exists(url, asFolder: false)
    }

    static func isFolder(_ url: URL) -> Bool {
        exists(url, asFolder: true)
    }

    private static func exists(_ url: URL, asFolder: Bool) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue == asFolder
    }
}

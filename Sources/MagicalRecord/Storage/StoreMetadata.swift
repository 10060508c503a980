import Foundation
import MagicalStore

/// The object layer's metadata tree (Spec/OBJECT-STORE.md, "Metadata"): the model the
/// store was written with and its slot map (one JSON model description, Spec/MODEL.md),
/// the highest object number given out, and the object format.
struct StoreMetadata {
    enum Key {
        static let format = Array("format".utf8)
        static let model = Array("model".utf8)
        static let versionHash = Array("versionHash".utf8)
        static let lastNumber = Array("lastNumber".utf8)
        static let history = Array("history".utf8)
    }

    /// The object format this library writes and the newest it reads: 2 has records of
    /// versions 5-8 (compact numbers, O12) and to-many values without the number (O13); 3
    /// keeps unordered to-manys as runs of members (O14); 4 writes records as value lists
    /// (version 9, O11).
    static let currentFormat = 4

    /// The first format whose unordered to-manys are runs of members (O14).
    static let memberRunsFormat = 3

    /// The store's object format: 1 when it has none recorded (written before formats were).
    var format = StoreMetadata.currentFormat
    var model: ObjectModel
    var slots: SlotMap
    var lastNumber: Int64
    /// The versions the store was written with before ``model``, oldest first, each with
    /// the slots it had; nil for a store never migrated.
    var history: JSONModelDescription?

    /// The metadata of `store`, or nil for a store the object layer has never written.
    static func load(from store: Store) throws -> StoreMetadata? {
        let snapshot = try store.read()
        guard let tree = try snapshot.treeIfPresent(StoreLayout.metadataTree) else { return nil }
        let format = try tree.get(Key.format).map { Int(String(decoding: $0, as: UTF8.self)) } ?? 1
        guard let format else { throw MagicalRecordError.damagedMetadata("the object format is not a number") }
        guard format <= currentFormat else {
            throw MagicalRecordError.newerObjectFormat(path: store.path, format: format, readable: currentFormat)
        }
        guard let modelBytes = try tree.get(Key.model), let numberBytes = try tree.get(Key.lastNumber), numberBytes.count == 8 else {
            throw MagicalRecordError.damagedMetadata("the model or the object counter is missing")
        }
        let description: JSONModelDescription
        do {
            description = try JSONModelDescription(data: Data(modelBytes), source: "the store's model")
        } catch {
            throw MagicalRecordError.damagedMetadata("the stored model does not read: \(error)")
        }
        let model = description.versions.current
        if let hash = try tree.get(Key.versionHash), String(decoding: hash, as: UTF8.self) != model.versionHash {
            throw MagicalRecordError.damagedMetadata(
                "the stored model's version hash is \(model.versionHash), but the store recorded \(String(decoding: hash, as: UTF8.self))"
            )
        }
        var history: JSONModelDescription?
        if let historyBytes = try tree.get(Key.history) {
            do {
                history = try JSONModelDescription(data: Data(historyBytes), source: "the store's model history")
            } catch {
                throw MagicalRecordError.damagedMetadata("the stored model history does not read: \(error)")
            }
        }
        return StoreMetadata(
            format: format, model: model, slots: SlotMap(codes: description.currentSlots), lastNumber: decodeNumber(numberBytes), history: history
        )
    }

    /// Records `format` alone, as a conversion that raises the store to it does.
    static func save(format: Int, in transaction: WriteTransaction) throws {
        try transaction.openTree(StoreLayout.metadataTree).put(Key.format, Array(String(format).utf8))
    }

    /// Writes the metadata, with this library's format: what it writes from now on may be
    /// in it.
    func save(in transaction: WriteTransaction) throws {
        let tree = try transaction.openTree(StoreLayout.metadataTree)
        try tree.put(Key.format, Array(String(Self.currentFormat).utf8))
        try tree.put(Key.model, Array(JSONModelDescription(model, slots: slots.codes).encoded()))
        try tree.put(Key.versionHash, Array(model.versionHash.utf8))
        try tree.put(Key.lastNumber, Self.encodeNumber(lastNumber))
        if let history { try tree.put(Key.history, Array(history.encoded())) }
    }

    static func saveLastNumber(_ number: Int64, in transaction: WriteTransaction) throws {
        try transaction.tree(StoreLayout.metadataTree).put(Key.lastNumber, encodeNumber(number))
    }

    private static func encodeNumber(_ number: Int64) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLittleEndian(number)
        return bytes
    }

    private static func decodeNumber(_ bytes: [UInt8]) -> Int64 {
        bytes.withUnsafeBytes { $0.loadLittleEndian(at: 0, as: Int64.self) }
    }
}

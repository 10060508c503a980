import Foundation

/// The JSON model description (Spec/MODEL.md): every version of a model in plain JSON, for
/// tools, and for stores, which keep the model they were written with so that they can be
/// read without it.
///
/// ```swift
/// let json = JSONModelDescription(model, slots: ["Person": 1, "Person.name": 1]).encoded()
/// let read = try JSONModelDescription(data: json)
/// read.versions.current      // a model equal to `model`
/// read.currentSlots          // ["Person": 1, "Person.name": 1]
/// ```
///
/// Encoding is deterministic: equal descriptions give equal bytes.
public struct JSONModelDescription: Sendable, Equatable {
    /// The `format` value every description carries.
    public static let formatName = "MagicalRecord model"
    /// The `formatVersion` this library writes, and the highest it reads.
    public static let formatVersion = 1

    /// The model's versions, and which is current.
    public let versions: ModelVersions
    /// Numbers a store gave each version's entities and properties, one map per entry of
    /// `versions.all`: `"Entity"` → entity code, `"Entity.property"` → slot
    /// (Spec/OBJECT-STORE.md, "Slots"). Carried as they are: they may name properties a
    /// version no longer has, since a store never reuses a slot.
    public let slots: [[String: Int]]

    /// The slots of the current version.
    public var currentSlots: [String: Int] { slots[versions.currentIndex] }

    /// `slots` has one map per version, in order; missing maps are empty, extra ones dropped.
    public init(_ versions: ModelVersions, slots: [[String: Int]] = []) {
        self.versions = versions
        self.slots = versions.all.indices.map { slots.indices.contains($0) ? slots[$0] : [:] }
    }

    /// A description of one version: what a store keeps.
    public init(_ model: ObjectModel, slots: [String: Int] = [:]) {
        self.init(ModelVersions(model), slots: [slots])
    }

    /// Reads a description. `source` names it in errors.
    ///
    /// Throws ``ModelError/unreadable(source:reason:)`` with the JSON path of what is wrong
    /// (`versions[0].entities[2].attributes[1].default: ...`), and the other ``ModelError``
    /// cases when a version is not a usable model.
    public init(data: Data, source: String = "JSON model description") throws(ModelError) {
        let document: ModelDocument
        do {
            document = try JSONDecoder().decode(ModelDocument.self, from: data)
        } catch let error as DecodingError {
            throw .unreadable(source: source, reason: JSONDecodingFailure.describe(error, data: data))
        } catch {
            throw .unreadable(source: source, reason: "\(error)")
        }
        guard document.format == Self.formatName else {
            throw .unreadable(source: source, reason: "format is \"\(document.format)\", not \"\(Self.formatName)\"")
        }
        guard document.formatVersion <= Self.formatVersion else {
            throw .unreadable(source: source, reason: "written in format version \(document.formatVersion); this library reads up to \(Self.formatVersion)")
        }
        var models: [ObjectModel] = []
        for (index, version) in document.versions.enumerated() {
            if let slot = version.slots?.first(where: { $0.value < 0 }) {
                throw .unreadable(source: source, reason: "versions[\(index)].slots: \(slot.key) has a negative number, \(slot.value)")
            }
            // Readers keep tables by number (a record coder's slots, a store's entity names).
            if let slot = version.slots?.first(where: { $0.value > Self.largestNumber }) {
                throw .unreadable(source: source, reason: "versions[\(index)].slots: \(slot.key) has a number past \(Self.largestNumber), \(slot.value)")
            }
            if let (first, second, number) = Self.sharedNumber(in: version.slots ?? [:]) {
                throw .unreadable(source: source, reason: "versions[\(index)].slots: \(first) and \(second) have the same number, \(number)")
            }
            models.append(try ObjectModel(entities: version.entities.map(\.declaration), versionName: version.name))
        }
        let current = document.current ?? (document.versions.count == 1 ? document.versions[0].name : nil)
        self.init(try ModelVersions(models, current: current, source: source), slots: document.versions.map { $0.slots ?? [:] })
    }

    /// The largest entity code or slot a store may hold: numbers are handed out one by one
    /// and never reused, so no store comes near it, and a reader's tables by number stay small.
    static let largestNumber = (1 << 24) - 1

    /// Two keys of `slots` that one owner (the store, for entity codes; an entity, for its
    /// slots) numbers alike, in key order, with their number: a record could not tell their
    /// values apart, nor a reference its entity. Nil when every number is its owner's once.
    private static func sharedNumber(in slots: [String: Int]) -> (String, String, Int)? {
        var keyByNumber: [String: [Int: String]] = [:]
        for key in slots.keys.sorted() {
            let owner = key.firstIndex(of: ".").map { String(key[..<$0]) } ?? ""
            if let earlier = keyByNumber[owner, default: [:]].updateValue(key, forKey: slots[key]!) {
                return (earlier, key, slots[key]!)
            }
        }
        return nil
    }

    /// The description as JSON: UTF-8, keys sorted, entities and properties in model order.
    public func encoded(prettyPrinted: Bool = false) -> Data {
        let document = ModelDocument(
            format: Self.formatName,
            formatVersion: Self.formatVersion,
            current: versions.current.versionName,
            versions: zip(versions.all, slots).map { model, slots in
                VersionDocument(name: model.versionName, entities: model.declarations.map(EntityDocument.init), slots: slots.isEmpty ? nil : slots)
            }
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = prettyPrinted ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        // Cannot fail: every value is a string, an integer, a Bool or a finite number.
        return try! encoder.encode(document)
    }
}

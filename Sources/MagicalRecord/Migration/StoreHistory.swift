/// The model versions a store has been written with (Spec/OBJECT-STORE.md, "Metadata"):
/// a migration appends the version it leaves, so the next one knows every source exactly.
enum StoreHistory {
    /// `history` with `model` (and its slots) appended. Versions in a history need
    /// distinct names: an unnamed one is called `unnamed`, and a name already taken gets
    /// the version hash's first 8 digits (`Model (1a2b3c4d)`).
    static func appending(_ model: ObjectModel, slots: SlotMap, to history: JSONModelDescription?) throws(MagicalRecordError) -> JSONModelDescription {
        let earlier = history?.versions.all ?? []
        let taken = Set(earlier.compactMap(\.versionName))
        var name = model.versionName ?? "unnamed"
        if taken.contains(name) { name += " (\(model.versionHash.prefix(8)))" }
        var suffix = 2
        let base = name
        while taken.contains(name) {
            name = "\(base) \(suffix)"
            suffix += 1
        }
        do throws(ModelError) {
            let renamed = try ObjectModel(entities: model.declarations, versionName: name)
            let versions = try ModelVersions(earlier + [renamed], current: name)
            return JSONModelDescription(versions, slots: (history?.slots ?? []) + [slots.codes])
        } catch {
            throw .damagedMetadata("the model history cannot take \(name): \(error)")
        }
    }
}

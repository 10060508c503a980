import Foundation
import MagicalStore

/// Rewrites one entity's records for a migration, field by field: a field whose slot
/// continues is copied byte for byte, a converted one is decoded, converted and written
/// back under the same slot, a to-one that becomes a to-many is handed out for the
/// relationship tree, and retired slots are dropped. With a transform, attributes are
/// decoded, handed to it, and written from what it returns.
struct RecordRewriter: Sendable {
    private enum Action: Sendable {
        case copy
        /// `keepsNull`: a null is written (O8), not dropped.
        case convert(EntityMigration.AttributeSource, keepsNull: Bool)
        /// Handed to the transform: the source attribute position.
        case collect(Int)
        /// A to-one moving into the to-many at this target relationship position.
        case move(Int)
    }

    private let migration: EntityMigration
    private let source: Entity
    private let entityCode: Int
    /// By source slot; a slot without an action (or beyond the array) is dropped.
    private let actions: [Action?]
    private let targetSlots: [Int]
    private let sourceDefaults: [AttributeValue]

    init(_ migration: EntityMigration, source: Entity, sourceSlots: SlotMap, targetSlots: SlotMap) throws(MagicalRecordError) {
        self.migration = migration
        self.source = source
        guard let code = sourceSlots.entityCode(source.name) else { throw .damagedMetadata("no entity code for \(source.name)") }
        entityCode = code
        func slot(_ name: String) throws(MagicalRecordError) -> Int {
            guard let slot = sourceSlots.slot(source.name, name) else { throw .damagedMetadata("no slot for \(source.name).\(name)") }
            return slot
        }
        var actions: [Int: Action] = [:]
        if migration.transform != nil {
            for (position, attribute) in source.attributes.enumerated() { actions[try slot(attribute.name)] = .collect(position) }
        } else {
            for (position, origin) in migration.attributeSources.enumerated() {
                guard let origin else { continue }
                let keepsNull = RecordCoder.writesNull(migration.target.attributes[position])
                actions[try slot(source.attributes[origin.position].name)] = origin.rewrites ? .convert(origin, keepsNull: keepsNull) : .copy
            }
        }
        for sourcePosition in migration.toOneSources.values {
            actions[try slot(source.relationships[sourcePosition].name)] = .copy
        }
        for (sourcePosition, targetPosition) in migration.movedToOnes {
            actions[try slot(source.relationships[sourcePosition].name)] = .move(targetPosition)
        }
        var actionsBySlot = [Action?](repeating: nil, count: (actions.keys.max() ?? -1) + 1)
        for (slot, action) in actions { actionsBySlot[slot] = action }
        self.actions = actionsBySlot
        var slots: [Int] = []
        for attribute in migration.target.attributes {
            guard let slot = targetSlots.slot(migration.target.name, attribute.name) else {
                throw .damagedMetadata("no slot for \(migration.target.name).\(attribute.name)")
            }
            slots.append(slot)
        }
        self.targetSlots = slots
        sourceDefaults = source.attributes.map(\.defaultValue)
    }

    /// Appends the new record for object `number` to `record` (which may hold other
    /// records before it: a migration fills one buffer per few thousand objects); `moved`
    /// gets each to-one that becomes a to-many entry (target relationship position,
    /// target's entity code, target's number).
    func rewrite(
        _ raw: UnsafeRawBufferPointer, number: Int64, into record: inout [UInt8], moved: (Int, Int, Int64) -> Void
    ) throws(MagicalRecordError) {
        guard let header = RecordLayout.Header(raw, entityCode: entityCode) else { throw damaged(number) }
        var builder = RecordLayout.Builder()
        var collected = migration.transform == nil ? [] : sourceDefaults
        var reader = ByteReader(raw, at: header.fieldsStart)
        var slots = RecordLayout.SlotReader(header)
        for _ in 0..<header.count {
            guard let slot = slots.next(&reader, in: raw) else { throw damaged(number) }
            let start = reader.position
            guard let tag = reader.read(UInt8.self) else { throw damaged(number) }
            let action = slot < actions.count ? actions[slot] : nil
            if tag == RecordCoder.Tag.object {
                guard let code = reader.readVarint(), let target = reader.readVarint() else { throw damaged(number) }
                switch action {
                case .copy?:
                    builder.beginValue(slot: slot)
                    builder.appendValueBytes(UnsafeRawBufferPointer(rebasing: raw[start..<reader.position]))
                case .move(let position)?:
                    moved(position, code, Int64(target))
                default: break
                }
                continue
            }
            switch action {
            case .copy?:
                guard RecordCoder.skipValue(tag, &reader) else { throw damaged(number) }
                builder.beginValue(slot: slot)
                builder.appendValueBytes(UnsafeRawBufferPointer(rebasing: raw[start..<reader.position]))
            case .convert(let origin, let keepsNull)?:
                guard let value = RecordCoder.readValue(tag, &reader) else { throw damaged(number) }
                let converted = origin.apply(value)
                guard !converted.isNull || keepsNull else { continue }
                builder.add(converted, slot: slot)
            case .collect(let position)?:
                guard let value = RecordCoder.readValue(tag, &reader) else { throw damaged(number) }
                collected[position] = value
            default:
                guard RecordCoder.skipValue(tag, &reader) else { throw damaged(number) }
            }
        }
        guard reader.position == raw.count else { throw damaged(number) }
        if let transform = migration.transform {
            try transformed(collected, number: number, transform, into: &builder)
        }
        builder.write(entityCode: entityCode, into: &record)
    }

    /// Runs the transform on one object's attributes and adds the fields it leaves.
    private func transformed(
        _ sourceValues: [AttributeValue], number: Int64, _ transform: EntityTransform, into builder: inout RecordLayout.Builder
    ) throws(MagicalRecordError) {
        let target = migration.target
        var values: [String: AttributeValue] = [:]
        for (position, attribute) in target.attributes.enumerated() {
            values[attribute.name] = migration.attributeSources[position].map { $0.apply(sourceValues[$0.position]) } ?? attribute.defaultValue
        }
        var object = MigratingObject(
            entityName: target.name,
            sourceValues: Dictionary(uniqueKeysWithValues: zip(source.attributes.map(\.name), sourceValues)),
            values: values
        )
        let id = ObjectID(entityName: target.internedName, number: number)
        do {
            try transform(&object)
        } catch {
            throw .migrationFailed(path: "", reason: "the transform of \(target.name) failed on \(id): \(error)")
        }
        for (position, attribute) in target.attributes.enumerated() {
            let value = object.values[attribute.name] ?? .null
            guard attribute.type.accepts(value) else {
                throw .migrationFailed(path: "", reason: "the transform of \(target.name) set \(attribute.name) of \(id) to \(value), not a \(attribute.type.rawValue)")
            }
            if value.isNull {
                if !attribute.isOptional && attribute.defaultValue.isNull {
                    throw .migrationFailed(path: "", reason: "the transform of \(target.name) left the required \(attribute.name) of \(id) without a value")
                }
                if !RecordCoder.writesNull(attribute) { continue }
            }
            builder.add(value, slot: targetSlots[position])
        }
    }

    private func damaged(_ number: Int64) -> MagicalRecordError {
        .damagedRecord(ObjectID(entityName: source.name, number: number))
    }
}

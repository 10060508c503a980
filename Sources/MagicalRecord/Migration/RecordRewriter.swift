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
        case convert(EntityMigration.AttributeSource)
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
            for case let origin? in migration.attributeSources {
                actions[try slot(source.attributes[origin.position].name)] = origin.rewrites ? .convert(origin) : .copy
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
        var reader = ByteReader(raw)
        guard reader.read(UInt8.self) == RecordCoder.formatVersion, reader.readVarint() == entityCode,
              let count = reader.readVarint() else { throw damaged(number) }
        // The header's count is known at the end: the fields go after room for the
        // largest header, which is then written just before them.
        let headerRoom = 1 + 10 + 10
        let base = record.count
        record.append(contentsOf: repeatElement(0, count: headerRoom))
        var written = 0
        var collected = migration.transform == nil ? [] : sourceDefaults
        for _ in 0..<count {
            let start = reader.position
            guard let slot = reader.readVarint(), let tag = reader.read(UInt8.self) else { throw damaged(number) }
            let action = slot < actions.count ? actions[slot] : nil
            if tag == RecordCoder.Tag.object {
                guard let code = reader.readVarint(), let target = reader.readVarint() else { throw damaged(number) }
                switch action {
                case .copy?:
                    record.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[start..<reader.position]))
                    written += 1
                case .move(let position)?:
                    moved(position, code, Int64(target))
                default: break
                }
                continue
            }
            switch action {
            case .copy?:
                guard RecordCoder.skipValue(tag, &reader) else { throw damaged(number) }
                record.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[start..<reader.position]))
                written += 1
            case .convert(let origin)?:
                guard let value = RecordCoder.readValue(tag, &reader) else { throw damaged(number) }
                let converted = origin.apply(value)
                guard !converted.isNull else { continue }
                record.appendVarint(slot)
                RecordCoder.append(converted, to: &record)
                written += 1
            case .collect(let position)?:
                guard let value = RecordCoder.readValue(tag, &reader) else { throw damaged(number) }
                collected[position] = value
            default:
                guard RecordCoder.skipValue(tag, &reader) else { throw damaged(number) }
            }
        }
        guard reader.position == raw.count else { throw damaged(number) }
        if let transform = migration.transform {
            written += try transformed(collected, number: number, transform, into: &record)
        }
        let start = base + headerRoom - 1 - varintSize(entityCode) - varintSize(written)
        record[start] = RecordCoder.formatVersion
        let countOffset = record.storeVarint(entityCode, at: start + 1)
        _ = record.storeVarint(written, at: countOffset)
        record.removeSubrange(base..<start)
    }

    /// Runs the transform on one object's attributes and appends the fields it leaves;
    /// returns how many.
    private func transformed(
        _ sourceValues: [AttributeValue], number: Int64, _ transform: EntityTransform, into fields: inout [UInt8]
    ) throws(MagicalRecordError) -> Int {
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
        let id = ObjectID(entityName: target.name, number: number)
        do {
            try transform(&object)
        } catch {
            throw .migrationFailed(path: "", reason: "the transform of \(target.name) failed on \(id): \(error)")
        }
        var written = 0
        for (position, attribute) in target.attributes.enumerated() {
            let value = object.values[attribute.name] ?? .null
            guard attribute.type.accepts(value) else {
                throw .migrationFailed(path: "", reason: "the transform of \(target.name) set \(attribute.name) of \(id) to \(value), not a \(attribute.type.rawValue)")
            }
            if value.isNull {
                if !attribute.isOptional && attribute.defaultValue.isNull {
                    throw .migrationFailed(path: "", reason: "the transform of \(target.name) left the required \(attribute.name) of \(id) without a value")
                }
                continue
            }
            fields.appendVarint(targetSlots[position])
            RecordCoder.append(value, to: &fields)
            written += 1
        }
        return written
    }

    private func damaged(_ number: Int64) -> MagicalRecordError {
        .damagedRecord(ObjectID(entityName: source.name, number: number))
    }
}

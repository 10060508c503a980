import Foundation
import MagicalStore

/// The bytes of one object's record (Spec/OBJECT-STORE.md, "Records"): its attributes and
/// to-one references, each under its slot number. A slot the record lacks reads as the
/// attribute's default, so adding an attribute rewrites nothing.
final class RecordCoder: Sendable {
    let entity: Entity
    let entityCode: Int
    /// The entity's records tree, and by attribute position its index trees (nil for an
    /// attribute without one), resolved once: a point get reads two of them.
    let objectTree: TreeHandle
    let indexTrees: [TreeHandle?]
    /// The position of the entity's key attribute when it holds integers, with the hints
    /// of where its keys lie (``KeyHints``): a finder by key reads one tree instead of two.
    let integerKeyPosition: Int?
    let keyHints: KeyHints?
    /// Slot numbers by attribute position, and by relationship position (to-one only).
    private let attributeSlots: [Int]
    private let toOneSlots: [Int?]
    /// Per relationship, its destination's name and entity code: a target of that entity
    /// (not a subentity) is written without looking its name up in the slot map.
    private let destinationCodes: [(name: String, code: Int)?]
    /// Indexed by slot number: attribute position (>= 0), -1 - relationship position, or
    /// `Self.unknownSlot` for a slot of another entity or one the model no longer has.
    private let positions: [Int]
    /// Indexed by entity code, interned (the ids of to-one targets are made with them).
    private let entityNames: [Unmanaged<InternedName>?]
    private let slots: SlotMap
    private let defaults: [AttributeValue]
    /// By attribute position, whether a null is written (O8): where the attribute is
    /// optional with a default, a missing slot would read the default instead.
    private let writesNull: [Bool]
    /// Whether the attributes, then the to-one relationships, by position, have ascending
    /// slots all below 64: a record's values then come in slot order, and its value list
    /// is written as they come (``encode(_:using:into:)``).
    private let valuesComeInSlotOrder: Bool
    private let emptyRelationships: RelationshipStates
    private static let unknownSlot = Int.min

    enum Tag {
        static let null: UInt8 = 0
        static let integer: UInt8 = 1
        static let double: UInt8 = 2
        static let float: UInt8 = 3
        static let decimal: UInt8 = 4
        static let `false`: UInt8 = 5
        static let `true`: UInt8 = 6
        static let string: UInt8 = 7
        static let date: UInt8 = 8
        static let data: UInt8 = 9
        static let uuid: UInt8 = 10
        static let uri: UInt8 = 11
        static let object: UInt8 = 12
        /// Compact numbers (O12), each a signed 32-bit integer: a whole double, a double of
        /// hundredths (the value × 100), a date of whole seconds since 1970.
        static let wholeDouble: UInt8 = 13
        static let hundredthsDouble: UInt8 = 14
        static let wholeSecondsDate: UInt8 = 15
    }

    init(entity: Entity, slots: SlotMap) throws(MagicalRecordError) {
        guard let code = slots.entityCode(entity.name) else { throw .damagedMetadata("no entity code for \(entity.name)") }
        self.entity = entity
        self.entityCode = code
        objectTree = TreeHandle(StoreLayout.objectTree(entity.name))
        indexTrees = entity.attributes.map { attribute in
            entity.indexedAttributes.contains(attribute.name) ? TreeHandle(StoreLayout.indexTree(entity.name, attribute.name)) : nil
        }
        self.slots = slots
        integerKeyPosition = entity.keyAttribute.flatMap(entity.slot(ofAttribute:)).flatMap { position in
            switch entity.attributes[position].type {
            case .integer16, .integer32, .integer64: position
            default: nil
            }
        }
        keyHints = integerKeyPosition == nil ? nil : KeyHints()
        var attributeSlots: [Int] = []
        var positions: [Int: Int] = [:]
        for (position, attribute) in entity.attributes.enumerated() {
            guard let slot = slots.slot(entity.name, attribute.name) else { throw .damagedMetadata("no slot for \(entity.name).\(attribute.name)") }
            attributeSlots.append(slot)
            positions[slot] = position
        }
        var toOneSlots: [Int?] = []
        for (position, relationship) in entity.relationships.enumerated() {
            let slot = relationship.isToMany ? nil : slots.slot(entity.name, relationship.name)
            if !relationship.isToMany && slot == nil { throw .damagedMetadata("no slot for \(entity.name).\(relationship.name)") }
            toOneSlots.append(slot)
            if let slot { positions[slot] = -1 - position }
        }
        self.attributeSlots = attributeSlots
        self.toOneSlots = toOneSlots
        destinationCodes = entity.relationships.map { relationship in
            slots.entityCode(relationship.destination).map { (relationship.destination, $0) }
        }
        var positionsBySlot = [Int](repeating: Self.unknownSlot, count: (positions.keys.max() ?? -1) + 1)
        for (slot, position) in positions { positionsBySlot[slot] = position }
        self.positions = positionsBySlot
        let names = slots.entityNamesByCode
        var namesByCode = [Unmanaged<InternedName>?](repeating: nil, count: (names.keys.max() ?? -1) + 1)
        for (code, name) in names where code >= 0 { namesByCode[code] = InternedName.token(for: name) }
        self.entityNames = namesByCode
        defaults = entity.attributes.map(\.defaultValue)
        writesNull = entity.attributes.map(Self.writesNull)
        let propertySlots = attributeSlots + toOneSlots.compactMap { $0 }
        valuesComeInSlotOrder = zip(propertySlots, propertySlots.dropFirst()).allSatisfy { $0 < $1 }
            && propertySlots.allSatisfy { $0 < RecordLayout.maskedSlots }
        emptyRelationships = RelationshipStates(entity.relationships.map { $0.isToMany ? .unloaded : .toOne(nil) })
    }

    /// The key `value` gives at attribute `position` when it is a hinted one (the entity's
    /// integer key, an integer): what ``keyHints`` are noted and asked by.
    func hintedKey(_ value: AttributeValue, at position: Int) -> Int64? {
        guard position == integerKeyPosition, case .integer(let key) = value else { return nil }
        return key
    }

    /// Which properties a partial decode materialises: a flag per attribute position, and
    /// whether to-one references are read. The others keep their defaults (a partial
    /// state, never to be handed out as the object's).
    struct DecodeMask {
        let attributes: [Bool]
        let relationships: Bool
    }

    /// The mask for the properties named in `names`; nil (decode everything) for nil.
    func decodeMask(_ names: Set<String>?) -> DecodeMask? {
        guard let names else { return nil }
        return DecodeMask(
            attributes: entity.attributes.map { names.contains($0.name) },
            relationships: entity.relationships.contains { names.contains($0.name) }
        )
    }

    /// Whether a null of `attribute` is written (O8): a missing slot reads as the
    /// default, so only an optional attribute with a default needs the null kept.
    static func writesNull(_ attribute: AttributeDescription) -> Bool {
        attribute.isOptional && !attribute.defaultValue.isNull
    }

    func encode(_ state: ObjectState) -> [UInt8] {
        var builder = RecordLayout.Builder()
        return encode(state, using: &builder)
    }

    /// The record of `state`, built in `builder` (reset first), which keeps its buffers
    /// for the next record.
    func encode(_ state: ObjectState, using builder: inout RecordLayout.Builder) -> [UInt8] {
        var record: [UInt8] = []
        encode(state, using: &builder, into: &record)
        return record
    }

    /// Appends the record of `state` to `record` (a batch's buffer), built in `builder`.
    /// Values that come in slot order go straight onto `record` behind a presence mask
    /// worked out first; otherwise the builder gathers them and orders them by slot.
    func encode(_ state: ObjectState, using builder: inout RecordLayout.Builder, into record: inout [UInt8]) {
        guard valuesComeInSlotOrder else {
            builder.reset()
            for position in state.attributes.indices where writes(state.attributes[position], at: position) {
                builder.add(state.attributes[position], slot: attributeSlots[position])
            }
            for position in state.relationships.indices {
                guard let slot = toOneSlots[position], let target = reference(state.relationships[position], at: position) else { continue }
                builder.beginValue(slot: slot)
                builder.appendReference(entityCode: target.code, number: target.number)
            }
            builder.write(entityCode: entityCode, into: &record)
            return
        }
        var presence: UInt64 = 0
        for position in state.attributes.indices where writes(state.attributes[position], at: position) {
            presence |= 1 << UInt64(attributeSlots[position])
        }
        for position in state.relationships.indices {
            guard let slot = toOneSlots[position], reference(state.relationships[position], at: position) != nil else { continue }
            presence |= 1 << UInt64(slot)
        }
        builder.beginValueList(entityCode: entityCode, presence: presence, onto: &record)
        for position in state.attributes.indices where writes(state.attributes[position], at: position) {
            Self.append(state.attributes[position], to: &builder)
        }
        for position in state.relationships.indices {
            guard toOneSlots[position] != nil, let target = reference(state.relationships[position], at: position) else { continue }
            builder.appendReference(entityCode: target.code, number: target.number)
        }
        builder.endValueList(onto: &record)
    }

    /// Whether attribute `position`'s `value` is written: a null only where it would not
    /// read back as the default (O8).
    @inline(__always)
    private func writes(_ value: AttributeValue, at position: Int) -> Bool {
        !value.isNull || writesNull[position]
    }

    /// The entity code and number that a to-one `relationship` at `position` stores; nil
    /// for a to-many, no target, or a target of an entity the store does not know.
    @inline(__always)
    private func reference(_ relationship: RelationshipState, at position: Int) -> (code: Int, number: Int64)? {
        guard case .toOne(let target?) = relationship else { return nil }
        let code = if let destination = destinationCodes[position], destination.name == target.entityName {
            destination.code
        } else {
            slots.entityCode(target.entityName)
        }
        return code.map { ($0, target.number) }
    }

    /// The state stored in `bytes` for object `number`. To-many relationships come back
    /// `unloaded`; attributes the record lacks, at their defaults.
    func decode(_ bytes: [UInt8], number: Int64) throws(MagicalRecordError) -> ObjectState {
        try bytes.withUnsafeBytes { raw in
            Result { () throws(MagicalRecordError) in try decode(raw, number: number, attributes: nil) }
        }.get()
    }

    /// The state in `raw`, materialising only the attributes `mask` flags (all when nil);
    /// the rest are skipped without building their values.
    func decode(_ raw: UnsafeRawBufferPointer, number: Int64, attributes mask: DecodeMask?) throws(MagicalRecordError) -> ObjectState {
        if mask == nil, let header = RecordLayout.Header(raw, entityCode: entityCode), header.hasPresence {
            return try decodeWhole(raw, header, number: number)
        }
        var relationships = emptyRelationships
        let readsReferences = mask?.relationships ?? true
        // Each value goes straight to its place, and only places the record leaves empty take
        // their default afterwards: copying the defaults first and replacing them copied and
        // destroyed each value twice. Places are tracked in one word; past 64 attributes the
        // defaults are copied first after all.
        let isPreset = defaults.count > UInt64.bitWidth
        var failure: MagicalRecordError?
        let attributes = [AttributeValue](unsafeUninitializedCapacity: defaults.count) { buffer, count in
            if isPreset { _ = buffer.initialize(from: defaults) }
            var filled: UInt64 = 0
            do throws(MagicalRecordError) {
                try walk(raw, number: number, wants: { mask?.attributes[$0] ?? true }) { position, value in
                    if isPreset || filled & (1 << position) != 0 {
                        buffer[position] = value
                    } else {
                        (buffer.baseAddress! + position).initialize(to: value)
                        filled |= 1 << position
                    }
                } reference: { position, code, target in
                    guard readsReferences, code < entityNames.count, let name = entityNames[code] else { return }
                    relationships[position] = .toOne(ObjectID(entityName: name, number: Int64(target)))
                }
            } catch {
                failure = error
            }
            if !isPreset {
                for position in defaults.indices where filled & (1 << position) == 0 {
                    (buffer.baseAddress! + position).initialize(to: defaults[position])
                }
            }
            count = defaults.count
        }
        if let failure { throw failure }
        return ObjectState(id: ObjectID(entityName: entity.internedName, number: number), attributes: attributes, relationships: relationships)
    }

    /// Every field of a value-list or offset-table record, as ``walk`` checks them, in one
    /// loop with no closure per value: a point get's decode. Arrays are built by appending
    /// into reserved room, which Swift specialises for the element type: an uninitialised
    /// array of attribute values took the standard library's generic allocation path, and
    /// a copy of the defaults its generic element copy, each a sixth of the decode.
    private func decodeWhole(_ raw: UnsafeRawBufferPointer, _ header: RecordLayout.Header, number: Int64) throws(MagicalRecordError) -> ObjectState {
        var attributes: [AttributeValue] = []
        attributes.reserveCapacity(defaults.count)
        var relationships = emptyRelationships
        var reader = ByteReader(raw, at: header.fieldsStart)
        var unvisited = header.presence
        var index = 0
        while unvisited != 0 {
            let slot = unvisited.trailingZeroBitCount
            unvisited &= unvisited - 1
            // Values lie one after another, each where a table says.
            guard !header.hasOffsetTable || header.valueRange(index, in: raw)?.lowerBound == reader.position,
                  let tag = reader.read(UInt8.self) else { throw damaged(number) }
            index += 1
            let position = slot < positions.count ? positions[slot] : Self.unknownSlot
            if tag == Tag.object {
                guard let code = reader.readVarint(), let target = reader.readVarint() else { throw damaged(number) }
                guard position < 0, position != Self.unknownSlot, code < entityNames.count, let name = entityNames[code] else { continue }
                relationships[-1 - position] = .toOne(ObjectID(entityName: name, number: Int64(target)))
            } else if position >= 0 {
                guard let value = Self.readValue(tag, &reader) else { throw damaged(number) }
                // Slots ascend with positions unless attributes were reordered in a model
                // version: positions passed over take their defaults.
                if position < attributes.count {
                    attributes[position] = value
                } else {
                    while attributes.count < position { attributes.append(defaults[attributes.count]) }
                    attributes.append(value)
                }
            } else {
                guard Self.skipValue(tag, &reader) else { throw damaged(number) }
            }
        }
        guard reader.position == raw.count else { throw damaged(number) }
        while attributes.count < defaults.count { attributes.append(defaults[attributes.count]) }
        return ObjectState(id: ObjectID(entityName: entity.internedName, number: number), attributes: attributes, relationships: relationships)
    }

    /// Reads the attributes `mask` flags from `raw` into `attributes` (by position; one
    /// the record lacks gets its default), building no state: a scan reuses one array for
    /// every record. It checks the record's structure as far as it reads, and stops once
    /// it has every flagged attribute: what follows cannot change them.
    func decodeAttributes(
        _ raw: UnsafeRawBufferPointer, number: Int64, mask: [Bool], into attributes: inout [AttributeValue], shape: RecordShape
    ) throws(MagicalRecordError) {
        var failure: MagicalRecordError?
        attributes.withUnsafeMutableBufferPointer { buffer in
            do throws(MagicalRecordError) {
                try decodeAttributes(raw, number: number, mask: mask, into: buffer, shape: shape)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// The same into a buffer, as a scan's reused one: writing it checks no uniqueness.
    func decodeAttributes(
        _ raw: UnsafeRawBufferPointer, number: Int64, mask: [Bool], into attributes: UnsafeMutableBufferPointer<AttributeValue>,
        shape: RecordShape
    ) throws(MagicalRecordError) {
        var remaining = 0
        var wantedSlots: UInt64 = 0
        for position in mask.indices where mask[position] {
            attributes[position] = defaults[position]
            remaining += 1
            wantedSlots |= Self.maskBit(attributeSlots[position])
        }
        let header = try header(raw, number: number, shape: shape)
        if header.hasOffsetTable {
            for position in mask.indices where mask[position] {
                guard let range = try valueRange(ofAttribute: position, header, raw, number: number, shape: shape) else { continue }
                var reader = ByteReader(UnsafeRawBufferPointer(rebasing: raw[..<range.upperBound]), at: range.lowerBound)
                guard let tag = reader.read(UInt8.self) else { throw damaged(number) }
                // A reference under an attribute's slot is not its value (as in a walk).
                if tag == Tag.object { continue }
                guard let value = Self.readValue(tag, &reader), reader.position == range.upperBound else { throw damaged(number) }
                attributes[position] = value
            }
            return
        }
        if header.hasPresence {
            try stepValues(raw, header, number: number, wantedSlots: wantedSlots) { position, value in
                var reader = ByteReader(UnsafeRawBufferPointer(rebasing: raw[..<value.upperBound]), at: value.lowerBound)
                guard let tag = reader.read(UInt8.self), let read = Self.readValue(tag, &reader), reader.position == value.upperBound else { return false }
                attributes[position] = read
                return true
            }
            return
        }
        var reader = ByteReader(raw, at: header.fieldsStart)
        var slots = RecordLayout.SlotReader(header)
        for _ in 0..<header.count {
            guard remaining > 0 else { return }
            guard let slot = slots.next(&reader, in: raw), let tag = reader.read(UInt8.self) else { throw damaged(number) }
            let position = slot < positions.count ? positions[slot] : Self.unknownSlot
            if position >= 0, position < mask.count, mask[position], tag != Tag.object {
                guard let value = Self.readValue(tag, &reader) else { throw damaged(number) }
                attributes[position] = value
                remaining -= 1
            } else if tag == Tag.object {
                guard reader.readVarint() != nil, reader.readVarint() != nil else { throw damaged(number) }
            } else {
                guard Self.skipValue(tag, &reader) else { throw damaged(number) }
            }
        }
        guard reader.position == raw.count else { throw damaged(number) }
    }

    /// The same, and the targets of the to-one relationships at `relationships` into
    /// `targets` (by relationship position; nil for none, or for a target of an entity the
    /// store does not know, as a decode reads it): an aggregate grouped by a department's
    /// name reads each person's reference in place instead of decoding a state for it.
    func decodeAttributes(
        _ raw: UnsafeRawBufferPointer, number: Int64, mask: [Bool], into attributes: UnsafeMutableBufferPointer<AttributeValue>,
        targetsOf relationships: [Int], into targets: UnsafeMutableBufferPointer<ObjectID?>, shape: RecordShape
    ) throws(MagicalRecordError) {
        let header = try header(raw, number: number, shape: shape)
        let inMask = relationships.allSatisfy { toOneSlots[$0].map { $0 < RecordLayout.maskedSlots } ?? false }
        guard header.hasPresence, !header.hasOffsetTable, inMask else {
            // Layouts a step cannot read references from: decoded the long way.
            let state = try decode(raw, number: number, attributes: DecodeMask(attributes: mask, relationships: true))
            for position in mask.indices where mask[position] { attributes[position] = state.attributes[position] }
            for position in relationships {
                targets[position] = if case .toOne(let target) = state.relationships[position] { target } else { nil }
            }
            return
        }
        var wantedSlots: UInt64 = 0
        for position in mask.indices where mask[position] {
            attributes[position] = defaults[position]
            wantedSlots |= Self.maskBit(attributeSlots[position])
        }
        for position in relationships {
            targets[position] = nil
            wantedSlots |= toOneSlots[position].map(Self.maskBit) ?? 0
        }
        try stepValues(raw, header, number: number, wantedSlots: wantedSlots) { position, value in
            var reader = ByteReader(UnsafeRawBufferPointer(rebasing: raw[..<value.upperBound]), at: value.lowerBound + 1)
            guard position < 0 else {
                guard let read = Self.readValue(raw[value.lowerBound], &reader), reader.position == value.upperBound else { return false }
                attributes[position] = read
                return true
            }
            guard let code = reader.readVarint(), let target = reader.readVarint() else { return false }
            if code < entityNames.count, let name = entityNames[code] {
                targets[-1 - position] = ObjectID(entityName: name, number: Int64(target))
            }
            return true
        }
    }

    /// Where each attribute `wanted` flags lies in `raw`: `offsets` gets the offset of its
    /// tag byte (-1 when the record lacks it), `ends` the end of its value, by position,
    /// building no value: a filter tests fields in place, within their own bytes. It checks
    /// the record's structure as far as it reads, and stops once it has found every flagged
    /// attribute.
    func locateAttributes(
        _ raw: UnsafeRawBufferPointer, number: Int64, wanted: UnsafeBufferPointer<Bool>,
        offsets: UnsafeMutableBufferPointer<Int>, ends: UnsafeMutableBufferPointer<Int>, shape: RecordShape
    ) throws(MagicalRecordError) {
        let header = try header(raw, number: number, shape: shape)
        try locateAttributes(raw, header, number: number, wanted: wanted, offsets: offsets, ends: ends, shape: shape)
    }

    /// The same for a record whose header the caller has read with `shape`.
    func locateAttributes(
        _ raw: UnsafeRawBufferPointer, _ header: RecordLayout.Header, number: Int64, wanted: UnsafeBufferPointer<Bool>,
        offsets: UnsafeMutableBufferPointer<Int>, ends: UnsafeMutableBufferPointer<Int>, shape: RecordShape
    ) throws(MagicalRecordError) {
        if header.hasOffsetTable {
            for position in wanted.indices where wanted[position] {
                let range = try attributeField(position, header, raw, number: number, shape: shape)
                offsets[position] = range?.lowerBound ?? -1
                ends[position] = range?.upperBound ?? -1
            }
            return
        }
        var remaining = 0
        var wantedSlots: UInt64 = 0
        for position in wanted.indices where wanted[position] {
            offsets[position] = -1
            remaining += 1
            wantedSlots |= Self.maskBit(attributeSlots[position])
        }
        if header.hasPresence {
            try stepValues(raw, header, number: number, wantedSlots: wantedSlots) { position, value in
                offsets[position] = value.lowerBound
                ends[position] = value.upperBound
                return true
            }
            return
        }
        var reader = ByteReader(raw, at: header.fieldsStart)
        var slots = RecordLayout.SlotReader(header)
        for _ in 0..<header.count {
            guard remaining > 0 else { return }
            guard let slot = slots.next(&reader, in: raw) else { throw damaged(number) }
            let start = reader.position
            guard let tag = reader.read(UInt8.self) else { throw damaged(number) }
            let position = slot < positions.count ? positions[slot] : Self.unknownSlot
            if tag == Tag.object {
                guard reader.readVarint() != nil, reader.readVarint() != nil else { throw damaged(number) }
                continue
            }
            guard Self.skipValue(tag, &reader) else { throw damaged(number) }
            if position >= 0, position < wanted.count, wanted[position], offsets[position] < 0 {
                offsets[position] = start
                ends[position] = reader.position
                remaining -= 1
            }
        }
        guard reader.position == raw.count else { throw damaged(number) }
    }

    /// The presence-mask bits of the attributes at `positions` (none for a slot a mask
    /// cannot hold): what ``locateValues(_:_:number:positions:slots:offsets:ends:)`` takes.
    func presenceBits(ofAttributes positions: [Int]) -> UInt64 {
        positions.reduce(0) { $0 | Self.maskBit(attributeSlots[$1]) }
    }

    /// Where the attributes at `positions` lie in a value list whose header the caller
    /// has read, as ``locateAttributes(_:number:wanted:offsets:ends:shape:)`` gives them;
    /// `slots` are their ``presenceBits(ofAttributes:)``. A filter's own: it knows its
    /// attributes once, where the general locate goes over every attribute per record.
    @inline(__always)
    func locateValues(
        _ raw: UnsafeRawBufferPointer, _ header: RecordLayout.Header, number: Int64, positions: UnsafeBufferPointer<Int>, slots: UInt64,
        offsets: UnsafeMutableBufferPointer<Int>, ends: UnsafeMutableBufferPointer<Int>
    ) throws(MagicalRecordError) {
        for position in positions { offsets[position] = -1 }
        try stepValues(raw, header, number: number, wantedSlots: slots) { position, value in
            offsets[position] = value.lowerBound
            ends[position] = value.upperBound
            return true
        }
    }

    /// Steps over a value list's values in order, checking each (its tag known, its payload
    /// within the record), up to the last whose slot is in `wantedSlots`, and hands `take`
    /// each of those (the attribute's position, and its bytes from the tag on) unless it
    /// holds a reference, or (position `-1 - r`) the reference of a wanted to-one `r`;
    /// `take` answers false when the value does not read. What follows the last wanted
    /// value cannot change it: a full decode checks it. One loop with every step inlined:
    /// a scan, count or sort steps over every value before the ones it reads.
    @inline(__always)
    private func stepValues(
        _ raw: UnsafeRawBufferPointer, _ header: RecordLayout.Header, number: Int64, wantedSlots: UInt64,
        _ take: (_ position: Int, _ value: Range<Int>) -> Bool
    ) throws(MagicalRecordError) {
        var start = header.fieldsStart
        var unvisited = header.presence
        while unvisited & wantedSlots != 0 {
            let slot = unvisited.trailingZeroBitCount
            unvisited &= unvisited - 1
            guard let end = Self.valueEnd(raw, from: start) else { throw damaged(number) }
            if wantedSlots & (1 << UInt64(slot)) != 0 {
                // An attribute's value or a to-one's reference; anything else under a slot
                // is not its value (as in a walk).
                let position = positions[slot]
                if (raw[start] != Tag.object) == (position >= 0), position != Self.unknownSlot {
                    guard take(position, start..<end) else { throw damaged(number) }
                }
            }
            start = end
        }
    }

    /// The bit of `slot` in a presence mask; 0 for a slot the mask cannot hold (a record
    /// with such a slot is a slot list).
    @inline(__always)
    private static func maskBit(_ slot: Int) -> UInt64 {
        slot < RecordLayout.maskedSlots ? 1 << UInt64(slot) : 0
    }

    /// Where the value whose tag byte is at `start` ends in `raw`; nil when the tag is
    /// unknown or the value runs past the end, loading the bytes directly: the one place
    /// that knows each value's length.
    @inline(__always)
    static func valueEnd(_ raw: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start >= 0, start < raw.count, let base = raw.baseAddress else { return nil }
        let count = raw.count
        var at = start + 1
        let size: Int
        switch base.load(fromByteOffset: start, as: UInt8.self) {
        case Tag.null, Tag.false, Tag.true: return at
        case Tag.integer: return skipVarint(base, count, &at) == nil ? nil : at
        case Tag.object: return skipVarint(base, count, &at) == nil || skipVarint(base, count, &at) == nil ? nil : at
        case Tag.double, Tag.date: size = 8
        case Tag.float, Tag.wholeDouble, Tag.hundredthsDouble, Tag.wholeSecondsDate: size = 4
        case Tag.uuid: size = 16
        case Tag.decimal, Tag.string, Tag.data, Tag.uri:
            guard let length = skipVarint(base, count, &at), length <= UInt64(count - at) else { return nil }
            size = Int(length)
        default: return nil
        }
        return size <= count - at ? at + size : nil
    }

    /// Moves `at` past the varint there in the `count` bytes at `base`; its value, nil when
    /// it is longer than 10 bytes or cut short.
    @inline(__always)
    private static func skipVarint(_ base: UnsafeRawPointer, _ count: Int, _ at: inout Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while at < count, shift < 64 {
            let byte = base.load(fromByteOffset: at, as: UInt8.self)
            at += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }

    /// A memory of record layouts for one scan of this entity's records.
    func makeShape() -> RecordShape {
        RecordShape(attributeSlots: attributeSlots)
    }

    /// The header of `raw`, checked, its value count from `shape` (which learns the
    /// record's mask); a damaged-record error when it is not one of this entity's.
    @inline(__always)
    func header(_ raw: UnsafeRawBufferPointer, number: Int64, shape: RecordShape) throws(MagicalRecordError) -> RecordLayout.Header {
        guard let header = RecordLayout.Header(raw, entityCode: entityCode, valueCount: { shape.valueCount($0) }) else { throw damaged(number) }
        return header
    }

    /// Where attribute `position`'s value lies in a record with an offset table, whose
    /// header was read with `shape`; nil when the record lacks it.
    @inline(__always)
    func valueRange(
        ofAttribute position: Int, _ header: RecordLayout.Header, _ raw: UnsafeRawBufferPointer, number: Int64, shape: RecordShape
    ) throws(MagicalRecordError) -> Range<Int>? {
        guard let index = shape.valueIndex(ofAttribute: position) else { return nil }
        guard let range = header.valueRange(index, in: raw) else { throw damaged(number) }
        return range
    }

    /// Where attribute `position`'s value lies in a value list or a record with an offset
    /// table, whose header was read with `shape`; nil when the record lacks it, or holds a
    /// to-one reference under its slot (which a decode also reads as absent).
    @inline(__always)
    func attributeField(
        _ position: Int, _ header: RecordLayout.Header, _ raw: UnsafeRawBufferPointer, number: Int64, shape: RecordShape
    ) throws(MagicalRecordError) -> Range<Int>? {
        guard header.hasOffsetTable else {
            var found: Range<Int>?
            try stepValues(raw, header, number: number, wantedSlots: Self.maskBit(attributeSlots[position])) { _, value in
                found = value
                return true
            }
            return found
        }
        guard let range = try valueRange(ofAttribute: position, header, raw, number: number, shape: shape) else { return nil }
        return raw[range.lowerBound] != Tag.object ? range : nil
    }

    /// Walks every field of `raw`, checking the whole record: `attribute` gets the value of
    /// each attribute whose position `wants` (the others are skipped unbuilt), `reference`
    /// each to-one reference (relationship position, entity code, object number). A slot
    /// of a property this model no longer has is skipped (Spec: O9).
    @inline(__always)
    private func walk(
        _ raw: UnsafeRawBufferPointer, number: Int64, wants: (Int) -> Bool,
        attribute: (Int, AttributeValue) -> Void, reference: (Int, Int, Int) -> Void
    ) throws(MagicalRecordError) {
        let header = try header(raw, number: number)
        var reader = ByteReader(raw, at: header.fieldsStart)
        var slots = RecordLayout.SlotReader(header)
        for _ in 0..<header.count {
            guard let slot = slots.next(&reader, in: raw), let tag = reader.read(UInt8.self) else { throw damaged(number) }
            let position = slot < positions.count ? positions[slot] : Self.unknownSlot
            if tag == Tag.object {
                guard let code = reader.readVarint(), let target = reader.readVarint() else { throw damaged(number) }
                if position < 0, position != Self.unknownSlot { reference(-1 - position, code, target) }
                continue
            }
            if position >= 0, wants(position) {
                guard let value = Self.readValue(tag, &reader) else { throw damaged(number) }
                attribute(position, value)
            } else {
                guard Self.skipValue(tag, &reader) else { throw damaged(number) }
            }
        }
        guard reader.position == raw.count else { throw damaged(number) }
    }

    /// Reads a record's header (layout version, entity code).
    @inline(__always)
    private func header(_ raw: UnsafeRawBufferPointer, number: Int64) throws(MagicalRecordError) -> RecordLayout.Header {
        guard let header = RecordLayout.Header(raw, entityCode: entityCode) else { throw damaged(number) }
        return header
    }

    /// Every attribute at its default, by position: the starting point of a scratch array.
    var defaultAttributes: [AttributeValue] { defaults }

    private func damaged(_ number: Int64) -> MagicalRecordError {
        .damagedRecord(ObjectID(entityName: entity.name, number: number))
    }

    /// Steps over one value's payload, its tag just read from `reader`; false when it runs
    /// past the end or the tag is unknown (or a reference's, which callers read themselves).
    static func skipValue(_ tag: UInt8, _ reader: inout ByteReader) -> Bool {
        guard tag != Tag.object, let end = valueEnd(reader.bytes, from: reader.position - 1) else { return false }
        reader.position = end
        return true
    }

    static func append(_ value: AttributeValue, to builder: inout RecordLayout.Builder) {
        switch value {
        case .null:
            builder.appendValueBytes(tag: Tag.null)
        case .integer(let number):
            builder.appendValueBytes(upTo: 11) { start in
                start.storeBytes(of: Tag.integer, as: UInt8.self)
                return 1 + RecordLayout.Builder.storeVarint(zigzag(number), at: start + 1)
            }
        case .double(let number):
            if let whole = compactWhole(number) {
                builder.appendValueBytes(tag: Tag.wholeDouble, littleEndian: whole)
            } else if let hundredths = hundredths(of: number) {
                builder.appendValueBytes(tag: Tag.hundredthsDouble, littleEndian: hundredths)
            } else {
                builder.appendValueBytes(tag: Tag.double, littleEndian: number.bitPattern)
            }
        case .float(let number):
            builder.appendValueBytes(tag: Tag.float, littleEndian: number.bitPattern)
        case .decimal(let number):
            appendText(number.description, tag: Tag.decimal, to: &builder)
        case .bool(let flag):
            builder.appendValueBytes(tag: flag ? Tag.true : Tag.false)
        case .string(let text):
            appendText(text, tag: Tag.string, to: &builder)
        case .date(let date):
            if let seconds = compactWhole(date.timeIntervalSince1970) {
                builder.appendValueBytes(tag: Tag.wholeSecondsDate, littleEndian: seconds)
            } else {
                builder.appendValueBytes(tag: Tag.date, littleEndian: date.timeIntervalSince1970.bitPattern)
            }
        case .data(let data):
            data.withUnsafeBytes { builder.appendValueBytes(tag: Tag.data, lengthPrefixed: $0) }
        case .uuid(let uuid):
            withUnsafeBytes(of: uuid.uuid) { bytes in
                builder.appendValueBytes(upTo: 17) { start in
                    start.storeBytes(of: Tag.uuid, as: UInt8.self)
                    (start + 1).copyMemory(from: bytes.baseAddress!, byteCount: 16)
                    return 17
                }
            }
        case .uri(let url):
            appendText(url.absoluteString, tag: Tag.uri, to: &builder)
        }
    }

    private static func zigzag(_ number: Int64) -> UInt64 {
        UInt64(bitPattern: (number << 1) ^ (number >> 63))
    }

    static func unzigzag(_ zigzag: UInt64) -> Int64 {
        Int64(bitPattern: (zigzag >> 1) ^ (0 &- (zigzag & 1)))
    }

    /// `number` as a whole number when it is one that fits 32 bits and reads back bit for
    /// bit (so not -0.0); else nil.
    private static func compactWhole(_ number: Double) -> Int32? {
        guard let whole = Int32(exactly: number) else { return nil }
        return Double(whole).bitPattern == number.bitPattern ? whole : nil
    }

    /// `number` × 100 when that is a whole number that fits 32 bits and from which dividing
    /// by 100 gives `number` back bit for bit (two decimals, as prices are); else nil.
    static func hundredths(of number: Double) -> Int32? {
        guard let hundredths = Int32(exactly: (number * 100).rounded()) else { return nil }
        return (Double(hundredths) / 100).bitPattern == number.bitPattern ? hundredths : nil
    }

    private static func appendText(_ text: String, tag: UInt8, to builder: inout RecordLayout.Builder) {
        var text = text
        text.withUTF8 { builder.appendValueBytes(tag: tag, lengthPrefixed: UnsafeRawBufferPointer($0)) }
    }

    static func readValue(_ tag: UInt8, _ reader: inout ByteReader) -> AttributeValue? {
        switch tag {
        case Tag.null: return .null
        case Tag.integer: return reader.readVarintUInt64().map { .integer(unzigzag($0)) }
        case Tag.double: return reader.read(UInt64.self).map { .double(Double(bitPattern: $0)) }
        case Tag.wholeDouble: return reader.read(Int32.self).map { .double(Double($0)) }
        case Tag.hundredthsDouble: return reader.read(Int32.self).map { .double(Double($0) / 100) }
        case Tag.wholeSecondsDate: return reader.read(Int32.self).map { .date(Date(timeIntervalSince1970: Double($0))) }
        case Tag.float: return reader.read(UInt32.self).map { .float(Float(bitPattern: $0)) }
        case Tag.decimal: return readText(&reader).flatMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) }.map { .decimal($0) }
        case Tag.false: return .bool(false)
        case Tag.true: return .bool(true)
        case Tag.string: return readText(&reader).map { .string($0) }
        case Tag.date: return reader.read(UInt64.self).map { .date(Date(timeIntervalSince1970: Double(bitPattern: $0))) }
        case Tag.data:
            guard let count = reader.readVarint(), let start = reader.skip(count) else { return nil }
            return .data(Data(reader.bytes[start..<start + count]))
        case Tag.uuid:
            guard let start = reader.skip(16) else { return nil }
            let raw = reader.bytes
            return .uuid(UUID(uuid: (raw[start], raw[start + 1], raw[start + 2], raw[start + 3], raw[start + 4], raw[start + 5],
                                     raw[start + 6], raw[start + 7], raw[start + 8], raw[start + 9], raw[start + 10],
                                     raw[start + 11], raw[start + 12], raw[start + 13], raw[start + 14], raw[start + 15])))
        case Tag.uri: return readText(&reader).flatMap { URL(string: $0) }.map { .uri($0) }
        default: return nil
        }
    }

    private static func readText(_ reader: inout ByteReader) -> String? {
        guard let count = reader.readVarint(), let start = reader.skip(count) else { return nil }
        let raw = UnsafeRawBufferPointer(rebasing: reader.bytes[start..<start + count])
        let text = raw.assumingMemoryBound(to: UInt8.self)
        // ASCII needs no validation, and `String(validating:)` is a generic call that looks
        // its metadata up each time: the common case goes the direct way.
        if RecordField.isASCII(raw) { return String(decoding: text, as: UTF8.self) }
        return String(validating: text, as: UTF8.self)
    }
}

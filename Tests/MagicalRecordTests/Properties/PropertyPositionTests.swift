import Testing
@testable import MagicalRecord

/// The positions typed properties read at, cached by key path object and entity
/// (``PropertyName/position(storage:entity:declared:)``), checked against the entity's own
/// lookup by name for more key paths than the cache's first table holds.
@Suite struct PropertyPositionTests {
    private static let attributeCount = 150

    private static func entity(named name: String, reversed: Bool) throws -> Entity {
        var names = (0..<attributeCount).map { "a\($0)" }
        if reversed { names.reverse() }
        let model = try ObjectModel(entities: [
            EntityDescription(name, attributes: names.map { AttributeDescription($0, .integer64) }),
        ])
        return try #require(model.entity(named: name))
    }

    @Test func positionsMatchTheEntitysAcrossGrowthAndEntities() throws {
        let forward = try Self.entity(named: "PositionForward", reversed: false)
        let backward = try Self.entity(named: "PositionBackward", reversed: true)
        // A subscript key path with an argument is a new object each time it is made:
        // hundreds of distinct identities, as hundreds of properties would give.
        let keyPaths: [AnyKeyPath] = (0..<300).map { \[Int][$0] }
        func name(_ index: Int) -> String { "a\(index)" }
        var declaredReads = 0
        for round in 0..<3 {
            for entity in [forward, backward, forward] {
                for (index, keyPath) in keyPaths.enumerated() {
                    let position = PropertyName.position(storage: keyPath, entity: entity) {
                        declaredReads += 1
                        return name(index)
                    }
                    #expect(position == entity.slot(ofAttribute: name(index)), "round \(round), key path \(index)")
                }
            }
        }
        // A key path's name is read again only when it is read in another entity than the
        // last: forward, backward, forward in the first round, then backward and forward.
        #expect(declaredReads == (3 + 2 + 2) * keyPaths.count)
    }
}

import MagicalStore
import Testing
@testable import MagicalRecord

/// An object's relationship states read and change as an array of them does, whether one
/// is held inline or several in an array, and a to-many's targets change in place.
/// (Records with one to-one decode to it: `RecordCodingTests`.)
@Suite struct RelationshipStatesTests {
    private static func id(_ number: Int64) -> ObjectID { ObjectID(entityName: "Item", number: number) }

    /// States drawn from every case, some to-one targets absent.
    private static func randomState(_ generator: inout SplitMix64) -> RelationshipState {
        switch generator.next() % 4 {
        case 0: .toOne(generator.next() % 3 == 0 ? nil : id(Int64(generator.next() % 50)))
        case 1: .toMany((0..<Int(generator.next() % 3)).map { _ in id(Int64(generator.next() % 50)) })
        case 2: .unloaded
        default: .added(TargetAdditions([id(Int64(generator.next() % 50))]))
        }
    }

    @Test func oneStateIsHeldInlineAndSeveralInAnArray() {
        let one: RelationshipStates = [.toOne(Self.id(1))]
        #expect(one.count == 1)
        #expect(one[0] == .toOne(Self.id(1)))
        #expect(one.withContiguousStorageIfAvailable { $0.count } == nil)

        let two: RelationshipStates = [.toOne(nil), .unloaded]
        #expect(Array(two) == [.toOne(nil), .unloaded])
        #expect(two.withContiguousStorageIfAvailable { $0.count } == 2)

        let none: RelationshipStates = []
        #expect(none.isEmpty)
        #expect(none.indices == 0..<0)
    }

    @Test func statesChangeAsAnArrayOfThemDoes() {
        var generator = SplitMix64(seed: 0x5EED_0005)
        for _ in 0..<300 {
            var reference = (0..<Int(generator.next() % 4)).map { _ in Self.randomState(&generator) }
            var states = RelationshipStates(reference)
            let copy = states
            for _ in 0..<Int(generator.next() % 6) where !reference.isEmpty {
                let position = Int(generator.next() % UInt64(reference.count))
                let state = Self.randomState(&generator)
                reference[position] = state
                states[position] = state
            }
            #expect(Array(states) == reference)
            #expect(states == RelationshipStates(reference))
            // A copy taken before is not changed with it.
            #expect(copy == RelationshipStates(Array(copy)))
            #expect((copy == states) == (Array(copy) == reference))
        }
    }

    @Test func anAssignmentChangesTheArrayInPlace() {
        var states: RelationshipStates = [.toOne(nil), .unloaded, .toMany([])]
        let storage = states.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) }
        states[1] = .toMany([Self.id(5)])
        states[0] = .toOne(Self.id(6))
        #expect(Array(states) == [.toOne(Self.id(6)), .toMany([Self.id(5)]), .toMany([])])
        #expect(states.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } == storage)
    }

    @Test func aToManyHeldInlineGrowsInPlace() {
        var targets = [Self.id(1)]
        targets.reserveCapacity(8)
        let storage = targets.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        var state = ObjectState(id: Self.id(100), attributes: [], relationships: [.toMany(targets)])
        targets = []
        state.appendTarget(Self.id(2), at: 0)
        guard case .toMany(let grown) = state.relationships[0] else {
            Issue.record("the to-many stays loaded")
            return
        }
        #expect(grown == [Self.id(1), Self.id(2)])
        #expect(grown.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) } == storage)
    }

    /// Targets join and leave a to-many, loaded or as additions, as they would a list of
    /// them, whether the state is held inline or in an array; a to-one is left alone.
    @Test func targetsJoinAndLeaveAsInAList() {
        var generator = SplitMix64(seed: 0x5EED_0006)
        for round in 0..<200 {
            let isInline = round % 2 == 0
            let start = Self.randomState(&generator)
            var state = ObjectState(
                id: Self.id(1_000), attributes: [], relationships: RelationshipStates(isInline ? [start] : [.toOne(nil), start])
            )
            let position = isInline ? 0 : 1
            var reference: [ObjectID]? = switch start {
            case .toMany(let targets): targets
            case .added(let additions): additions.ids
            case .unloaded: []
            case .toOne: nil
            }
            let isLoaded = if case .toMany = start { true } else { false }
            for _ in 0..<Int(generator.next() % 12) {
                let target = Self.id(Int64(generator.next() % 6))
                if generator.next() % 3 == 0 {
                    let index = reference?.firstIndex(of: target)
                    #expect(state.removeTarget(target, at: position) == (index != nil))
                    if let index { reference?.remove(at: index) }
                } else {
                    state.appendTarget(target, at: position)
                    // Additions hold each target once; a loaded to-many takes what it is given.
                    if isLoaded || reference?.contains(target) == false { reference?.append(target) }
                }
            }
            switch state.relationships[position] {
            case .toMany(let targets): #expect(isLoaded && targets == reference)
            case .added(let additions): #expect(!isLoaded && additions.ids == reference)
            case .unloaded: #expect(reference == [])
            case .toOne: #expect(reference == nil && state.relationships[position] == start)
            }
            if !isInline { #expect(state.relationships[0] == .toOne(nil)) }
        }
    }
}

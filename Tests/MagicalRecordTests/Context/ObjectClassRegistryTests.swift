import Dispatch
import Synchronization
import Testing
@testable import MagicalRecord

/// Class names as finders ask for them: each class's own, however the classes asked for
/// alternate, from any number of threads at once (the last one asked is read unlocked).
@Suite struct ObjectClassRegistryTests {
    final class Walrus: ManagedObject {}
    final class Narwhal: ManagedObject {}
    final class Renamed: ManagedObject {
        override class var entityName: String { "Beluga" }
    }

    @Test func namesEachClassAsWrittenFromEveryThread() {
        let types: [ManagedObject.Type] = [Walrus.self, Narwhal.self, Walrus.self, ManagedObject.self]
        let expected = ["Walrus", "Narwhal", "Walrus", "ManagedObject"]
        let wrong = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<(2_000 * testScale) {
                let index = (round + thread) % types.count
                if ObjectClassRegistry.name(of: types[index]) != expected[index] { wrong.withLock { $0 += 1 } }
            }
        }
        #expect(wrong.withLock { $0 } == 0)
        #expect(Renamed.entityName == "Beluga")
        #expect(Walrus.entityName == "Walrus")
    }
}

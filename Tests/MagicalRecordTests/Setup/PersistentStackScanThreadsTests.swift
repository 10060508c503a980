import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// `PersistentStack(scanThreads:)`: the threads a scan of a large entity may use reach the
/// store; none or a negative number is a clear error, and nothing is created.
@Suite struct PersistentStackScanThreadsTests {
    private static let model = """
        [{"name": "Note", "attributes": [{"name": "number", "type": "Integer 64"}]}]
        """

    @Test func theThreadsReachTheStore() throws {
        let fixture = MigrationFixture()
        let model = try MigrationFixture.model("v1", Self.model)
        let single = try PersistentStack(storeAt: fixture.url, model: model, durability: .normal, scanThreads: 1)
        #expect(single.mainContext.stack.store.store.options.scanThreads == 1)
        try single.close()
        let defaults = try PersistentStack(storeAt: fixture.url, model: model, durability: .normal)
        #expect(defaults.mainContext.stack.store.store.options.scanThreads == StoreOptions().scanThreads)
        try defaults.close()
    }

    @Test(arguments: [0, -2])
    func noThreadsIsAnError(threads: Int) throws {
        let fixture = MigrationFixture()
        let model = try MigrationFixture.model("v1", Self.model)
        #expect {
            try PersistentStack(storeAt: fixture.url, model: model, scanThreads: threads)
        } throws: { error in
            guard case MagicalRecordError.store(.invalidOption(let message)) = error else { return false }
            return message.contains("scan threads \(threads)")
        }
        #expect(!FileManager.default.fileExists(atPath: fixture.url.path))
    }
}

import Foundation
import Testing
@testable import MagicalRecord

/// Every suite that uses the default stack or other process-wide settings nests in this
/// one, which runs them one at a time: suites otherwise run in parallel.
@Suite(.serialized) enum GlobalStackTests {}

enum GlobalStack {
    /// Sets up an in-memory default stack for `model`, runs `body`, and cleans up.
    static func with<T>(model: ObjectModel, _ body: () throws -> T) throws -> T {
        try MagicalRecord.setupCoreDataStackWithInMemoryStore(model: model)
        defer { MagicalRecord.cleanUp() }
        return try body()
    }
}

import Foundation

/// `MAGICALRECORD_TEST_SCALE` (default 1) multiplies the iterations of every randomized
/// test of the object layer: modest in `make test`, larger on demand.
let testScale = max(1, Int(ProcessInfo.processInfo.environment["MAGICALRECORD_TEST_SCALE"] ?? "") ?? 1)

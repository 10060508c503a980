import Foundation
import Testing
@testable import MagicalRecord

/// An integer against a double, exactly (no rounding of the integer to 53 bits), against a
/// reference that splits the double into its integer part and its fraction.
@Suite struct ExactNumberOrderTests {
    private static func reference(_ integer: Int64, _ double: Double) -> ComparisonResult {
        if double.isNaN { return .orderedAscending }
        if double >= 0x1p63 { return .orderedAscending }
        if double < -0x1p63 { return .orderedDescending }
        let whole = Int64(double.rounded(.towardZero))
        if integer != whole { return integer < whole ? .orderedAscending : .orderedDescending }
        let fraction = double - double.rounded(.towardZero)
        return fraction > 0 ? .orderedAscending : (fraction < 0 ? .orderedDescending : .orderedSame)
    }

    private static let edgeIntegers: [Int64] = [
        0, 1, -1, 100_000, 1 << 53, (1 << 53) + 1, (1 << 53) - 1, -(1 << 53), -(1 << 53) - 1, Int64.max, Int64.min, Int64.max - 1,
    ]
    private static let edgeDoubles: [Double] = [
        0, -0.0, 0.5, -0.5, 100_000, 100_000.01, 99_999.99, 0x1p53, 0x1p53 + 2, 0x1p53 - 1, -0x1p53, 0x1p63, -0x1p63, 0x1p62,
        .infinity, -.infinity, .nan, .greatestFiniteMagnitude, .leastNonzeroMagnitude,
    ]

    @Test func edgesAgreeWithTheReference() {
        for integer in Self.edgeIntegers {
            for double in Self.edgeDoubles + Self.edgeIntegers.map(Double.init) {
                #expect(compareExactly(integer, double) == Self.reference(integer, double), "\(integer) against \(double)")
            }
        }
    }

    @Test(arguments: 0..<UInt64(4))
    func randomPairsAgreeWithTheReference(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<(5_000 * testScale) {
            let integer: Int64 = switch generator.next() % 3 {
            case 0: Int64(bitPattern: generator.next())
            case 1: Int64(bitPattern: generator.next()) >> Int64(generator.next() % 64)
            default: (1 << 53) + Int64(generator.next() % 9) - 4
            }
            let double: Double = switch generator.next() % 4 {
            case 0: Double(integer) + Double(Int64(generator.next() % 5) - 2) * 0.5
            case 1: Double(bitPattern: generator.next())
            case 2: Double(Int64(bitPattern: generator.next()) >> Int64(generator.next() % 64))
            default: Double(integer).nextUp
            }
            #expect(compareExactly(integer, double) == Self.reference(integer, double), "\(integer) against \(double)")
        }
    }
}

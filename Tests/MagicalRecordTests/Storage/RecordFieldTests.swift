import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// Fields ordered in place against a constant order as their decoded values do
/// (`AttributeValue.compare`), whatever form the record stores them in: doubles whole, in
/// hundredths or in 8 bytes (O12), against integer and double constants.
@Suite struct RecordFieldTests {
    private static let storedNumbers: [Double] = [
        0, -0.0, 1, -1, 2.99, 3, 3.01, -2.01, 0.01, 0.5, 1.0 / 3, 99_999.99, 100_000, 100_000.01,
        21_474_836.47, 21_474_836.48, 2_147_483_647, 2_147_483_648, -2_147_483_648, 1e300, .infinity, .nan,
    ]
    private static let integerConstants: [Int64] = [0, 1, -1, 3, -3, 100_000, 21_474_836, 2_147_483_647, Int64.max, Int64.min, 92_233_720_368_547_758]
    private static let doubleConstants: [Double] = [0, -0.0, 0.5, 2.99, 3, 3.005, 100_000, 100_000.01, 1e300, -.infinity, .nan]

    private func expectInPlaceOrder(_ stored: Double, against constant: AttributeValue, _ inPlace: RecordField.InPlaceConstant) {
        var bytes: [UInt8] = []
        RecordCoder.append(.double(stored), to: &bytes)
        let order = bytes.withUnsafeBytes { RecordField.compare($0, fieldAt: 0, against: inPlace, text: UnsafeRawBufferPointer(start: nil, count: 0)) }
        let expected = AttributeValue.compare(.double(stored), constant)
        #expect(order == expected, "\(stored) (tag \(bytes[0])) against \(constant)")
    }

    /// A fixed-width field cut short by the end of its bytes is not read in place (what
    /// follows is another field's, or not the record's): the caller decodes, which reports
    /// the damage.
    @Test func aFieldRunningPastTheRecordIsNotReadInPlace() {
        let cut: [[UInt8]] = [
            [RecordCoder.Tag.double, 1, 2, 3], [RecordCoder.Tag.date, 1, 2, 3, 4, 5, 6, 7],
            [RecordCoder.Tag.wholeDouble, 1, 2], [RecordCoder.Tag.hundredthsDouble, 1], [RecordCoder.Tag.wholeSecondsDate, 1, 2, 3],
            [RecordCoder.Tag.integer, 0x80, 0x80],
        ]
        let constants: [RecordField.InPlaceConstant] = [.integer(1), .double(1), .of(2.5), .date(Date(timeIntervalSince1970: 1))]
        for bytes in cut {
            for constant in constants {
                let order = bytes.withUnsafeBytes { RecordField.compare($0, fieldAt: 0, against: constant, text: UnsafeRawBufferPointer(start: nil, count: 0)) }
                #expect(order == nil, "\(bytes) against \(constant)")
            }
        }
    }

    @Test func doublesInEveryFormOrderAsTheirValues() {
        var random = SystemRandomNumberGenerator()
        var stored = Self.storedNumbers
        for _ in 0..<500 {
            stored.append(Double(Int64.random(in: -30_000_000...30_000_000, using: &random)) / 100)
            stored.append(Double(Int64.random(in: -300_000...300_000, using: &random)))
        }
        for number in stored {
            for constant in Self.integerConstants + stored.prefix(40).map({ Int64(exactly: $0) }).compactMap({ $0 }) {
                expectInPlaceOrder(number, against: .integer(constant), .integer(constant))
            }
            for constant in Self.doubleConstants + [number, number + 0.01, number - 0.01] {
                expectInPlaceOrder(number, against: .double(constant), .of(constant))
                expectInPlaceOrder(number, against: .double(constant), .double(constant))
            }
        }
    }
}

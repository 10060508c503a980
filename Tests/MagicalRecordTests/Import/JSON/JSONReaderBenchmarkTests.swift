import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// Parse speed on a generated array of person records (about 50 MB), against
/// JSONSerialization. Off unless asked, and meaningful only in release:
///
///     swift build -c release --build-tests
///     MAGICALRECORD_JSON_BENCHMARK=50 swift test -c release --skip-build --filter JSONReaderBenchmark
///
/// The variable's value is the document's size in MB.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["MAGICALRECORD_JSON_BENCHMARK"] != nil))
struct JSONReaderBenchmarkTests {
    private static let megabytes = Int(ProcessInfo.processInfo.environment["MAGICALRECORD_JSON_BENCHMARK"] ?? "") ?? 50

    @Test func personRecords() throws {
        let (data, count) = Self.people(bytes: Self.megabytes << 20)
        let folder = JSONScratchFolder()
        let file = try folder.file(Array(data))
        let size = Double(data.count) / 1e6
        print("document: \(count) records, \(String(format: "%.1f", size)) MB")

        func measure(_ name: String, _ body: () throws -> Int) rethrows {
            var best = Double.infinity
            var records = 0
            for _ in 0..<3 {
                let start = ContinuousClock.now
                records = try body()
                let elapsed = ContinuousClock.now - start
                best = min(best, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            }
            print("\(name): \(String(format: "%.3f", best)) s, \(String(format: "%.0f", size / best)) MB/s, "
                + "\(String(format: "%.2f", Double(records) / best / 1e6))M records/s")
            #expect(records == count)
        }
        try measure("JSONReader.read(Data)") {
            guard case .array(let people) = try JSONReader().read(data) else { return 0 }
            return people.count
        }
        try measure("JSONArrayStream(contentsOf:)") {
            var records = 0
            try JSONArrayStream(contentsOf: file).forEach { _, _ in records += 1 }
            return records
        }
        try measure("JSONSerialization.jsonObject") {
            (try JSONSerialization.jsonObject(with: data) as? [Any])?.count ?? 0
        }
    }

    /// Person records, compact, about `bytes` long in all.
    static func people(bytes: Int) -> (Data, Int) {
        var random = SplitMix64(seed: 50)
        let firstNames = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Margaret", "Niklaus"]
        let lastNames = ["Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson", "Hamilton", "Wirth"]
        let departments = ["Engineering", "Research", "Sales", "Operations", "Legal"]
        var text = "["
        var count = 0
        while text.utf8.count < bytes {
            let first = firstNames[Int.random(in: 0..<firstNames.count, using: &random)]
            let last = lastNames[Int.random(in: 0..<lastNames.count, using: &random)]
            let department = Int.random(in: 0..<departments.count, using: &random)
            if count > 0 { text += "," }
            text += #"{"personID":\#(count + 1),"firstName":"\#(first)","lastName":"\#(last)","#
            text += #""email":"\#(first.lowercased()).\#(last.lowercased())\#(count)@example.com","#
            text += #""age":\#(Int.random(in: 18...90, using: &random)),"salary":\#(Int.random(in: 20_000...200_000, using: &random)).\#(Int.random(in: 10...99, using: &random)),"#
            text += #""active":\#(Bool.random(using: &random)),"born":"19\#(Int.random(in: 30...99, using: &random))-0\#(Int.random(in: 1...9, using: &random))-1\#(Int.random(in: 0...9, using: &random))T08:30:00Z","#
            text += #""department":{"departmentID":\#(department),"name":"\#(departments[department])"},"#
            text += #""tags":["staff","level \#(Int.random(in: 1...5, using: &random))"],"notes":null}"#
            count += 1
        }
        text += "]"
        return (Data(text.utf8), count)
    }
}

import Foundation
import MagicalRecord

/// The progress line `mrstore import` keeps on a terminal's standard error, one update per
/// batch.
final class ImportProgressLine {
    private let enabled: Bool
    private let started = Date()
    private var shown = false

    init(enabled: Bool) {
        self.enabled = enabled
    }

    func show(_ progress: ImportProgress) {
        guard enabled else { return }
        let seconds = max(Date().timeIntervalSince(started), 0.001)
        let megabytes = Double(progress.bytesRead ?? 0) / 1_048_576
        let line = String(
            format: "\r%@ records, %.1f MB read, %@ records/s", grouped(progress.recordsRead), megabytes,
            grouped(Int(Double(progress.recordsRead) / seconds))
        )
        FileHandle.standardError.write(Data(line.utf8))
        shown = true
    }

    /// Ends the line, so what follows starts on its own.
    func finish() {
        if shown { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}

/// What `mrstore import` prints when it is done: a plain line, or one JSON object.
struct ImportSummary {
    let result: ImportResult
    let seconds: Double

    private var records: Int { result.recordsRead }
    private var rate: Int { seconds > 0 ? Int(Double(records) / seconds) : records }

    var text: String {
        "imported \(grouped(records)) records in " + String(format: "%.2f", seconds) + " s (\(grouped(rate)) records/s): "
            + "\(grouped(result.created)) objects created, \(grouped(result.updated)) updated, \(grouped(result.unchanged)) unchanged "
            + "(nested ones included); "
            + "\(grouped(result.declined)) records declined, \(grouped(result.skipped.count)) skipped"
    }

    var json: String {
        let skipped = result.skipped.map { error in
            "{\"record\":\(error.recordIndex.map(String.init) ?? "null"),\"error\":\(AttributeValue.jsonString(error.description))}"
        }
        return "{\"records\":\(records),\"created\":\(result.created),\"updated\":\(result.updated),\"unchanged\":\(result.unchanged),"
            + "\"declined\":\(result.declined),\"skipped\":[\(skipped.joined(separator: ","))],"
            + "\"seconds\":\(String(format: "%.3f", seconds)),\"records_per_second\":\(rate)}"
    }
}

/// 1234567 as "1,234,567".
func grouped(_ number: Int) -> String {
    let digits = String(number.magnitude)
    var groups: [Substring] = []
    var end = digits.endIndex
    while end > digits.startIndex {
        let start = digits.index(end, offsetBy: -3, limitedBy: digits.startIndex) ?? digits.startIndex
        groups.insert(digits[start..<end], at: 0)
        end = start
    }
    return (number < 0 ? "-" : "") + groups.joined(separator: ",")
}

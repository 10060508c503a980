import Foundation
import MagicalStore

/// One person of the workload, as every system stores it.
struct PersonRow: Codable, Sendable {
    var id: Int64
    var firstName: String
    var lastName: String
    var age: Int16
    var departmentID: Int32
    var salary: Double
    /// ISO 8601 in UTC, as JSON carries it (`2019-04-01T08:15:00Z`).
    var createdAt: String
}

/// The workload's data, deterministic for a record count: generated once, fed as the same
/// JSON bytes to every system.
struct BenchData: Sendable {
    static let departmentCount = 100
    static let lookupCount = 100_000

    let records: Int
    /// `records` people, keys 1...records in shuffled order.
    let peopleJSON: Data
    /// `records` people: half of them existing keys with changed fields, half new keys.
    let upsertJSON: Data
    /// The departments, `{"departmentID": d, "name": "Department d"}`.
    let departmentsJSON: Data
    /// Keys for the point lookups, all present after the import.
    let lookupKeys: [Int64]
    /// What each phase must answer (the run fails otherwise).
    let expected: ReferenceAnswers
    /// Rows stored once the upsert ran.
    var rowsAfterUpsert: Int { records + (records - records / 2) }

    init(records: Int) {
        self.records = records
        var generator = SplitMix64(seed: 0x6d72_6265_6e63_68)
        let keys = Array(Int64(1)...Int64(records)).shuffled(using: &generator)
        let people = keys.map { Self.person($0, generator: &generator) }
        peopleJSON = Self.json(people)

        let changed = keys.prefix(records / 2)
        let added = (Int64(records) + 1)...(Int64(records) + Int64(records - records / 2))
        let upsertKeys = (Array(changed) + Array(added)).shuffled(using: &generator)
        let upsert = upsertKeys.map { Self.person($0, generator: &generator) }
        upsertJSON = Self.json(upsert)

        departmentsJSON = Data(("[" + (0..<Self.departmentCount).map {
            #"{"departmentID":\#($0),"name":"Department \#($0)"}"#
        }.joined(separator: ",") + "]").utf8)
        lookupKeys = (0..<Self.lookupCount).map { _ in Int64.random(in: 1...Int64(records), using: &generator) }
        expected = ReferenceAnswers(people: people, upsert: upsert, lookupKeys: lookupKeys)
    }

    /// `count` new people with keys from `firstKey`, as JSON: the recovery phase's writes.
    static func newPeopleJSON(from firstKey: Int64, count: Int) -> Data {
        var generator = SplitMix64(seed: UInt64(firstKey))
        return json((0..<Int64(count)).map { person(firstKey + $0, generator: &generator) })
    }

    private static func person(_ id: Int64, generator: inout SplitMix64) -> PersonRow {
        PersonRow(
            id: id,
            firstName: name(length: Int.random(in: 4...9, using: &generator), generator: &generator),
            lastName: name(length: Int.random(in: 8...12, using: &generator), generator: &generator),
            age: Int16.random(in: 18...90, using: &generator),
            departmentID: Int32.random(in: 0..<Int32(departmentCount), using: &generator),
            salary: Double(Int.random(in: 2_000_000...20_000_000, using: &generator)) / 100,
            createdAt: timestamp(Int64.random(in: 1_420_070_400..<1_735_689_600, using: &generator))
        )
    }

    /// A capitalised name of random letters: initials spread evenly over A-Z.
    private static func name(length: Int, generator: inout SplitMix64) -> String {
        var scalars = [UInt8(ascii: "A") + UInt8.random(in: 0..<26, using: &generator)]
        for _ in 1..<length { scalars.append(UInt8(ascii: "a") + UInt8.random(in: 0..<26, using: &generator)) }
        return String(decoding: scalars, as: UTF8.self)
    }

    /// `seconds` since 1970 as `yyyy-MM-ddTHH:mm:ssZ` (civil-from-days, no formatter).
    static func timestamp(_ seconds: Int64) -> String {
        let days = seconds / 86_400
        let secondOfDay = seconds % 86_400
        let shifted = days + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(secondOfDay / 3_600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))Z"
    }

    private static func json(_ people: [PersonRow]) -> Data {
        var text = "["
        text.reserveCapacity(people.count * 150)
        for (position, person) in people.enumerated() {
            if position > 0 { text += ",\n" }
            text += #"{"id":\#(person.id),"firstName":"\#(person.firstName)","lastName":"\#(person.lastName)","#
            text += #""age":\#(person.age),"departmentID":\#(person.departmentID),"salary":\#(person.salary),"#
            text += #""createdAt":"\#(person.createdAt)"}"#
        }
        return Data((text + "]\n").utf8)
    }
}

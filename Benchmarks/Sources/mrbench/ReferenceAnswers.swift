/// What each phase must answer, worked out from the generated rows themselves (a simple
/// reference model: plain arrays, no database). The read phases run after the upsert, so
/// they see the people imported, with the upsert's rows in place of the ones it changed
/// and beside them its new people.
struct ReferenceAnswers: Sendable {
    /// Rows per page of the sorted phase.
    static let sortedPageSize = 1_000

    let imported: PhaseAnswer
    let upserted: PhaseAnswer
    let get: PhaseAnswer
    let scan: PhaseAnswer
    let sorted: PhaseAnswer
    let aggregate: PhaseAnswer
    let count: PhaseAnswer

    /// `people`: the import's rows, keys 1...people.count; `upsert`: the upsert's rows;
    /// `lookupKeys`: the get phase's keys, in order.
    init(people: [PersonRow], upsert: [PersonRow], lookupKeys: [Int64]) {
        imported = PhaseAnswer(count: people.count)
        upserted = PhaseAnswer(count: upsert.count)

        var lastNameByKey = [Int](repeating: 0, count: people.count + 1)
        var scan = AnswerDigest()
        var page = SortedPage(size: Self.sortedPageSize)
        var centsByDepartment = [Int?](repeating: nil, count: BenchData.departmentCount)
        var count = 0
        func store(_ row: PersonRow) {
            if row.id <= people.count { lastNameByKey[Int(row.id)] = AnswerDigest.fold(row.lastName) }
            if row.age > 40 && row.lastName.utf8.first == UInt8(ascii: "S") { scan.add(lastName: row.lastName) }
            page.offer(row)
            centsByDepartment[Int(row.departmentID)] = (centsByDepartment[Int(row.departmentID)] ?? 0) + AnswerDigest.cents(row.salary)
            if row.salary > 100_000 { count += 1 }
        }
        // The rows stored after the upsert: the imported ones it left, then all of its own
        // (walked in place: a joined copy of 1.5M rows would be the process's largest).
        var replaced = [Bool](repeating: false, count: people.count + 1)
        for row in upsert where row.id <= people.count { replaced[Int(row.id)] = true }
        for row in people where !replaced[Int(row.id)] { store(row) }
        for row in upsert { store(row) }
        self.scan = scan.answer
        self.count = PhaseAnswer(count: count)

        var get = AnswerDigest()
        for key in lookupKeys { get.add(folded: lastNameByKey[Int(key)]) }
        self.get = get.answer

        var sorted = AnswerDigest()
        for row in page.rows { sorted.append(lastName: row.lastName, firstName: row.firstName) }
        self.sorted = sorted.answer

        var aggregate = AnswerDigest()
        for (department, cents) in centsByDepartment.enumerated() {
            if let cents { aggregate.add(departmentID: department, cents: cents) }
        }
        self.aggregate = aggregate.answer
    }

    /// The answer `phase` must give; nil for the recovery phase, which checks itself.
    func answer(for phase: Phase) -> PhaseAnswer? {
        switch phase {
        case .importJSON: imported
        case .upsert: upserted
        case .get: get
        case .scan: scan
        case .sorted: sorted
        case .aggregate: aggregate
        case .count: count
        case .recovery: nil
        }
    }
}

/// The first rows by `lastName, firstName` in byte order (SQLite's `BINARY` collation and
/// our key order), kept sorted as rows are offered.
private struct SortedPage {
    let size: Int
    private(set) var rows: [PersonRow] = []

    init(size: Int) { self.size = size }

    mutating func offer(_ row: PersonRow) {
        if rows.count == size, let last = rows.last, !Self.precedes(row, last) { return }
        var low = 0
        var high = rows.count
        while low < high {
            let middle = (low + high) / 2
            if Self.precedes(row, rows[middle]) { high = middle } else { low = middle + 1 }
        }
        rows.insert(row, at: low)
        if rows.count > size { rows.removeLast() }
    }

    private static func precedes(_ left: PersonRow, _ right: PersonRow) -> Bool {
        if left.lastName != right.lastName { return left.lastName.utf8.lexicographicallyPrecedes(right.lastName.utf8) }
        return left.firstName.utf8.lexicographicallyPrecedes(right.firstName.utf8)
    }
}

/// What a phase gave back, beside the time it took: every system must answer as the
/// data's reference model says (``ReferenceAnswers``), or the run fails. A fast store
/// that finds the wrong rows must not win a table.
struct PhaseAnswer: Equatable, Sendable, CustomStringConvertible {
    /// Rows the phase returned: records read, people found, matches, groups, the count.
    var count: Int
    /// A digest of what came back, the same for every system that returned the same rows
    /// (see ``AnswerDigest``); 0 where the count says it all.
    var digest: Int = 0

    var description: String { digest == 0 ? "\(count)" : "\(count) (digest \(digest))" }
}

/// Folds the rows a phase returned into a ``PhaseAnswer/digest``. Cheap and identical for
/// every system, so the checks cost each the same inside its timed phase.
struct AnswerDigest {
    private(set) var count = 0
    private(set) var value = 0

    var answer: PhaseAnswer { PhaseAnswer(count: count, digest: value) }

    /// A person found or matched, in any order: its last name, summed.
    mutating func add(lastName: String) {
        add(folded: Self.fold(lastName))
    }

    /// The same with the last name already folded.
    mutating func add(folded lastName: Int) {
        count += 1
        value &+= lastName
    }

    /// A row of a sorted page: its names, in order.
    mutating func append(lastName: String, firstName: String) {
        count += 1
        value = value &* 1_000_003 &+ Self.fold(lastName) &* 31 &+ Self.fold(firstName)
    }

    /// One department's sum of salaries, in any order, compared in cents: every order of
    /// summing the same salaries rounds to the same cents.
    mutating func add(departmentID: Int, salarySum: Double) {
        add(departmentID: departmentID, cents: Self.cents(salarySum))
    }

    mutating func add(departmentID: Int, cents: Int) {
        count += 1
        value &+= (departmentID + 1) &* cents
    }

    static func cents(_ amount: Double) -> Int { Int((amount * 100).rounded()) }

    /// A polynomial over the name's UTF-8 bytes, read as one buffer: iterating the
    /// string's UTF-8 view cost about 360 instructions a name, a twenty-fifth of one of
    /// our point gets, which the harness, not the store, should not be charged with.
    static func fold(_ name: String) -> Int {
        var name = name
        return name.withUTF8 { bytes in
            var folded = 0
            for byte in bytes { folded = folded &* 131 &+ Int(byte) }
            return folded
        }
    }
}

/// One XML element's attributes, read the way Xcode writes them, with errors that give
/// the element's line.
struct XMLAttributes {
    private let values: [String: String]
    let line: Int

    init(_ values: [String: String], line: Int) {
        self.values = values
        self.line = line
    }

    subscript(key: String) -> String? { values[key] }

    /// The value, nil when it is absent or empty (Xcode writes `renamingIdentifier=""`).
    func nonEmpty(_ key: String) -> String? {
        values[key].flatMap { $0.isEmpty ? nil : $0 }
    }

    func required(_ key: String, of owner: String) throws(XMLReadFailure) -> String {
        guard let value = nonEmpty(key) else { throw failure("\(owner) has no \(key)") }
        return value
    }

    /// `YES` or `NO`; absent is `NO`, as Xcode writes only the flags that are set.
    func flag(_ key: String, of owner: String) throws(XMLReadFailure) -> Bool {
        switch values[key] {
        case nil: return false
        case "YES": return true
        case "NO": return false
        case let other?: throw failure("\(owner) has \(key)=\"\(other)\", not YES or NO")
        }
    }

    /// A count bound: a whole number from 0, 0 when absent.
    func count(_ key: String, of owner: String) throws(XMLReadFailure) -> Int {
        guard let text = values[key] else { return 0 }
        guard let number = Int(text), number >= 0 else { throw failure("\(owner) has \(key)=\"\(text)\", not a count") }
        return number
    }

    func failure(_ reason: String) -> XMLReadFailure {
        XMLReadFailure(line: line, reason: reason)
    }
}

/// What is wrong with an element, and on which line; becomes ``ModelError/unreadable(source:reason:)``.
struct XMLReadFailure: Error {
    let line: Int
    let reason: String
}

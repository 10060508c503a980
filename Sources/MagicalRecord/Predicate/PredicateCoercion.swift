import Foundation

/// Strings standing for dates, UUIDs and URIs (Spec/PREDICATES.md, P27): `born > "1990-01-01"`
/// compares a date attribute with a date, `id == "E621E1F8-..."` a UUID attribute with a UUID.
///
/// The validator converts such constants once, so a validated predicate compares dates with
/// dates; the evaluator converts too, for predicates evaluated without validation.
enum PredicateCoercion {
    private static let dateTime = Date.ISO8601FormatStyle()
    private static let dateTimeWithFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let dateOnly = Date.ISO8601FormatStyle().year().month().day()

    /// An ISO 8601 date: `2024-01-15T10:30:00Z`, with a fraction of a second
    /// (`...:00.250Z`) or an offset (`+02:00`), or a day alone (`2024-01-15`, midnight UTC).
    static func date(fromISO8601 text: String) -> Date? {
        // The styles are strict about length; cheap checks keep other strings from reaching them.
        guard text.count >= 10, text.first?.isNumber == true else { return nil }
        if text.count == 10 { return try? dateOnly.parse(text) }
        return (try? dateTime.parse(text)) ?? (try? dateTimeWithFraction.parse(text))
    }

    /// The types a string can stand for.
    enum Target {
        case date, uuid, uri

        init?(_ value: AttributeValue) {
            switch value {
            case .date: self = .date
            case .uuid: self = .uuid
            case .uri: self = .uri
            default: return nil
            }
        }
    }

    /// `text` as a value of `target`'s type, when it reads as one.
    static func value(from text: String, as target: Target) -> AttributeValue? {
        switch target {
        case .date: return date(fromISO8601: text).map(AttributeValue.date)
        case .uuid: return UUID(uuidString: text).map(AttributeValue.uuid)
        case .uri: return URL(string: text).map(AttributeValue.uri)
        }
    }

    /// The two values with a string converted to the other's type where it reads as one.
    static func harmonized(_ left: AttributeValue, _ right: AttributeValue) -> (AttributeValue, AttributeValue) {
        if case .string(let text) = left, let target = Target(right) {
            return (value(from: text, as: target) ?? left, right)
        }
        if case .string(let text) = right, let target = Target(left) {
            return (left, value(from: text, as: target) ?? right)
        }
        return (left, right)
    }
}

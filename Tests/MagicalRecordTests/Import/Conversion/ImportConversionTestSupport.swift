import Foundation
@testable import MagicalRecord

// Helpers shared by the ImportConversion test suites.

/// A JSON number with exactly this text (a float literal would respell it).
func jsonNumber(_ text: String) -> JSONValue {
    .number(JSONNumber(text: text))
}

func importConverted(_ json: JSONValue, _ type: AttributeType, userInfo: [String: String] = [:]) throws(ImportValueError) -> AttributeValue {
    try ImportConversion.value(from: json, for: AttributeDescription("value", type, userInfo: userInfo))
}

/// The reason converting fails, or nil when it does not.
func importFailure(_ json: JSONValue, _ type: AttributeType, userInfo: [String: String] = [:]) -> String? {
    do {
        _ = try importConverted(json, type, userInfo: userInfo)
        return nil
    } catch {
        return error.reason
    }
}

/// A UTC date from its fields, through Foundation's calendar (an independent reference; it
/// is Julian before 1582-10-15, so use it for later dates only).
func utcDate(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    return calendar.date(from: components)!
}


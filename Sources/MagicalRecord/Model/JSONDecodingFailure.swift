import Foundation

/// A `DecodingError` as one line that says where in the document it is:
/// `versions[0].entities[2].attributes[1].default: "abc" is not a UUID`.
enum JSONDecodingFailure {
    /// `data` is what failed to decode: Foundation's decoder on Linux says only "not
    /// valid JSON", also for a valid number that does not fit its member, so the parser is
    /// asked for the detail.
    static func describe(_ error: DecodingError, data: Data) -> String {
        switch error {
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(typeName(type))"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): expected \(typeName(type)), found null"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])): missing"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                do {
                    _ = try JSONSerialization.jsonObject(with: data)
                    return "a number does not fit its member (a fraction or too large where a whole number belongs)"
                } catch {
                    let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? context.debugDescription
                    return "not valid JSON (\(detail))"
                }
            }
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        guard !keys.isEmpty else { return "the document" }
        var text = ""
        for key in keys {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is [String: Any].Type: return "an object"
        case is Int.Type, is Int64.Type: return "an integer"
        case is Double.Type, is Float.Type: return "a number"
        default: return "\(type)"
        }
    }
}

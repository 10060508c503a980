import Foundation

/// An attribute's default value in the JSON model description, in the JSON type its
/// attribute type calls for (Spec/MODEL.md, M12): integers and finite doubles and floats
/// as numbers, booleans as `true`/`false`, decimals as their exact text, dates as ISO 8601
/// text, binary as base64, UUIDs and URIs as text. A null default is left out.
enum JSONDefaultValue {
    /// What JSON cannot hold as a number.
    private static let nonFinite: [String: Double] = ["nan": .nan, "inf": .infinity, "-inf": -.infinity]

    static func encode<Key: CodingKey>(
        _ value: AttributeValue, to container: inout KeyedEncodingContainer<Key>, forKey key: Key
    ) throws {
        switch value {
        case .null: break
        case .integer(let number): try container.encode(number, forKey: key)
        case .double(let number):
            try number.isFinite ? container.encode(number, forKey: key) : container.encode(name(ofNonFinite: number), forKey: key)
        case .float(let number):
            try number.isFinite ? container.encode(number, forKey: key) : container.encode(name(ofNonFinite: Double(number)), forKey: key)
        case .decimal(let number): try container.encode(number.isNaN ? "nan" : DecimalText.format(number), forKey: key)
        case .bool(let flag): try container.encode(flag, forKey: key)
        case .string(let text): try container.encode(text, forKey: key)
        case .date(let date):
            let interval = date.timeIntervalSinceReferenceDate
            if let text = ISO8601Text.format(date) {
                try container.encode(text, forKey: key)
            } else if interval.isFinite {
                try container.encode(interval, forKey: key)
            } else {
                try container.encode(name(ofNonFinite: interval), forKey: key)
            }
        case .data(let bytes): try container.encode(bytes.base64EncodedString(), forKey: key)
        case .uuid(let uuid): try container.encode(uuid.uuidString, forKey: key)
        case .uri(let url): try container.encode(url.absoluteString, forKey: key)
        }
    }

    static func decode<Key: CodingKey>(
        _ type: AttributeType, from container: KeyedDecodingContainer<Key>, forKey key: Key
    ) throws -> AttributeValue {
        guard container.contains(key), try !container.decodeNil(forKey: key) else { return .null }
        func text(_ parse: (String) -> AttributeValue?, expected: String) throws -> AttributeValue {
            let text = try container.decode(String.self, forKey: key)
            guard let value = parse(text) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "\"\(text)\" is not \(expected)")
            }
            return value
        }
        func number<Number: BinaryFloatingPoint & Decodable>(_: Number.Type) throws -> Number {
            if let number = try? container.decode(Number.self, forKey: key) { return number }
            guard let text = try? container.decode(String.self, forKey: key), let number = nonFinite[text] else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: container, debugDescription: "not a \(Number.self), \"nan\", \"inf\" or \"-inf\""
                )
            }
            return Number(number)
        }
        switch type {
        case .integer16, .integer32, .integer64:
            if let number = try? container.decode(Int64.self, forKey: key) { return .integer(number) }
            if (try? container.decode(Double.self, forKey: key)) != nil {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not a whole number that fits in 64 bits")
            }
            return .integer(try container.decode(Int64.self, forKey: key))
        case .double: return .double(try number(Double.self))
        case .float: return .float(try number(Float.self))
        case .decimal: return try text({ ($0 == "nan" ? Decimal.nan : DecimalText.parse($0)).map { .decimal($0) } }, expected: "a decimal number")
        case .boolean: return .bool(try container.decode(Bool.self, forKey: key))
        case .string: return .string(try container.decode(String.self, forKey: key))
        case .date:
            if let interval = try? container.decode(Double.self, forKey: key) {
                return .date(Date(timeIntervalSinceReferenceDate: interval))
            }
            return try text({ text in
                (ISO8601Text.parse(text) ?? nonFinite[text].map { Date(timeIntervalSinceReferenceDate: $0) }).map { .date($0) }
            }, expected: "an ISO 8601 date (YYYY-MM-DDTHH:MM:SS[.fraction]Z)")
        case .binary, .transformable:
            return try text({ Data(base64Encoded: $0).map { .data($0) } }, expected: "base64")
        case .uuid: return try text({ UUID(uuidString: $0).map { .uuid($0) } }, expected: "a UUID")
        case .uri: return try text({ URL(string: $0).map { .uri($0) } }, expected: "a URI")
        }
    }

    private static func name(ofNonFinite number: Double) -> String {
        number.isNaN ? "nan" : (number > 0 ? "inf" : "-inf")
    }
}

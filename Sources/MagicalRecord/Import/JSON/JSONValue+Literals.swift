/// Literals for building values in code and tests:
/// `let person: JSONValue = ["name": "Ada", "born": 1815, "tags": ["math", nil]]`.
/// Object literals keep their order as written; a float literal keeps the shortest
/// text of its `Double` (`1.5`, `1e+16`).
extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .number(JSONNumber(integer: value)) }
    public init(floatLiteral value: Double) { self = .number(JSONNumber(text: value.description)) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral members: (String, JSONValue)...) { self = .object(JSONObject(members)) }
}

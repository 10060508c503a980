import Foundation

/// A Swift type a typed attribute property (``Field``) can have: it says how it reads from
/// and writes to an ``AttributeValue``. The library conforms the integer types, `Double`,
/// `Float`, `Decimal`, `Bool`, `String`, `Date`, `Data`, `UUID`, `URL` and optionals of them;
/// conform a `RawRepresentable` enum by declaring the conformance and its ``valueForNil``.
public protocol AttributeConvertible {
    /// `value` as this type; nil when it does not convert without loss.
    init?(attributeValue value: AttributeValue)
    /// The value to store.
    var attributeValue: AttributeValue { get }
    /// What a non-optional property reads while its attribute is nil (an object whose
    /// required attribute is not set yet): zero, empty, or the epoch.
    static var valueForNil: Self { get }
    /// Whether an attribute of `type` suits this type: checked once per class, before a
    /// typed class's objects are handed out. By default, whether the type's extreme
    /// values all read as this type; a `RawRepresentable` asks its raw type.
    static func reads(_ type: AttributeType) -> Bool
}

extension AttributeConvertible {
    public static func reads(_ type: AttributeType) -> Bool {
        AttributeSamples.values(of: type).allSatisfy { Self(attributeValue: $0) != nil }
    }
}

/// Extreme values of each attribute type, enough to tell whether a Swift type can hold
/// them all.
private enum AttributeSamples {
    static func values(of type: AttributeType) -> [AttributeValue] {
        if let range = type.integerRange { return [.integer(range.lowerBound), .integer(range.upperBound)] }
        switch type {
        case .double: return [.double(.greatestFiniteMagnitude)]
        case .float: return [.float(.greatestFiniteMagnitude)]
        case .decimal: return [.decimal(Decimal.greatestFiniteMagnitude)]
        case .boolean: return [.bool(true)]
        case .string: return [.string("")]
        case .date: return [.date(Date(timeIntervalSince1970: 0))]
        case .binary, .transformable: return [.data(Data())]
        case .uuid: return [.uuid(UUID())]
        case .uri: return [.uri(URL(fileURLWithPath: "/"))]
        default: return [.null]
        }
    }
}

extension Optional: AttributeConvertible where Wrapped: AttributeConvertible {
    public init?(attributeValue value: AttributeValue) {
        if value.isNull {
            self = .none
        } else if let wrapped = Wrapped(attributeValue: value) {
            self = .some(wrapped)
        } else {
            return nil
        }
    }

    public var attributeValue: AttributeValue { self?.attributeValue ?? .null }
    public static var valueForNil: Self { nil }
    public static func reads(_ type: AttributeType) -> Bool { Wrapped.reads(type) }
}

extension AttributeConvertible where Self: RawRepresentable, RawValue: AttributeConvertible {
    public init?(attributeValue value: AttributeValue) {
        guard let raw = RawValue(attributeValue: value) else { return nil }
        self.init(rawValue: raw)
    }

    public var attributeValue: AttributeValue { rawValue.attributeValue }
    /// Raw values outside the enumeration read as nil (or ``valueForNil``), and are logged.
    public static func reads(_ type: AttributeType) -> Bool { RawValue.reads(type) }
}

// MARK: Integers: read from integer attributes that fit, stored as integers

extension AttributeConvertible where Self: FixedWidthInteger {
    public init?(attributeValue value: AttributeValue) {
        guard case .integer(let number) = value, let exact = Self(exactly: number) else { return nil }
        self = exact
    }

    public var attributeValue: AttributeValue {
        // Beyond Int64 (a UInt64, say) the value is kept exactly as a decimal, which every
        // integer attribute refuses with a typed error.
        Int64(exactly: self).map(AttributeValue.integer) ?? .decimal(Decimal(string: String(self)) ?? .nan)
    }

    public static var valueForNil: Self { 0 }
}

extension Int: AttributeConvertible {}
extension Int16: AttributeConvertible {}
extension Int32: AttributeConvertible {}
extension Int64: AttributeConvertible {}

// MARK: Other values

extension Double: AttributeConvertible {
    public init?(attributeValue value: AttributeValue) {
        switch value {
        case .double(let number): self = number
        case .float(let number): self = Double(number)
        default: return nil
        }
    }

    public var attributeValue: AttributeValue { .double(self) }
    public static var valueForNil: Double { 0 }
}

extension Float: AttributeConvertible {
    public init?(attributeValue value: AttributeValue) {
        guard case .float(let number) = value else { return nil }
        self = number
    }

    public var attributeValue: AttributeValue { .float(self) }
    public static var valueForNil: Float { 0 }
}

extension Decimal: AttributeConvertible {
    public init?(attributeValue value: AttributeValue) {
        guard case .decimal(let number) = value else { return nil }
        self = number
    }

    public var attributeValue: AttributeValue { .decimal(self) }
    public static var valueForNil: Decimal { 0 }
}

extension Bool: AttributeConvertible {
    public init?(attributeValue value: AttributeValue) {
        guard case .bool(let flag) = value else { return nil }
        self = flag
    }

    public var attributeValue: AttributeValue { .bool(self) }
    public static var valueForNil: Bool { false }
}

extension String: AttributeConvertible {
    public init?(attributeValue value: AttributeValue) {
        guard case .string(let text) = value else { return nil }
        self = text
    }

    public var attributeValue: AttributeValue { .string(self) }
    public static var valueForNil: String { "" }
}

extension Date: AttributeConvertible {
    public init?(attributeValue value: AttributeValue) {
        guard case .date(let date) = value else { return nil }
        self = date
    }

    public var attributeValue: AttributeValue { .date(self) }
    public static var valueForNil: Date { Date(timeIntervalSince1970: 0) }
}

extension Data: AttributeConvertible {
    public init?(attributeValue value: AttributeValue) {
        guard case .data(let bytes) = value else { return nil }
        self = bytes
    }

    public var attributeValue: AttributeValue { .data(self) }
    public static var valueForNil: Data { Data() }
}

extension UUID: AttributeConvertible {
    public init?(attributeValue value: AttributeValue) {
        guard case .uuid(let uuid) = value else { return nil }
        self = uuid
    }

    public var attributeValue: AttributeValue { .uuid(self) }
    /// The nil UUID (all zeros).
    public static var valueForNil: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
}

extension URL: AttributeConvertible {
    public init?(attributeValue value: AttributeValue) {
        guard case .uri(let url) = value else { return nil }
        self = url
    }

    public var attributeValue: AttributeValue { .uri(self) }
    /// `about:blank`, the URL that stands for none.
    public static var valueForNil: URL { URL(string: "about:blank")! }
}

/// An attribute value that is equal to another exactly when a predicate's `==` says so,
/// for grouping and distinct rows: strings by their UTF-8 bytes (not Swift's canonical
/// equivalence), every NaN one value, `-0.0` equal to `0.0`, decimals by value.
struct MatchingValue: Hashable {
    let value: AttributeValue

    init(_ value: AttributeValue) {
        self.value = value
    }

    static func == (left: MatchingValue, right: MatchingValue) -> Bool {
        switch (left.value, right.value) {
        case let (.string(a), .string(b)):
            // Both as contiguous bytes: stepping two UTF-8 views was most of a grouping by
            // name. A group's value read from one target is the same string each time.
            var a = a, b = b
            return a.withUTF8 { left in
                b.withUTF8 { right in
                    left.count == right.count && (left.baseAddress == right.baseAddress || left.elementsEqual(right))
                }
            }
        case let (.double(a), .double(b)) where a.isNaN || b.isNaN: return a.isNaN && b.isNaN
        case let (.float(a), .float(b)) where a.isNaN || b.isNaN: return a.isNaN && b.isNaN
        default: return AttributeValue.compare(left.value, right.value) == .orderedSame && left.kind == right.kind
        }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        switch value {
        case .string(let text):
            var text = text
            text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        case .double(let number): hasher.combine(number.isNaN ? .nan : number + 0)
        case .float(let number): hasher.combine(number.isNaN ? .nan : number + 0)
        case .decimal(let number): hasher.combine(number)
        default: hasher.combine(value)
        }
    }

    /// Values of different kinds never group together (an attribute has one kind).
    private var kind: Int {
        switch value {
        case .null: return 0
        case .integer: return 1
        case .double: return 2
        case .float: return 3
        case .decimal: return 4
        case .bool: return 5
        case .string: return 6
        case .date: return 7
        case .data: return 8
        case .uuid: return 9
        case .uri: return 10
        }
    }
}

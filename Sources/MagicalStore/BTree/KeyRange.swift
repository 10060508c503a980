/// A range of keys, each end open, inclusive or exclusive.
public struct KeyRange: Sendable, Equatable {
    public enum Bound: Sendable, Equatable {
        case unbounded
        case inclusive([UInt8])
        case exclusive([UInt8])
    }

    public var lower: Bound
    public var upper: Bound

    public init(lower: Bound = .unbounded, upper: Bound = .unbounded) {
        self.lower = lower
        self.upper = upper
    }

    public static let all = KeyRange()

    /// Every key that starts with `prefix`.
    public static func prefix(_ prefix: [UInt8]) -> KeyRange {
        // The smallest key above all keys with the prefix: drop trailing 0xFF bytes, then
        // increment the last byte. A prefix of only 0xFF bytes has no upper bound.
        var upper = prefix
        while let last = upper.last, last == 0xFF { upper.removeLast() }
        guard !upper.isEmpty else { return KeyRange(lower: .inclusive(prefix)) }
        upper[upper.count - 1] += 1
        return KeyRange(lower: .inclusive(prefix), upper: .exclusive(upper))
    }

    func isAboveLower(_ key: [UInt8]) -> Bool {
        switch lower {
        case .unbounded: return true
        case .inclusive(let bound): return compareBytes(key, bound) >= 0
        case .exclusive(let bound): return compareBytes(key, bound) > 0
        }
    }

    func isBelowUpper(_ key: [UInt8]) -> Bool {
        switch upper {
        case .unbounded: return true
        case .inclusive(let bound): return compareBytes(key, bound) <= 0
        case .exclusive(let bound): return compareBytes(key, bound) < 0
        }
    }
}

extension Cursor {
    /// Positions the cursor at the first entry of `range` in the given direction and calls
    /// `body` for each entry until the range ends or `body` returns false.
    public mutating func scan(
        _ range: KeyRange, reverse: Bool = false,
        _ body: (_ key: [UInt8], _ value: [UInt8]) throws -> Bool
    ) throws {
        if reverse {
            switch range.upper {
            case .unbounded: try last()
            case .inclusive(let bound), .exclusive(let bound): try seek(atOrBefore: bound)
            }
        } else {
            switch range.lower {
            case .unbounded: try first()
            case .inclusive(let bound), .exclusive(let bound): try seek(atOrAfter: bound)
            }
        }
        while let key {
            let inRange = reverse ? range.isAboveLower(key) : range.isBelowUpper(key)
            guard inRange else { return }
            let outsideStart = reverse ? !range.isBelowUpper(key) : !range.isAboveLower(key)
            if !outsideStart {
                guard try body(key, value() ?? []) else { return }
            }
            if reverse { try previous() } else { try next() }
        }
    }
}

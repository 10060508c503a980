/// Decides when a stream has buffered enough bytes for the parser's next step, without
/// parsing: it follows only strings (quotes and backslashes) and bracket depth.
///
/// "Enough" means the parser will not reach the end of the buffer before it is done or
/// has thrown: the step's value is complete *and* the byte that ends it is buffered when
/// a number needs one. For a valid element the scanner and the parser agree on where
/// strings and containers end; for an invalid one the parser throws at or before the
/// byte where the scanner stopped. Either way the step sees the same bytes that reading
/// the whole document would.
struct JSONElementScanner {
    enum Goal {
        /// The first byte that is not whitespace (the document's first).
        case firstNonWhitespace
        /// An array element and, unless it is the first, the comma before it; or the
        /// array's closing bracket instead. Also a top-level object (as a first element).
        case element(isFirst: Bool)
    }

    private let goal: Goal
    private let maximumDepth: Int
    private var depth = 0
    private var inString = false
    private var escaped = false
    private var separatorPending: Bool

    init(_ goal: Goal, maximumDepth: Int) {
        self.goal = goal
        self.maximumDepth = maximumDepth
        if case .element(let isFirst) = goal {
            separatorPending = !isFirst
        } else {
            separatorPending = false
        }
    }

    /// Scans `bytes` from `index` on; true as soon as enough is buffered. Otherwise
    /// `index` ends at `bytes.count`, and scanning resumes there once more is read.
    mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>, from index: inout Int) -> Bool {
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 0 { return true }
                }
                continue
            }
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                continue
            case _ where isFirstNonWhitespaceGoal:
                return true
            case UInt8(ascii: ","):
                // The comma before the element; any other at this depth ends the step.
                if depth == 0 {
                    guard separatorPending else { return true }
                    separatorPending = false
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                if depth == 0 { return true }
                depth -= 1
                if depth == 0 { return true }
            default:
                // After an element only a comma or a closing bracket may come: the
                // parser throws here.
                if separatorPending { return true }
                if byte == UInt8(ascii: "\"") {
                    inString = true
                } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
                    depth += 1
                    // The parser throws at or before this bracket.
                    if depth > maximumDepth { return true }
                }
            }
        }
        return false
    }

    private var isFirstNonWhitespaceGoal: Bool {
        if case .firstNonWhitespace = goal { return true }
        return false
    }
}

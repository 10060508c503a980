import Foundation

/// A colour as import reads it from MagicalRecord's `rgba(r,g,b,a)` strings, and stores it:
/// the built-in `*Color` value transformer (see ``ImportValueTransformers``) turns
/// `"rgba(64,128,225,1)"` into `ImportedColor(red: 64/255, green: 128/255, blue: 225/255,
/// alpha: 1)` and stores its ``data``.
///
/// Components are device RGB from 0 to 1, as UIColor and NSColor take them.
public struct ImportedColor: Sendable, Hashable {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Reads `rgba(r,g,b,a)` (MagicalRecord's form) or `rgb(r,g,b)` (alpha 1): red, green
    /// and blue from 0 to 255, alpha from 0 to 1, decimals allowed, spaces allowed around
    /// components, the name in any case. MagicalRecord read the alpha as an integer, so
    /// `0.5` became 0; here it is 0.5.
    public init(parsing text: String) throws(ImportValueError) {
        let invalid = { (why: String) in ImportValueError("\(ImportValueError.quote(text)) is not a color: \(why)") }
        let lowered = text.lowercased()
        let opening = lowered.hasPrefix("rgba(") ? 5 : (lowered.hasPrefix("rgb(") ? 4 : 0)
        guard opening > 0, text.hasSuffix(")") else { throw invalid("expected rgba(red, green, blue, alpha)") }
        let parts = text.dropFirst(opening).dropLast().split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == opening - 1 else {
            throw invalid("expected \(opening - 1) components, found \(parts.count)")
        }
        let names = ["red", "green", "blue", "alpha"]
        var components: [Double] = []
        for (index, part) in parts.enumerated() {
            let trimmed = String(part.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
            let limit: Double = index == 3 ? 1 : 255
            guard let value = NumericText.number(trimmed)?.doubleValue, (0...limit).contains(value) else {
                throw invalid("\(names[index]) \(ImportValueError.quote(trimmed)) is not a number from 0 to \(Int(limit))")
            }
            components.append(index == 3 ? value : value / 255)
        }
        self.init(red: components[0], green: components[1], blue: components[2], alpha: components.count == 4 ? components[3] : 1)
    }

    /// 32 bytes: red, green, blue and alpha as IEEE 754 doubles, little-endian, in that order.
    public var data: Data {
        var bytes = Data(capacity: 32)
        for component in [red, green, blue, alpha] {
            withUnsafeBytes(of: component.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        }
        return bytes
    }

    /// Reads what ``data`` writes; nil unless `data` is 32 bytes.
    public init?(data: Data) {
        guard data.count == 32 else { return nil }
        let bytes = Array(data)
        let components = (0..<4).map { component in
            Double(bitPattern: (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[component * 8 + $1]) << (8 * $1) })
        }
        self.init(red: components[0], green: components[1], blue: components[2], alpha: components[3])
    }

    /// The built-in `*Color` transformer: strings to ``data``.
    static let transform: ImportValueTransform = { json throws(ImportValueError) in
        guard case .string(let text) = json else {
            throw ImportValueError("\(ImportValueError.show(json)) is not a color: expected a string such as \"rgba(64,128,225,1)\"")
        }
        return .data(try ImportedColor(parsing: text).data)
    }
}

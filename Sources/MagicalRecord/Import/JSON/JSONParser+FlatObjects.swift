extension JSONParser {
    /// Reads, at `position` (on its `{`), an object that spells the expected member names
    /// (those of the object read last) in their order, each holding a string, a number,
    /// `true`, `false` or `null`: the records of an array, as a rule. True with the values
    /// on `values`, in order, and `position` past the object. The general parse keeps a
    /// frame, a stack of names and a check of each against the recent lists for such an
    /// object, which cost as much as reading its values.
    ///
    /// Anything else (another name, order or count of members, a nested container, an
    /// escaped name, a trailing comma, a malformed value, the end of the input) returns
    /// false with `position` and `values` as they were: the general parse then reads the
    /// object and throws whatever error there is, at its offset. Only names read in place
    /// are compared, so the recent lists and the expected names stay as they were, as they
    /// do when the general parse reads an object of the expected names.
    mutating func readFlatObject() -> Bool {
        let start = position
        let valuesStart = values.count
        if readFlatMembers() { return true }
        position = start
        values.drop(from: valuesStart)
        return false
    }

    private mutating func readFlatMembers() -> Bool {
        let count = expected.count
        guard count > 0 else { return false }
        let leavesStrings = unbuiltFlags.count == count
        position += 1
        var index = 0
        while true {
            skipWhitespace()
            guard position < input.count, input[position] == UInt8(ascii: "\""), readsExpectedName(at: index) else { return false }
            skipWhitespace()
            guard position < input.count, input[position] == UInt8(ascii: ":") else { return false }
            position += 1
            skipWhitespace()
            // A container, the end, or a malformed scalar: the general parse's to read.
            guard position < input.count else { return false }
            if leavesStrings, unbuiltFlags[index], input[position] == UInt8(ascii: "\""), let bytes = scanPlainASCIIString() {
                // A placeholder: the view builds the string if it is asked for its value.
                unbuilt[index] = bytes
                values.push(.null)
            } else {
                if leavesStrings { unbuilt[index] = UnsafeBufferPointer(start: nil, count: 0) }
                guard let value = try? parseScalar() else { return false }
                values.push(value)
            }
            index += 1
            skipWhitespace()
            guard position < input.count else { return false }
            switch input[position] {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "}"):
                guard index == count else { return false }
                position += 1
                return true
            default:
                return false
            }
        }
    }
}

/// The first index of `0..<count` that is not `isBefore` (which holds for a leading run of
/// indices and then never again), or `count`.
///
/// A cold page's binary search waits on a cache miss at almost every probe. Keys of
/// object numbers and of most indexed values spread evenly enough through a page that the
/// place of the key's 8-byte `prefix` between the first entry's (`first`) and the last
/// one's (`last`) lands on or beside the answer: the search probes there, gallops outwards
/// to bracket the answer, and finishes with a binary search inside the bracket. Uneven
/// keys cost at most about twice a binary search's probes; a key outside the prefixes'
/// span, or a page whose prefixes are all equal, goes straight to the binary search.
@inline(__always)
func interpolatedSearch(count: Int, prefix: UInt64, first: UInt64, last: UInt64, isBefore: (Int) -> Bool) -> Int {
    var low = 0
    var high = count
    if count > 8, first < prefix, prefix <= last {
        let fraction = Double(prefix - first) / Double(last - first)
        let guess = min(count - 1, Int(fraction * Double(count - 1)))
        var step = 1
        if isBefore(guess) {
            // The answer is past `guess`.
            low = guess + 1
            while low < count {
                let probe = min(count - 1, guess + step)
                if !isBefore(probe) {
                    high = probe
                    break
                }
                low = probe + 1
                step *= 2
            }
        } else {
            // The answer is `guess` or before it.
            high = guess
            while high > 0 {
                let probe = max(0, guess - step)
                if isBefore(probe) {
                    low = probe + 1
                    break
                }
                high = probe
                step *= 2
            }
        }
    }
    while low < high {
        let middle = (low + high) / 2
        if isBefore(middle) { low = middle + 1 } else { high = middle }
    }
    return low
}

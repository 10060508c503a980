/// The parser's stack of finished values (and member names) of open containers.
///
/// Unlike an `Array` used as a stack, it hands elements out by moving them: a closing
/// container takes its elements without the retain, then release, that copying them out
/// of an array and removing them would cost for every string, array and object.
struct JSONScratchStack<Element>: ~Copyable {
    private var storage: UnsafeMutablePointer<Element>
    private var capacity: Int
    private(set) var count = 0

    init() {
        capacity = 64
        storage = .allocate(capacity: capacity)
    }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    mutating func push(_ element: consuming Element) {
        if count == capacity {
            let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
            larger.moveInitialize(from: storage, count: count)
            storage.deallocate()
            storage = larger
            capacity *= 2
        }
        (storage + count).initialize(to: element)
        count += 1
    }

    /// Moves the elements from `start` to the top into a new array, in order.
    mutating func popArray(from start: Int) -> [Element] {
        let moved = count - start
        count = start
        return Array(unsafeUninitializedCapacity: moved) { buffer, initialized in
            if let destination = buffer.baseAddress { destination.moveInitialize(from: storage + start, count: moved) }
            initialized = moved
        }
    }

    /// The elements from `start` to the top, borrowed until the stack next changes.
    func elements(from start: Int) -> UnsafeBufferPointer<Element> {
        UnsafeBufferPointer(start: storage + start, count: count - start)
    }

    /// Removes the elements from `start` to the top.
    mutating func drop(from start: Int) {
        destroy(start..<count)
        count = start
    }

    /// Destroys the elements in `range` one by one: once specialised, each is the
    /// element type's own destroy, where deinitializing the run went through the
    /// runtime's generic one per element (every member value of an import).
    private func destroy(_ range: Range<Int>) {
        for index in range { _ = (storage + index).move() }
    }

    /// Calls `body` with each element from `start` to the top, moved out, in order, and
    /// leaves the stack at `start`.
    mutating func popEach(from start: Int, _ body: (consuming Element) -> Void) {
        let end = count
        count = start
        for index in start..<end {
            body((storage + index).move())
        }
    }

    mutating func removeAll() {
        destroy(0..<count)
        count = 0
    }
}

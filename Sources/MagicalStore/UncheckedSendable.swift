/// What the tasks of one `concurrentPerform` share: values they only read, or a buffer
/// each fills at its own index.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// MagicalRecord's `shouldImport:`, `willImport:`, `didImport:`, `import<Attribute>:`,
/// `shouldImport<Relationship>:` and `import<Relationship>:` (Spec/IMPORT.md I18), for a
/// ``ManagedObject`` subclass that adopts this protocol and implements the ones it needs
/// (the others keep their defaults). Adopting it is how a class says it has hooks, as
/// MagicalRecord asks `respondsToSelector:`: objects of classes without them can be
/// imported without calling anything per record.
///
/// Each gets the JSON it is about; the per-property ones get the property's name, so one
/// implementation serves several. They run inside the import, on the importing context's
/// queue, and must not throw.
///
/// ```swift
/// final class Post: ManagedObject, ImportHooks {
///     class func shouldImport(_ record: JSONObject) -> Bool { record["draft"] != .bool(true) }
///     func importValue(_ value: JSONValue, forAttribute name: String) -> Bool {
///         guard name == "keywords", case .string(let text) = value else { return false }
///         try? setValue(.string(text.lowercased()), forKey: "keywords")
///         return true   // handled: the default conversion is skipped
///     }
/// }
/// ```
public protocol ImportHooks: ManagedObject {
    /// Whether `record` should be imported at all; false skips it: nothing is created or
    /// changed. Called before the object is looked up or made.
    static func shouldImport(_ record: JSONObject) -> Bool

    /// Called before the record's values are set.
    func willImport(_ record: JSONObject)

    /// Called after the record's values and relationships are set.
    func didImport(_ record: JSONObject)

    /// Imports attribute `name` from `value` itself; true when handled (the default
    /// conversion is then skipped), false to let the import convert it.
    func importValue(_ value: JSONValue, forAttribute name: String) -> Bool

    /// Whether relationship `name` should be imported from `value`; false leaves it as it is.
    func shouldImport(_ value: JSONValue, forRelationship name: String) -> Bool

    /// Imports relationship `name` from `value` itself; true when handled.
    func importRelationship(_ value: JSONValue, forRelationship name: String) -> Bool
}

extension ImportHooks {
    public static func shouldImport(_ record: JSONObject) -> Bool { true }
    public func willImport(_ record: JSONObject) {}
    public func didImport(_ record: JSONObject) {}
    public func importValue(_ value: JSONValue, forAttribute name: String) -> Bool { false }
    public func shouldImport(_ value: JSONValue, forRelationship name: String) -> Bool { true }
    public func importRelationship(_ value: JSONValue, forRelationship name: String) -> Bool { false }
}

/// A typed attribute property on a ``ManagedObject`` subclass:
///
/// ```swift
/// final class Person: ManagedObject {
///     @Field var firstName: String?
///     @Field("age") var years: Int16
/// }
/// person.firstName = "Yan"
/// ```
///
/// The attribute is the property's own name unless one is given. An optional property
/// reads nil for nil; a non-optional one reads ``AttributeConvertible/valueForNil`` (zero,
/// empty) until set. A value the attribute cannot hold (300 for an Integer 16) is refused:
/// the attribute keeps its value and the next save fails with a
/// ``ValidationFailure/Reason/refusedAssignment(property:reason:)`` naming it.
/// ``MagicalRecord/register(_:)`` checks every declaration against the model.
@propertyWrapper
public struct Field<Value: AttributeConvertible>: DeclaredProperty {
    @usableFromInline let declaredName: String?

    /// The attribute of the property's own name.
    public init() { declaredName = nil }

    /// The attribute named `attribute`.
    public init(_ attribute: String) { declaredName = attribute }

    /// Reached only through the enclosing object (the subscript below); Swift requires it to exist.
    @available(*, unavailable, message: "@Field works only inside ManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("unreachable: @Field is unavailable outside ManagedObject subclasses") }
        set { fatalError("unreachable: @Field is unavailable outside ManagedObject subclasses") }
    }

    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value {
        // Inlinable so that a subclass's reads are specialised for their type: unspecialised
        // across modules, each read looked the optional's type metadata up at run time (a
        // quarter of a typed read).
        @inlinable get {
            let position = PropertyName.position(storage: storageKeyPath, entity: object.entity) {
                object[keyPath: storageKeyPath].declaredName
            }
            guard let position else {
                let name = PropertyName.resolve(object[keyPath: storageKeyPath].declaredName, storage: storageKeyPath)
                object.readFailed(name, MagicalRecordError.unknownAttribute(entity: object.entity.name, name: name).description)
                return Value.valueForNil
            }
            let stored = object.attributeValue(at: position)
            if let value = Value(attributeValue: stored) { return value }
            if !stored.isNull {
                let name = PropertyName.resolve(object[keyPath: storageKeyPath].declaredName, storage: storageKeyPath)
                object.readFailed(name, "\(stored) does not read as \(Value.self)")
            }
            return Value.valueForNil
        }
        set {
            let name = PropertyName.resolve(object[keyPath: storageKeyPath].declaredName, storage: storageKeyPath)
            object.assign(name) { () throws(MagicalRecordError) in try object.setValue(newValue.attributeValue, forKey: name) }
        }
    }

    func problem(named name: String, in entity: Entity, model: ObjectModel) -> String? {
        guard let attribute = entity.attribute(named: name) else {
            return "\(entity.name) has no attribute \(name)"
        }
        guard Value.reads(attribute.type) else {
            return "\(entity.name).\(name) is \(attribute.type.rawValue), which \(Value.self) cannot hold"
        }
        return nil
    }
}

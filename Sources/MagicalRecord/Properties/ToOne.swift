/// A typed to-one relationship property on a ``ManagedObject`` subclass:
///
/// ```swift
/// final class Employee: ManagedObject {
///     @ToOne var department: Department?
/// }
/// employee.department = sales   // and sales.employees now holds employee
/// ```
///
/// The relationship is the property's own name unless one is given. Setting it keeps the
/// inverse in step, as ``ManagedObject/setRelatedObject(_:forKey:)`` does; a target it
/// cannot take (another context's object, another entity) is refused and fails the next
/// save. `Target` must be registered (``MagicalRecord/register(_:)``) for its objects to
/// read as `Target`.
@propertyWrapper
public struct ToOne<Target: ManagedObject>: DeclaredProperty {
    let declaredName: String?

    public init() { declaredName = nil }

    public init(_ relationship: String) { declaredName = relationship }

    @available(*, unavailable, message: "@ToOne works only inside ManagedObject subclasses")
    public var wrappedValue: Target? {
        get { fatalError("unreachable: @ToOne is unavailable outside ManagedObject subclasses") }
        set { fatalError("unreachable: @ToOne is unavailable outside ManagedObject subclasses") }
    }

    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Target?>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Target? {
        get {
            let name = PropertyName.resolve(object[keyPath: storageKeyPath].declaredName, storage: storageKeyPath)
            ObjectClassRegistry.register(Target.self)
            do {
                guard let target = try object.relatedObject(forKey: name) else { return nil }
                return try RelatedObjects.typed(target, as: Target.self)
            } catch {
                object.readFailed(name, error.description)
                return nil
            }
        }
        set {
            let name = PropertyName.resolve(object[keyPath: storageKeyPath].declaredName, storage: storageKeyPath)
            object.assign(name) { () throws(MagicalRecordError) in try object.setRelatedObject(newValue, forKey: name) }
        }
    }

    func problem(named name: String, in entity: Entity, model: ObjectModel) -> String? {
        RelatedObjects.problem(named: name, in: entity, model: model, toMany: false, target: Target.self)
    }
}

/// A typed to-many relationship property, in the relationship's order when it is ordered:
///
/// ```swift
/// final class Department: ManagedObject {
///     @ToMany var employees: [Employee]
/// }
/// department.employees.append(newHire)
/// ```
///
/// Setting it replaces the targets (inverses kept in step, as
/// ``ManagedObject/setRelatedObjects(_:forKey:)`` does); duplicates count once.
@propertyWrapper
public struct ToMany<Target: ManagedObject>: DeclaredProperty {
    let declaredName: String?

    public init() { declaredName = nil }

    public init(_ relationship: String) { declaredName = relationship }

    @available(*, unavailable, message: "@ToMany works only inside ManagedObject subclasses")
    public var wrappedValue: [Target] {
        get { fatalError("unreachable: @ToMany is unavailable outside ManagedObject subclasses") }
        set { fatalError("unreachable: @ToMany is unavailable outside ManagedObject subclasses") }
    }

    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, [Target]>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> [Target] {
        get {
            let name = PropertyName.resolve(object[keyPath: storageKeyPath].declaredName, storage: storageKeyPath)
            ObjectClassRegistry.register(Target.self)
            do {
                var targets: [Target] = []
                for target in try object.relatedObjects(forKey: name) {
                    targets.append(try RelatedObjects.typed(target, as: Target.self))
                }
                return targets
            } catch {
                object.readFailed(name, error.description)
                return []
            }
        }
        set {
            let name = PropertyName.resolve(object[keyPath: storageKeyPath].declaredName, storage: storageKeyPath)
            object.assign(name) { () throws(MagicalRecordError) in try object.setRelatedObjects(newValue, forKey: name) }
        }
    }

    func problem(named name: String, in entity: Entity, model: ObjectModel) -> String? {
        RelatedObjects.problem(named: name, in: entity, model: model, toMany: true, target: Target.self)
    }
}

enum RelatedObjects {
    static func typed<Target: ManagedObject>(_ object: ManagedObject, as type: Target.Type) throws(MagicalRecordError) -> Target {
        guard let typed = object as? Target else {
            throw .invalidClass(
                type: String(describing: Target.self), entity: object.entity.name,
                problems: ["\(object.objectID) was loaded as a \(Swift.type(of: object)): register \(Target.self) with MagicalRecord.register(\(Target.self).self) before its objects are loaded"]
            )
        }
        return typed
    }

    static func problem(named name: String, in entity: Entity, model: ObjectModel, toMany: Bool, target: ManagedObject.Type) -> String? {
        guard let relationship = entity.relationship(named: name) else {
            return "\(entity.name) has no relationship \(name)"
        }
        guard relationship.isToMany == toMany else {
            return "\(entity.name).\(name) is \(relationship.isToMany ? "to-many: declare it @ToMany" : "to-one: declare it @ToOne")"
        }
        guard target != ManagedObject.self else { return nil }
        guard let destination = model.entity(named: relationship.destination), destination.isKind(of: target.entityName) else {
            return "\(entity.name).\(name) holds \(relationship.destination), which is not a \(target.entityName)"
        }
        return nil
    }
}

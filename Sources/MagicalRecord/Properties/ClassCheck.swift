import Synchronization

/// What typed property wrappers tell the class check about themselves.
protocol DeclaredProperty {
    /// The model name given to the wrapper, nil for the Swift property's own name.
    var declaredName: String? { get }
    /// Why the property does not fit `entity`, nil when it does.
    func problem(named name: String, in entity: Entity, model: ObjectModel) -> String?
}

/// Checks, once per class and entity, that a subclass's typed properties name attributes
/// and relationships its entity has, with types that hold them: a mistake shows up as an
/// ``MagicalRecordError/invalidClass(type:entity:problems:)`` on first use, not as values
/// that quietly read nil.
enum ClassCheck {
    static func verify(_ object: ManagedObject) throws(MagicalRecordError) {
        let entity = object.entity
        let type = Swift.type(of: object)
        let key = ObjectIdentifier(type)
        // A class's problems never change for an entity, so a stale answer is only slower.
        if entity.lastSoundClass.load(ordering: .relaxed) == UInt(bitPattern: key) { return }
        let problems: [String]
        if let known = entity.checkedClasses.withLock({ $0[key] }) {
            problems = known
        } else {
            guard let model = object.managedObjectContext?.model else { return }
            problems = Self.problems(of: object, entity: entity, model: model)
            entity.checkedClasses.withLock { $0[key] = problems }
        }
        guard problems.isEmpty else {
            throw .invalidClass(type: String(describing: type), entity: entity.name, problems: problems)
        }
        entity.lastSoundClass.store(UInt(bitPattern: key), ordering: .relaxed)
    }

    private static func problems(of object: ManagedObject, entity: Entity, model: ObjectModel) -> [String] {
        var problems: [String] = []
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            for child in current.children {
                guard let property = child.value as? DeclaredProperty, let label = child.label else { continue }
                // The storage of `@Field var firstName` is `_firstName`.
                let name = property.declaredName ?? (label.hasPrefix("_") ? String(label.dropFirst()) : label)
                if let problem = property.problem(named: name, in: entity, model: model) { problems.append(problem) }
            }
            mirror = current.superclassMirror
        }
        return problems
    }
}

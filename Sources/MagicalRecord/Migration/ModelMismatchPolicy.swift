/// What opening a store does when the store was written with another model.
public enum ModelMismatchPolicy: Sendable {
    /// Refuse to open, listing the differences: the plain setups' behaviour.
    case refuse
    /// Migrate the store in one crash-safe step, or refuse (changing nothing) when some
    /// change needs user code that `options` does not supply.
    case migrate(MigrationOptions)
    /// Delete the store and ALL its data, and start an empty one: a development
    /// convenience only, logged as an error each time it happens. Never the default.
    case deleteAndRecreate
}

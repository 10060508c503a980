/// What migrating a store to a model does, worked out before anything is written: each
/// change, how it is carried out and whether it rewrites data, and every change that
/// cannot be carried out without user code. What `mrstore migrate --dry-run` prints.
public struct MigrationPlan: Sendable, CustomStringConvertible {
    /// The model the store was written with.
    public let source: ObjectModel
    /// The model it migrates to.
    public let target: ObjectModel
    /// The changes, entities in name order, each one's own changes before its properties'.
    public let steps: [MigrationStep]
    /// Why the migration cannot run; empty when it can.
    public let incompatibilities: [MigrationIncompatibility]

    let entities: [EntityMigration]
    let slots: SlotMap

    /// Whether the migration can run.
    public var isPossible: Bool { incompatibilities.isEmpty }
    /// Whether any step rewrites records or builds a tree from stored data.
    public var rewritesData: Bool { steps.contains { $0.rewritesData } }
    /// Whether the store is already at the target model: nothing to do.
    public var isEmpty: Bool { steps.isEmpty && incompatibilities.isEmpty }

    /// One line per step, then one per incompatibility.
    public var description: String {
        var lines = ["migration from \(Self.name(of: source)) to \(Self.name(of: target)): "
            + (steps.isEmpty ? "no changes" : "\(steps.count) change\(steps.count == 1 ? "" : "s")")
            + (rewritesData ? ", rewrites data" : ", rewrites no data")]
        lines += steps.map { "  \($0)" }
        if !incompatibilities.isEmpty {
            lines.append("cannot migrate: \(incompatibilities.count) incompatible change\(incompatibilities.count == 1 ? "" : "s")")
            lines += incompatibilities.map { "  \($0)" }
        }
        return lines.joined(separator: "\n")
    }

    private static func name(of model: ObjectModel) -> String {
        "\(model.versionName.map { "\($0) " } ?? "")(\(model.versionHash.prefix(8)))"
    }
}

/// One change a migration carries out.
public struct MigrationStep: Sendable, Hashable, CustomStringConvertible {
    /// `Person` or `Person.age`.
    public let subject: String
    /// What changed: `type changed from Integer 16 to String`.
    public let change: String
    /// How it is carried out: `records rewritten (1,000 objects)`.
    public let method: String
    /// Whether records are rewritten or trees built from stored data (cost O(objects)).
    public let rewritesData: Bool

    /// `Person.age: type changed from Integer 16 to Double: records rewritten (3 objects) [rewrites data]`.
    public var description: String { "\(subject): \(change): \(method)\(rewritesData ? " [rewrites data]" : "")" }
}

/// A change a migration cannot carry out without user code, and why.
public struct MigrationIncompatibility: Sendable, Hashable, CustomStringConvertible {
    public let subject: String
    public let reason: String

    public var description: String { "\(subject): \(reason)" }
}

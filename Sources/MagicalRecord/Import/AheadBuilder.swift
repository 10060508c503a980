import Synchronization

/// A direct import batch built on the import's reading thread: its changes, or why it
/// failed, on the store as of `base`.
struct AheadBatch {
    /// Its plan, to import the batch afresh should its turn find the store elsewhere; let
    /// go of as soon as it does not (a batch's plan is tens of megabytes).
    final class Plan {
        fileprivate var planned: DirectImporter.PlannedBatch

        init(_ planned: DirectImporter.PlannedBatch) {
            self.planned = planned
        }
    }

    let plan: Plan
    /// The commit the batch was built on: the one the batch before it makes.
    let base: UInt64
    let outcome: Result<DirectImporter.BuiltBatch, MagicalRecordError>
}

/// Builds direct import batches on the import's reading thread while the committing thread
/// commits the batch before: found, made, linked and validated there, a batch leaves its
/// turn only the commit itself (building was a quarter of the committing thread's time,
/// which the reading thread had to spare).
///
/// Each batch is built on the commit the batch before it makes, which may not be made
/// yet: its look-up takes that batch's answers and states for the keys whose objects it
/// writes (``ImportKeyLookup/overlay(_:writing:as:_:)``). A batch's turn commits it only
/// when the store is at that commit; else (another writer came between) it is imported
/// afresh, and from then on batches are only looked up ahead, as is every batch after
/// one that was not built (the object path's, or one whose look-up failed).
final class AheadBuilder {
    private let direct: DirectImporter
    private let store: ObjectStore
    /// The batch built last: the commit it was built on, what its commit changes and the
    /// states it writes. Only the reading thread reads or writes it.
    private var last: (base: UInt64, commit: ImportCommit, written: [ObjectState])?
    private let isStopped = Atomic<Bool>(false)

    init(_ direct: DirectImporter, store: ObjectStore) {
        self.direct = direct
        self.store = store
    }

    /// `planned`, built on the commit the batches before it leave; nil when it cannot be
    /// (then `planned` may hold a look-up for its turn).
    func build(_ planned: inout DirectImporter.PlannedBatch) -> AheadBatch? {
        guard !isStopped.load(ordering: .acquiring) else { return nil }
        guard let snapshot = try? store.snapshot(), let lookup = try? ImportKeyLookup(planned.keys, in: snapshot) else {
            stop()
            return nil
        }
        let now = snapshot.transaction.transactionID
        var base = now
        if let last {
            // The batch before commits `last.base + 1`, or has; any other commit is another
            // writer's.
            guard now == last.base || now == last.base + 1 else {
                stop()
                planned.lookup = lookup
                return nil
            }
            base = last.base + 1
            lookup.overlay(last.commit, writing: last.written, as: base, planned.keys)
        }
        do throws(MagicalRecordError) {
            let built = try direct.build(planned, on: lookup)
            last = (base, built.commit, built.changes.upserts)
            return AheadBatch(plan: AheadBatch.Plan(planned), base: base, outcome: .success(built))
        } catch {
            // The import stops at its turn, unless the store moved on and it imports afresh.
            stop()
            return AheadBatch(plan: AheadBatch.Plan(planned), base: base, outcome: .failure(error))
        }
    }

    /// No batch is built from now on. Either thread may call it.
    func stop() {
        isStopped.store(true, ordering: .releasing)
    }

    /// Commits a batch built ahead, at its turn on the committing thread, if the store is
    /// still at the commit it was built on (else imports it afresh, and stops building);
    /// counts it in `result`.
    func commit(_ ahead: AheadBatch, result: inout ImportResult) throws(MagicalRecordError) {
        guard try store.snapshot().transaction.transactionID == ahead.base else {
            stop()
            _ = try direct.importBatch(ahead.plan.planned, after: nil, result: &result)
            return
        }
        ahead.plan.planned = DirectImporter.PlannedBatch()
        switch ahead.outcome {
        case .success(let built): _ = try direct.commit(built, result: &result)
        case .failure(let error): throw error
        }
    }
}

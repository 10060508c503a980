import MagicalStore

/// An import's look-up of a batch's keys: which the store holds, and their objects' states.
extension StoreSnapshot {
    /// The stored states of the objects of the concrete entity `entityName` whose
    /// `attribute` equals one of `values`: each handed to `found` once, and each distinct
    /// value no object has to `absent` once. An import looks up a batch's keys with the
    /// trees found once, not once per key; `values` may repeat (collecting a batch's keys
    /// in a set cost more than the look-up's sort, which finds the repeats).
    ///
    /// States come in ascending object number: in one run through the index, or in two
    /// when the entity's integer key is looked up through its complete key table
    /// (``KeyHints``), the table's candidates first, then what the index finds for the
    /// keys the table could not answer (keys are unique: a key's object is in one run).
    ///
    /// A state goes to `found` as it is decoded (an array of them, sorted by value and handed
    /// out in slices, retained every array of every state twice more).
    func statesByIndexedValue(
        _ entityName: String, _ attribute: String, _ values: [AttributeValue],
        absent: (_ value: AttributeValue) throws -> Void, found: (_ state: consuming ObjectState) throws -> Void
    ) throws(MagicalRecordError) {
        let coder = try store.coder(for: entityName)
        try withStoreErrors {
            let index = try transaction.tree(StoreLayout.indexTree(entityName, attribute))
            let records = try transaction.tree(StoreLayout.objectTree(entityName))
            let trees = LookUpTrees(index: index, records: records, coder: coder, entityName: entityName, attribute: attribute)
            // Both trees are read in key order, so that consecutive keys share leaves. Keys
            // are built in one buffer each: an array per key was two allocations a record.
            guard let (numericOrder, numbers) = Self.numericOrder(values) else {
                let distinct = Array(Set(values))
                var prefixes = EntryBatch(minimumCapacity: distinct.count, bytes: distinct.count * Self.typicalKeyBytes)
                for value in distinct { prefixes.append(writingKey: { StoreLayout.appendIndexPrefix(value, to: &$0) }, value: { _ in }) }
                let order = prefixes.keyOrder()
                try statesThroughIndex(prefixes.reordered(order), trees, absent: { try absent(distinct[order[$0]]) }, found: found)
                return
            }
            // Integers encode in numeric order (Spec K10): sorted as numbers, their prefixes
            // are written in order, with no sort of the bytes; a repeat follows its first.
            var keys: [Int64] = []
            keys.reserveCapacity(numericOrder.count)
            for place in numericOrder where keys.last != numbers[place] { keys.append(numbers[place]) }
            if let (table, position) = try completeKeyTable(trees, wanted: keys.count) {
                try statesThroughKeyTable(keys, table, position, trees, absent: absent, found: found)
            } else {
                try statesThroughIndex(StoreLayout.integerIndexPrefixes(keys), trees, absent: { try absent(.integer(keys[$0])) }, found: found)
            }
        }
    }

    /// What a look-up reads: one entity's key index and records.
    private struct LookUpTrees {
        let index: TreeReader
        let records: TreeReader
        let coder: RecordCoder
        let entityName: String
        let attribute: String
    }

    /// Room reserved per key in a look-up's batches: most keys are smaller.
    private static let typicalKeyBytes = 12

    /// The places of `values` in ascending numeric order, and the integers themselves,
    /// when every one is an integer (an import's keys, as a rule); nil otherwise.
    private static func numericOrder(_ values: [AttributeValue]) -> (order: [Int], numbers: [Int64])? {
        var numbers: [Int64] = []
        numbers.reserveCapacity(values.count)
        for value in values {
            guard case .integer(let number) = value else { return nil }
            numbers.append(number)
        }
        return (KeyOrder.ascending(numbers), numbers)
    }

    /// The index entries under each of `prefixes` (in ascending order), then the records
    /// they name, in ascending number; a prefix with no entry goes to `absent` by its index.
    private func statesThroughIndex(
        _ prefixes: EntryBatch, _ trees: LookUpTrees,
        absent: (Int) throws -> Void, found: (_ state: consuming ObjectState) throws -> Void
    ) throws {
        var isIndexed = [Bool](repeating: false, count: prefixes.count)
        var numbers: [Int64] = []
        try trees.index.scanEach(prefixes: prefixes) { place, key, _ in
            isIndexed[place] = true
            // The number is what follows the value's prefix, read without a tuple.
            let number = try KeyEncoding.decodeNonNegativeInteger(UnsafeRawBufferPointer(rebasing: key[prefixes.keyLength(at: place)...]))
                ?? Self.number(fromIndexKey: Array(key), trees.entityName, trees.attribute)
            numbers.append(number)
        }
        for place in isIndexed.indices where !isIndexed[place] { try absent(place) }
        numbers.sort()
        try trees.records.getEach(StoreLayout.objectKeys(numbers)) { position, bytes in
            guard let bytes else { return }
            try found(try trees.coder.decode(bytes, number: numbers[position], attributes: nil))
        }
    }

    /// The entity's key table, and the key's position, when the table answers for absent
    /// keys in this snapshot: it is complete already, or the entity holds no key yet, or
    /// this look-up and those before it have wanted enough keys to pay for reading the
    /// whole index into it once. Nil when the attribute is not the entity's integer key,
    /// or the store is open read-only (another process may write it).
    private func completeKeyTable(_ trees: LookUpTrees, wanted: Int) throws -> (KeyHints, position: Int)? {
        let coder = trees.coder
        guard let table = coder.keyHints, let position = coder.integerKeyPosition,
              coder.entity.attributes[position].name == trees.attribute, !store.store.options.readOnly
        else { return nil }
        let transactionID = transaction.transactionID
        if table.isComplete(asOf: transactionID) { return (table, position) }
        if trees.index.count == 0 {
            table.markComplete(asOf: transactionID)
            return (table, position)
        }
        guard table.wantsFilling(keysWanted: wanted, keysHeld: trees.index.count) else { return nil }
        var entries: [(key: Int64, number: Int64)] = []
        entries.reserveCapacity(trees.index.count)
        try trees.index.forEachEntry { key, _ in
            let tuple = try KeyEncoding.decode(Array(key))
            guard tuple.count == 2, case .int(let value) = tuple[0], case .int(let number) = tuple[1] else {
                throw MagicalRecordError.damagedMetadata("index \(trees.entityName).\(trees.attribute) holds a malformed key")
            }
            entries.append((value, number))
            return true
        }
        table.note(entries)
        table.markComplete(asOf: transactionID)
        return (table, position)
    }

    /// The look-up of distinct integer keys `keys` (ascending) through the complete key
    /// table: a key it has no slot for is absent without a read; a candidate is found when
    /// its record, read in this snapshot, holds the key; every other key is looked up in
    /// the index.
    private func statesThroughKeyTable(
        _ keys: [Int64], _ table: KeyHints, _ position: Int, _ trees: LookUpTrees,
        absent: (_ value: AttributeValue) throws -> Void, found: (_ state: consuming ObjectState) throws -> Void
    ) throws {
        var absentKeys: [Int64] = []
        var candidateNumbers: [Int64] = []
        var candidateKeys: [Int64] = []
        candidateNumbers.reserveCapacity(keys.count)
        candidateKeys.reserveCapacity(keys.count)
        var throughIndex: [Int64] = []
        table.presence(of: keys, asOf: transaction.transactionID) { place, presence in
            switch presence {
            case .absent: absentKeys.append(keys[place])
            case .candidate(let number):
                candidateNumbers.append(number)
                candidateKeys.append(keys[place])
            case .unknown: throughIndex.append(keys[place])
            }
        }
        for key in absentKeys { try absent(.integer(key)) }
        // The candidates in ascending number, each record read once: two keys whose hashes
        // share a slot share its number.
        let order = KeyOrder.ascending(candidateNumbers)
        var numbers: [Int64] = []
        var runStarts: [Int] = []
        numbers.reserveCapacity(order.count)
        runStarts.reserveCapacity(order.count + 1)
        for (place, candidate) in order.enumerated() where numbers.last != candidateNumbers[candidate] {
            numbers.append(candidateNumbers[candidate])
            runStarts.append(place)
        }
        runStarts.append(order.count)
        try trees.records.getEach(StoreLayout.objectKeys(numbers)) { run, bytes in
            let candidates = order[runStarts[run]..<runStarts[run + 1]]
            guard let bytes else {
                for candidate in candidates { throughIndex.append(candidateKeys[candidate]) }
                return
            }
            let state = try trees.coder.decode(bytes, number: numbers[run], attributes: nil)
            var holdsOne = false
            for candidate in candidates {
                if state.attributes[position] == .integer(candidateKeys[candidate]) {
                    holdsOne = true
                } else {
                    throughIndex.append(candidateKeys[candidate])
                }
            }
            if holdsOne { try found(state) }
        }
        guard !throughIndex.isEmpty else { return }
        throughIndex.sort()
        try statesThroughIndex(StoreLayout.integerIndexPrefixes(throughIndex), trees, absent: { try absent(.integer(throughIndex[$0])) }, found: found)
    }
}

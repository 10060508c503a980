import Foundation
import Testing
@testable import MagicalRecord

/// The import path without objects (Spec/IMPORT.md I27): a commitsEachBatch import leaves
/// the same store and the same result whichever path its batches take.
@Suite struct DirectImportTests {
    /// Staff: a department key, a self reference without inverse, and a to-many that only
    /// the object path imports (a record giving it sends its batch there).
    static let model: ObjectModel = {
        do {
            return try ObjectModel(entities: [
                EntityDescription("DirectDept", relatedBy: "deptID") {
                    AttributeDescription("deptID", .integer32, optional: false)
                    AttributeDescription("title", .string)
                    RelationshipDescription("staff", to: "DirectStaff", inverse: "dept", toMany: true)
                },
                EntityDescription("DirectStaff", relatedBy: "staffID") {
                    AttributeDescription("staffID", .integer64, optional: false)
                    AttributeDescription("name", .string)
                    AttributeDescription("age", .integer16, default: .integer(18), userInfo: ["useDefaultValueWhenNotPresent": "YES"])
                    AttributeDescription("city", .string, userInfo: ["mappedKeyName": "address.city"])
                    AttributeDescription("joined", .date)
                    RelationshipDescription("dept", to: "DirectDept", inverse: "staff", userInfo: ["mappedKeyName": "deptID"])
                    RelationshipDescription("mentor", to: "DirectStaff", userInfo: ["mappedKeyName": "mentorID"])
                    RelationshipDescription("badges", to: "DirectBadge", toMany: true)
                },
                EntityDescription("DirectBadge", relatedBy: "code") {
                    AttributeDescription("code", .string, optional: false)
                },
            ])
        } catch {
            fatalError("the direct import test model does not resolve: \(error)")
        }
    }()

    /// A store imported through the direct path and one through objects only.
    struct Pair {
        let direct = try! ImportStack(model: DirectImportTests.model)
        let objects = try! ImportStack(model: DirectImportTests.model)

        /// Imports `text` into both; returns the two outcomes as text.
        func importBoth(_ text: String, _ options: ImportOptions) -> (String, String) {
            var objectOnly = options
            objectOnly.importsWithoutObjects = false
            return (Self.outcome(direct, text, options), Self.outcome(objects, text, objectOnly))
        }

        private static func outcome(_ stack: ImportStack, _ text: String, _ options: ImportOptions) -> String {
            do {
                let result = try stack.root.importRecords(from: Data(text.utf8), entityName: "DirectStaff", options: options)
                return "read \(result.recordsRead) created \(result.created) updated \(result.updated) unchanged \(result.unchanged) "
                    + "skipped \(result.skipped.map(\.description))"
            } catch {
                // Ids differ where the object path spent a number on a record it skipped.
                return "\(error)".replacingOccurrences(of: #"/p[0-9]+"#, with: "/p#", options: .regularExpression)
            }
        }
    }

    /// Everything stored, by key: attributes, targets' keys, and that each key's index
    /// entry leads to its object.
    static func dump(_ stack: ImportStack) throws -> [String] {
        let context = stack.root
        let snapshot = try context.stack.store.snapshot()
        var lines: [String] = []
        for entity in model.entities {
            let key = try #require(entity.keyAttribute)
            for object in try context.fetch(FetchRequest(entityName: entity.name)) {
                let indexed = try snapshot.objects(of: entity, where: key, equals: object[key])
                #expect(indexed == [object.objectID], "index entry of \(entity.name) \(object[key])")
                var fields = entity.attributes.map { "\($0.name)=\(object[$0.name])" }
                for relationship in entity.relationships {
                    let targets = relationship.isToMany
                        ? try object.relatedObjects(forKey: relationship.name)
                        : [try object.relatedObject(forKey: relationship.name)].compactMap { $0 }
                    let keys = targets.map { target in "\(target[target.entity.keyAttribute ?? ""])" }.sorted()
                    fields.append("\(relationship.name)->\(keys)")
                }
                lines.append(entity.name + " " + fields.joined(separator: " "))
            }
        }
        return lines.sorted()
    }

    /// A record as JSON text, drawn at random: every kind of value each property can be
    /// given, including ones that fail.
    /// A record of random members in random order; `inOneOrder`: every member but the rare
    /// ones, always in the same order (records read in place); `flat`: no nested object
    /// either (records read in place without the general parse).
    static func randomRecord(_ random: inout SeededGenerator, inOneOrder: Bool = false, flat: Bool = false) -> String {
        if Int.random(in: 0..<40, using: &random) == 0 { return "5" }
        var members: [String] = []
        func maybe(_ member: String, _ percent: Int = 60) {
            if Int.random(in: 0..<100, using: &random) < (inOneOrder && percent > 4 ? 100 : percent) { members.append(member) }
        }
        if Int.random(in: 0..<25, using: &random) > 0 {
            members.append(#""staffID": \#([#"null"#, #""x""#, "\(Int.random(in: 0..<30, using: &random))"][Int.random(in: 0..<20, using: &random) == 0 ? Int.random(in: 0...1, using: &random) : 2])"#)
        }
        maybe(#""name": \#(["null", #""N\#(Int.random(in: 0..<5, using: &random))""#, #""N1""#].randomElement(using: &random)!)"#)
        maybe(#""age": \#(["null", "30", "31", #""old""#, "70000"].randomElement(using: &random)!)"#, 40)
        // Dates read from the bytes when a record is read in place: well formed, refused,
        // escaped, not ASCII, or not a string.
        let joined = [
            #""2020-01-02T03:04:05Z""#, #""1999-12-31T23:59:59+0200""#, #""2020-13-02T03:04:05Z""#, #""2020-01-02 03:04:05Z""#,
            #""2020-01-02T03:04:05Z""#, #""2020-01-02T03:04:05Zé""#, "1600000000", "null",
        ]
        maybe(#""joined": \#(joined.randomElement(using: &random)!)"#)
        if !flat { maybe(#""address": {"city": \#(["null", #""Oslo""#, #""Rome""#].randomElement(using: &random)!)}"#, 30) }
        maybe(#""deptID": \#(["null", flat ? "null" : "{}", #""d""#, "\(Int.random(in: 0..<6, using: &random))", "\(Int.random(in: 0..<6, using: &random))"].randomElement(using: &random)!)"#)
        maybe(#""mentorID": \#(["null", "\(Int.random(in: 0..<30, using: &random))", "\(Int.random(in: 0..<30, using: &random))"].randomElement(using: &random)!)"#, 30)
        if !flat { maybe(#""badges": ["b\#(Int.random(in: 0..<3, using: &random))"]"#, 4) }
        return "{" + (inOneOrder ? members : members.shuffled(using: &random)).joined(separator: ", ") + "}"
    }

    /// Records planned straight from the bytes (objects whose names repeat the record
    /// before's read in place, others built) leave the store and result that records
    /// planned from values do; a batch with a record the direct path refuses (a to-many, a
    /// number) is read again as values.
    @Test func recordsPlannedFromBytesMatchRecordsPlannedFromValues() throws {
        for seed in 0..<(8 * testScale) {
            var random = SeededGenerator(seed: 0x4259_5445 + UInt64(seed))
            let fromBytes = try ImportStack(model: Self.model)
            let fromValues = try ImportStack(model: Self.model)
            for round in 0..<4 {
                let options = ImportOptions(
                    nullAsAbsent: Bool.random(using: &random), skipInvalid: Bool.random(using: &random),
                    batchSize: Int.random(in: 1...12, using: &random), commitsEachBatch: true
                )
                let inOneOrder = Int.random(in: 0..<4, using: &random) > 0
                let flat = inOneOrder && Bool.random(using: &random)
                let records = (0..<Int.random(in: 1...40, using: &random)).map { _ in Self.randomRecord(&random, inOneOrder: inOneOrder, flat: flat) }
                let text = "[" + records.joined(separator: ", ") + "]"
                guard case .array(let values) = try JSONReader().read(text) else { Issue.record("not an array: \(text)"); return }
                func outcome(_ body: () throws -> ImportResult) -> String {
                    do {
                        let result = try body()
                        return "read \(result.recordsRead) created \(result.created) updated \(result.updated) unchanged \(result.unchanged) "
                            + "skipped \(result.skipped.map(\.description))"
                    } catch {
                        return "\(error)"
                    }
                }
                let bytesOutcome = outcome { try fromBytes.root.importRecords(from: Data(text.utf8), entityName: "DirectStaff", options: options) }
                let valuesOutcome = outcome { try fromValues.root.importRecords(values, entityName: "DirectStaff", options: options) }
                #expect(bytesOutcome == valuesOutcome, "seed \(seed) round \(round): \(text)")
                #expect(try Self.dump(fromBytes) == Self.dump(fromValues), "seed \(seed) round \(round): \(text)")
            }
        }
    }

    @Test func bothPathsLeaveTheSameStoreAndResultOnRandomImports() throws {
        for seed in 0..<(8 * testScale) {
            var random = SeededGenerator(seed: UInt64(seed))
            let pair = Pair()
            for round in 0..<4 {
                var options = ImportOptions(
                    nullAsAbsent: Bool.random(using: &random), skipInvalid: Int.random(in: 0..<3, using: &random) > 0,
                    insertsRecordsWithoutKey: Bool.random(using: &random),
                    // Now and then batches longer than the look-ahead of a batch's probes.
                    batchSize: Int.random(in: 1...12, using: &random) * (Int.random(in: 0..<4, using: &random) == 0 ? 4 : 1),
                    commitsEachBatch: true
                )
                if Bool.random(using: &random) { options.relationshipPolicy = .replace }
                let records = (0..<Int.random(in: 1...40, using: &random)).map { _ in Self.randomRecord(&random) }
                let text = "[" + records.joined(separator: ", ") + "]"
                let (direct, objects) = pair.importBoth(text, options)
                #expect(direct == objects, "seed \(seed) round \(round): \(text)")
                #expect(try Self.dump(pair.direct) == Self.dump(pair.objects), "seed \(seed) round \(round): \(text)")
            }
        }
    }

    /// A stored member moved away, back and away again within one batch (and a new one
    /// moved twice) ends in its last target only, as the object path leaves it: a to-one
    /// still as stored has joined no target's additions, one linked in the batch has.
    @Test func aMemberMovedSeveralTimesInOneBatchEndsInItsLastTarget() throws {
        let pair = Pair()
        let options = ImportOptions(batchSize: 50, commitsEachBatch: true)
        let stored = #"[{"staffID": 1, "deptID": 1}, {"staffID": 2, "deptID": 1}]"#
        let moves = #"[{"staffID": 1, "deptID": 2}, {"staffID": 1, "deptID": 1}, {"staffID": 9, "deptID": 2}, "#
            + #"{"staffID": 1, "deptID": 3}, {"staffID": 9, "deptID": 1}, {"staffID": 2, "deptID": 3}, {"staffID": 2, "deptID": 1}]"#
        for text in [stored, moves] {
            let (direct, objects) = pair.importBoth(text, options)
            #expect(direct == objects)
        }
        #expect(try Self.dump(pair.direct) == Self.dump(pair.objects))
    }

    @Test func batchesWithoutWhatOnlyObjectsGiveTakeTheDirectPath() throws {
        let stack = try ImportStack(model: Self.model)
        let mappings = ImportMappings(model: Self.model)
        let options = ImportOptions(commitsEachBatch: true)
        let entity = try #require(Self.model.entity(named: "DirectStaff"))
        let direct = try #require(DirectImporter(context: stack.root, options: options, entity: entity, mappings: mappings))
        func batch(_ texts: String...) -> [ImportRecord] {
            texts.enumerated().map { ImportRecord(index: $0, value: try! JSONReader().read($1)) }
        }
        #expect(direct.accepts(batch(#"{"staffID": 1, "deptID": 2, "mentorID": null}"#, #"{"staffID": 2, "deptID": {}}"#)))
        #expect(!direct.accepts(batch(#"{"staffID": 1}"#, #"{"staffID": 2, "badges": []}"#)), "a to-many")
        #expect(!direct.accepts(batch(#"{"staffID": 1, "deptID": {"deptID": 3}}"#)), "a nested record")
        #expect(!direct.accepts(batch(#"{"staffID": 1, "deptID": [3]}"#)), "an array for a to-one")
        #expect(!direct.accepts(batch("7")), "not a record: the object path reports it")
        // Not at all: without commitsEachBatch, or in a child context.
        #expect(DirectImporter(context: stack.root, options: ImportOptions(), entity: entity, mappings: mappings) == nil)
        #expect(DirectImporter(context: stack.main, options: options, entity: entity, mappings: mappings) == nil)
    }

    /// A plan keeps positions in 16 bits: an entity with more attributes imports through
    /// objects, as it did before.
    @Test func anEntityWiderThanAPlansPositionsTakesTheObjectPath() throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Wide", relatedBy: "key") {
                AttributeDescription("key", .integer64, optional: false)
                for index in 0..<(1 << 16) { AttributeDescription("a\(index)", .integer16) }
            },
        ])
        let stack = try ImportStack(model: model)
        let entity = try #require(model.entity(named: "Wide"))
        let options = ImportOptions(commitsEachBatch: true)
        let takesDirectPath = DirectImporter(context: stack.root, options: options, entity: entity, mappings: ImportMappings(model: model)) != nil
        #expect(!takesDirectPath)
        try stack.root.importRecords(from: Data(#"[{"key": 1, "a65535": 7}, {"key": 1, "a0": 3}]"#.utf8), entityName: "Wide", options: options)
        let stored = try stack.root.fetch(FetchRequest(entityName: "Wide"))
        #expect(stored.map { [$0["key"], $0["a0"], $0["a65535"]] } == [[.integer(1), .integer(3), .integer(7)]])
    }

    @Test func aMovedMemberLeavesItsPreviousTargetsToMany() throws {
        let stack = try ImportStack(model: Self.model)
        let options = ImportOptions(batchSize: 2, commitsEachBatch: true)
        try stack.root.importRecords(
            from: Data(#"[{"staffID": 1, "deptID": 1}, {"staffID": 2, "deptID": 1}, {"staffID": 3, "deptID": 2}]"#.utf8),
            entityName: "DirectStaff", options: options
        )
        let result = try stack.root.importRecords(
            from: Data(#"[{"staffID": 1, "deptID": 2}, {"staffID": 2, "deptID": null}, {"staffID": 3, "deptID": 2}]"#.utf8),
            entityName: "DirectStaff", options: options
        )
        // Batch one: staff 1 and 2 changed, department 2 found and joined; batch two: staff
        // 3 and department 2 found as they were. Department 1, only left, is not counted.
        #expect((result.created, result.updated, result.unchanged) == (0, 3, 2))
        let staff = { (key: Int64) in try stack.object("DirectDept", "deptID", .integer(key), in: stack.root).relatedObjects(forKey: "staff").map { $0["staffID"] } }
        #expect(try staff(1) == [])
        #expect(try Set(staff(2)) == [.integer(1), .integer(3)])
    }

    /// Regression test: the object path counted an object as updated when one record
    /// changed a value and a later one changed it back.
    @Test(arguments: [false, true])
    func aValueChangedAndChangedBackCountsAsUnchanged(commitsEachBatch: Bool) throws {
        let pair = Pair()
        let options = ImportOptions(commitsEachBatch: true)
        _ = pair.importBoth(#"[{"staffID": 1, "name": "Ann"}]"#, options)
        var again = ImportOptions(commitsEachBatch: commitsEachBatch)
        again.importsWithoutObjects = false
        let result = try pair.objects.root.importRecords(
            from: Data(#"[{"staffID": 1, "name": "Bea"}, {"staffID": 1, "name": "Ann"}]"#.utf8), entityName: "DirectStaff", options: again
        )
        #expect((result.updated, result.unchanged) == (0, 1))
        let (direct, _) = pair.importBoth(#"[{"staffID": 1, "name": "Bea"}, {"staffID": 1, "name": "Ann"}]"#, options)
        #expect(direct.hasPrefix("read 2 created 0 updated 0 unchanged 1"), "\(direct)")
    }

    /// Regression test (found by FuzzDirectImport): a member that moved away and back in
    /// one batch was added again where it was stored, so its target counted as updated.
    @Test func aMemberMovedAwayAndBackInOneBatchLeavesItsTargetUnchanged() throws {
        let pair = Pair()
        let options = ImportOptions(batchSize: 2, commitsEachBatch: true)
        _ = pair.importBoth(#"[{"staffID": 1, "deptID": 1}, {"staffID": 2, "deptID": 1}, {"staffID": 3, "deptID": 2}]"#, options)
        let moves = #"[{"staffID": 2, "deptID": 2}, {"staffID": 2, "deptID": 1}, {"staffID": 2, "deptID": 2}, {"staffID": 1, "deptID": 3}]"#
        let (direct, objects) = pair.importBoth(moves, options)
        #expect(direct == objects)
        #expect(try Self.dump(pair.direct) == Self.dump(pair.objects))
        // Found by FuzzDirectImport: the object path counted a set holding its members in
        // another order, or read since, as updated. Nothing here changes.
        let awayAndBack = pair.importBoth(#"[{"staffID": 3, "deptID": 1}, {"staffID": 3, "deptID": 2}]"#, options)
        #expect(awayAndBack.0 == awayAndBack.1)
        #expect(awayAndBack.0.hasPrefix("read 2 created 0 updated 0 unchanged 3"), "\(awayAndBack.0)")
    }

    /// A department found by key that only loses a member (no state of its own changes)
    /// counts as updated on both paths.
    @Test func aTargetThatOnlyLosesAMemberCountsAsUpdated() throws {
        let pair = Pair()
        let options = ImportOptions(commitsEachBatch: true)
        _ = pair.importBoth(#"[{"staffID": 1, "deptID": 1}, {"staffID": 2, "deptID": 1}, {"staffID": 3, "deptID": 2}]"#, options)
        let (direct, objects) = pair.importBoth(#"[{"staffID": 1, "deptID": 2}, {"staffID": 2, "deptID": 1}]"#, options)
        #expect(direct == objects)
        #expect(direct.hasPrefix("read 2 created 0 updated 3 unchanged 1"), "\(direct)")
        #expect(try Self.dump(pair.direct) == Self.dump(pair.objects))
    }

    /// Regression test (found by the random differential test at twenty times its scale,
    /// seed 118): an object-path batch sets staff 6's age null, which the store keeps as its
    /// default; a later direct batch must count the record that leaves age as stored unchanged.
    @Test func aNullSavedOverADefaultCountsAsTheStoredValue() throws {
        let pair = Pair()
        let options = ImportOptions(nullAsAbsent: false, skipInvalid: true, insertsRecordsWithoutKey: true, batchSize: 12, commitsEachBatch: true)
        let records = #"""
            [{"address":{"city":null},"deptID":{},"name":"N0","staffID":11}, {"address":{"city":null},"age":"old","deptID":"d","mentorID":21,"staffID":1},
             {"address":{"city":"Rome"},"age":null,"name":"N1","staffID":6}, {"age":31,"name":"N1","staffID":23}, {"age":70000,"deptID":"d"},
             {"deptID":1,"mentorID":26,"name":"N1","staffID":26}, {"deptID":5,"name":"N1","staffID":20}, {"mentorID":22,"name":null,"staffID":1},
             {"address":{"city":"Oslo"},"name":null,"staffID":11}, {"age":null,"deptID":{},"mentorID":24,"name":null,"staffID":19},
             {"deptID":{},"name":null,"staffID":12}, {"staffID":24}, {"name":"N1","staffID":6}]
            """#
        let (direct, objects) = pair.importBoth(records, options)
        #expect(direct == objects)
        #expect(try Self.dump(pair.direct) == Self.dump(pair.objects))
    }

    @Test func aBatchThatFailsValidationCommitsNothingOfItself() throws {
        let stack = try ImportStack(model: Self.model)
        let text = #"[{"staffID": 1, "deptID": 1}, {"staffID": 2}, {"staffID": 3, "deptID": 1}, {"staffID": null, "name": "x"}]"#
        let failure = Result { () throws(MagicalRecordError) in
            try stack.root.importRecords(
                from: Data(text.utf8), entityName: "DirectStaff", options: ImportOptions(insertsRecordsWithoutKey: true, batchSize: 3, commitsEachBatch: true)
            )
        }
        guard case .failure(let error) = failure else {
            Issue.record("a record without its required key was saved")
            return
        }
        #expect("\(error)".contains("staffID"), "\(error)")
        #expect(try stack.count("DirectStaff", in: stack.root) == 3)
        #expect(try stack.count("DirectDept", in: stack.root) == 1)
        #expect(stack.root.hasChanges == false)
    }

    @Test func objectsAlreadyInContextsSeeWhatADirectBatchCommitted() throws {
        let stack = try ImportStack(model: Self.model)
        let options = ImportOptions(commitsEachBatch: true)
        try stack.root.importRecords(from: Data(#"[{"staffID": 1, "name": "Ann"}]"#.utf8), entityName: "DirectStaff", options: options)
        let seen = try stack.object("DirectStaff", "staffID", .integer(1), in: stack.main)
        #expect(seen["name"] == .string("Ann"))
        try stack.root.importRecords(from: Data(#"[{"staffID": 1, "name": "Bea", "deptID": 4}]"#.utf8), entityName: "DirectStaff", options: options)
        #expect(seen["name"] == .string("Bea"))
        #expect(try seen.relatedObject(forKey: "dept")?["deptID"] == .integer(4))
        // A to-many read before a member moved away (not read by the import) loses it.
        let four = try stack.object("DirectDept", "deptID", .integer(4), in: stack.main)
        #expect(try four.relatedObjects(forKey: "staff").map(\.objectID) == [seen.objectID])
        try stack.root.importRecords(from: Data(#"[{"staffID": 1, "deptID": 5}]"#.utf8), entityName: "DirectStaff", options: options)
        #expect(try four.relatedObjects(forKey: "staff").isEmpty)
        #expect(try seen.relatedObject(forKey: "dept")?["deptID"] == .integer(5))
    }
}

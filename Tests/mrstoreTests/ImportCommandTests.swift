import Foundation
import Testing
@testable import MagicalRecord

/// `mrstore import`: creating a store from a model file, upserting into it, reading
/// standard input, and refusing bad input with the store left byte for byte.
@Suite struct ImportCommandTests {
    typealias Run = MRStoreCommandTests

    static let model: ObjectModel = {
        do {
            return try ObjectModel(entities: [
                EntityDescription("Team", relatedBy: "teamID") {
                    AttributeDescription("teamID", .integer32, optional: false)
                    AttributeDescription("name", .string)
                    RelationshipDescription("players", to: "Player", inverse: "team", toMany: true)
                },
                EntityDescription("Player", relatedBy: "playerID") {
                    AttributeDescription("playerID", .integer64, optional: false)
                    AttributeDescription("name", .string, userInfo: ["mappedKeyName": "full_name", "mappedKeyName.1": "nick"])
                    AttributeDescription("rating", .double)
                    RelationshipDescription("team", to: "Team", inverse: "players")
                },
            ])
        } catch {
            fatalError("the import command model does not resolve: \(error)")
        }
    }()

    /// A directory with the model as a JSON model file.
    final class Workspace {
        let directory = MRStoreCommandTests.Directory()
        var store: String { directory.path + "/teams.store" }
        var modelPath: String { directory.path + "/model.json" }

        init() throws {
            try JSONModelDescription(ImportCommandTests.model).encoded().write(to: URL(fileURLWithPath: modelPath))
        }

        /// Writes `text` to a file of the directory and returns its path.
        func file(_ name: String, _ text: String) throws -> String {
            let path = directory.path + "/" + name
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }

        func storeBytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: store)) }

        func withStack<T>(_ body: (PersistentStack) throws -> T) throws -> T {
            let stack = try PersistentStack(storeAt: URL(fileURLWithPath: store), readOnly: true)
            defer { try? stack.close() }
            return try body(stack)
        }

        func players() throws -> [Int64: String?] {
            try withStack { stack in
                var players: [Int64: String?] = [:]
                for player in try stack.mainContext.fetch(FetchRequest(entityName: "Player")) {
                    players[player["playerID"].integerValue ?? -1] = player["name"].stringValue
                }
                return players
            }
        }
    }

    private static let roster = #"[{"playerID": 1, "full_name": "Ann", "team": 10}, {"playerID": 2, "full_name": "Bo", "team": {"teamID": 10, "name": "Reds"}}]"#

    @Test func createsTheStoreFromAModelAndUpsertsIntoIt() throws {
        let space = try Workspace()
        let first = try Run.run("import", space.store, try space.file("a.json", Self.roster), "--entity", "Player", "--model", space.modelPath)
        #expect(first.status == 0, "\(first.errors)")
        #expect(first.output.hasPrefix("imported 2 records in "))
        #expect(first.output.hasSuffix("3 objects created, 0 updated, 0 unchanged (nested ones included); 0 records declined, 0 skipped\n"))
        #expect(try space.players() == [1: "Ann", 2: "Bo"])

        // The store's own model: no --model needed; "2" finds player 2.
        let update = #"[{"playerID": "2", "full_name": "Bob"}, {"playerID": 3}]"#
        let second = try Run.run("import", space.store, try space.file("b.json", update), "--entity", "Player", "--json")
        #expect(second.status == 0, "\(second.errors)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(second.output.utf8)) as? [String: Any])
        #expect(summary["created"] as? Int == 1 && summary["updated"] as? Int == 1 && summary["records"] as? Int == 2)
        #expect(summary["seconds"] is Double && summary["records_per_second"] is Int)
        #expect((summary["skipped"] as? [Any])?.isEmpty == true)
        #expect(try space.players() == [1: "Ann", 2: "Bob", 3: nil])

        let teams = try space.withStack { stack in
            try stack.mainContext.fetch(FetchRequest(entityName: "Team")).map { team in
                (team["name"], try team.relatedObjects(forKey: "players").count)
            }
        }
        #expect(teams.count == 1 && teams.first?.0 == .string("Reds") && teams.first?.1 == 2)

        let again = try Run.run("import", space.store, try space.file("b.json", update), "--entity", "Player")
        #expect(again.status == 0)
        #expect(again.output.contains("0 objects created, 0 updated, 2 unchanged"))
        #expect(try space.players() == [1: "Ann", 2: "Bob", 3: nil], "importing the same file twice leaves the same objects")
    }

    @Test func readsStandardInput() throws {
        let space = try Workspace()
        let process = Process()
        process.executableURL = Run.executable
        process.arguments = ["import", space.store, "-", "--entity", "Player", "--model", space.modelPath, "--batch-size", "1"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        input.fileHandleForWriting.write(Data(Self.roster.utf8))
        try input.fileHandleForWriting.close()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(printed.hasPrefix("imported 2 records in "))
        #expect(try space.players().count == 2)
    }

    @Test func badInputFailsAndLeavesTheStoreByteForByte() throws {
        let space = try Workspace()
        #expect(try Run.run("import", space.store, try space.file("a.json", Self.roster), "--entity", "Player", "--model", space.modelPath).status == 0)
        let before = try space.storeBytes()
        let cases: [(String, String, String)] = [
            ("malformed", #"[{"playerID": 5}, {"playerID": 6,]"#, "unexpected character ']' at byte 33"),
            ("trailing comma", #"[{"playerID": 5}, {"playerID": 6},]"#, "trailing comma at byte 33"),
            ("unconvertible", #"[{"playerID": 5}, {"playerID": 6, "rating": "fast"}]"#, #"record 1: Player.rating from key "rating": "fast""#),
            ("keyless", #"[{"playerID": 5}, {"full_name": "nobody"}]"#, "record 1: key Player.playerID = absent"),
            ("not records", #""players""#, "malformed JSON"),
        ]
        for (name, text, message) in cases {
            let result = try Run.run("import", space.store, try space.file(name + ".json", text), "--entity", "Player")
            #expect(result.status != 0, "\(name)")
            #expect(result.errors.hasPrefix("mrstore: import failed, nothing imported: "), "\(name): \(result.errors)")
            #expect(result.errors.contains(message), "\(name): \(result.errors)")
            #expect(result.output.isEmpty)
            #expect(try space.storeBytes() == before, "\(name) changed the store")
        }
        let unknown = try Run.run("import", space.store, try space.file("c.json", "[]"), "--entity", "Coach")
        #expect(unknown.status != 0 && unknown.errors.contains("Coach"))
        #expect(try space.storeBytes() == before)

        let trailing = try space.file("d.json", #"[{"playerID": 5}, {"playerID": 6},]"#)
        #expect(try Run.run("import", space.store, trailing, "--entity", "Player", "--allow-trailing-commas").status == 0)
        #expect(try space.players().keys.sorted() == [1, 2, 5, 6])
    }

    @Test func aFailedImportIntoANewStoreLeavesNoStore() throws {
        let space = try Workspace()
        let cases: [(String, [String])] = [
            ("unconvertible", [try space.file("a.json", #"[{"playerID": 1, "rating": "fast"}]"#), "--entity", "Player"]),
            ("unknown entity", [try space.file("b.json", "[]"), "--entity", "Coach"]),
            ("missing file", [space.directory.path + "/missing.json", "--entity", "Player"]),
        ]
        for (name, arguments) in cases {
            let result = try Run.run(["import", space.store] + arguments + ["--model", space.modelPath])
            #expect(result.status != 0, "\(name)")
            #expect(!FileManager.default.fileExists(atPath: space.store), "\(name) left a store")
        }
    }

    @Test func nullAsAbsentAndReplaceRelationshipsReachTheImport() throws {
        let space = try Workspace()
        let players = try space.file("players.json", #"[{"playerID": 1, "full_name": null, "nick": "Al"}, {"playerID": 2}, {"playerID": 3}]"#)
        #expect(try Run.run("import", space.store, players, "--entity", "Player", "--model", space.modelPath).status == 0)
        #expect(try space.players()[1] == .some(nil), "null sets nil: the alternate is not tried")
        #expect(try Run.run("import", space.store, players, "--entity", "Player", "--null-as-absent").status == 0)
        #expect(try space.players()[1] == "Al")

        func members() throws -> [Int64] {
            try space.withStack { stack in
                let team = try #require(try stack.mainContext.fetch(FetchRequest(entityName: "Team")).first)
                return try team.relatedObjects(forKey: "players").compactMap { $0["playerID"].integerValue }.sorted()
            }
        }
        #expect(try Run.run("import", space.store, try space.file("t1.json", #"[{"teamID": 10, "players": [1, 2]}]"#), "--entity", "Team").status == 0)
        let second = try space.file("t2.json", #"[{"teamID": 10, "players": [3]}]"#)
        #expect(try Run.run("import", space.store, second, "--entity", "Team").status == 0)
        #expect(try members() == [1, 2, 3], "to-many imports join the current members")
        #expect(try Run.run("import", space.store, second, "--entity", "Team", "--replace-relationships").status == 0)
        #expect(try members() == [3])
    }

    @Test func skipInvalidImportsTheRestAndListsWhatItLeftOut() throws {
        let space = try Workspace()
        let text = #"[{"playerID": 1}, {"playerID": 2, "rating": "fast"}, 7, {"playerID": 4, "rating": 9.5}]"#
        let result = try Run.run(
            "import", space.store, try space.file("a.json", text), "--entity", "Player", "--model", space.modelPath, "--skip-invalid", "--json"
        )
        #expect(result.status == 0, "\(result.errors)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let skipped = try #require(summary["skipped"] as? [[String: Any]])
        #expect(skipped.compactMap { $0["record"] as? Int } == [1, 2])
        #expect(result.errors.components(separatedBy: "mrstore: skipped record").count == 3)
        #expect(try space.players().keys.sorted() == [1, 4])
    }

    @Test func aStoreIsCreatedOnlyFromAModelAndKeepsItsOwn() throws {
        let space = try Workspace()
        let missing = try Run.run("import", space.store, try space.file("a.json", Self.roster), "--entity", "Player")
        #expect(missing.status == 1)
        #expect(missing.errors == "mrstore: \(space.store) does not exist: give --model to create it\n")
        #expect(!FileManager.default.fileExists(atPath: space.store))

        #expect(try Run.run("import", space.store, try space.file("a.json", Self.roster), "--entity", "Player", "--model", space.modelPath).status == 0)
        let before = try space.storeBytes()
        let other = try ObjectModel(entities: [EntityDescription("Player", relatedBy: "playerID") { AttributeDescription("playerID", .integer64, optional: false) }])
        let otherPath = space.directory.path + "/other.json"
        try JSONModelDescription(other).encoded().write(to: URL(fileURLWithPath: otherPath))
        let mismatch = try Run.run("import", space.store, try space.file("b.json", "[]"), "--entity", "Player", "--model", otherPath)
        #expect(mismatch.status != 0)
        #expect(mismatch.errors.contains("Team"), "the differences are listed: \(mismatch.errors)")
        #expect(try space.storeBytes() == before)
    }

    @Test func commitEachBatchKeepsTheBatchesBeforeAnError() throws {
        let space = try Workspace()
        let records = (0..<25).map { $0 == 22 ? #"{"playerID": 22, "rating": "x"}"# : #"{"playerID": \#($0)}"# }
        let result = try Run.run(
            "import", space.store, try space.file("a.json", "[" + records.joined(separator: ",") + "]"), "--entity", "Player",
            "--model", space.modelPath, "--commit-each-batch", "--batch-size", "10"
        )
        #expect(result.status != 0)
        #expect(result.errors.contains("(the 20 records before its batch were committed)"), "\(result.errors)")
        #expect(try space.players().count == 20)
    }
}

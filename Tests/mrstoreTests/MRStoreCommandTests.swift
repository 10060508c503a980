import Foundation
import Testing
@testable import MagicalStore

/// `mrstore` as a user runs it: a child process, its output and its exit status.
@Suite struct MRStoreCommandTests {
    struct Result {
        var status: Int32
        var output: String
        var errors: String
    }

    static let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("mrstore")

    static func run(_ arguments: String...) throws -> Result {
        try run(arguments)
    }

    static func run(_ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            output: String(decoding: outputData, as: UTF8.self),
            errors: String(decoding: errorData, as: UTF8.self)
        )
    }

    final class Directory {
        let path = NSTemporaryDirectory() + "mrstore-" + UUID().uuidString
        init() { try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    @Test func demoThenInfoAndCheck() throws {
        let directory = Directory()
        let store = directory.path + "/demo.store"
        let demo = try Self.run("demo", store, "--records", "2000")
        #expect(demo.status == 0, "\(demo.errors)")
        #expect(demo.output.contains("imported 2000 people from demo.json"))

        let info = try Self.run("info", store)
        #expect(info.status == 0)
        #expect(info.output.contains("o.Person: 2000 entries"))
        #expect(info.output.contains("i.Person.lastName: 2000 entries"))
        #expect(info.output.contains("o.Department: 100 entries"))

        let json = try Self.run("info", store, "--json")
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        #expect(object?["formatVersion"] as? Int == 4)
        let trees = (object?["trees"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(trees?.sorted() == [
            "i.Department.departmentID", "i.Person.lastName", "i.Person.personID", "mr.meta",
            "o.Department", "o.Person", "r.Department.people",
        ])

        let check = try Self.run("check", store)
        #expect(check.status == 0, "\(check.errors)")
        #expect(check.output.hasPrefix("ok:"))
        #expect(check.output.contains("  o.Person: 2000 entries, "), "\(check.output)")

        let again = try Self.run("demo", store, "--records", "10")
        #expect(again.status != 0)
        #expect(again.errors.contains("exists"))
    }

    /// `compact --compression lz4` and `--compression zstd` rewrite every page with that
    /// codec: Zstandard's file is smaller, checks clean and answers as before; a codec it
    /// does not know is refused, untouched.
    @Test func compactRecompressesPagesWithTheChosenCodec() throws {
        let directory = Directory()
        let store = directory.path + "/demo.store"
        #expect(try Self.run("demo", store, "--records", "3000").status == 0)
        let before = try Self.run("count", store, "--entity", "Person", "--where", "age > 40")
        #expect(before.status == 0, "\(before.errors)")

        let original = try Data(contentsOf: URL(fileURLWithPath: store))
        let refused = try Self.run("compact", store, "--compression", "gzip")
        #expect(refused.status != 0)
        #expect(refused.errors.contains("gzip"), "\(refused.errors)")
        let badLevel = try Self.run("compact", store, "--compression", "zstd:99")
        #expect(badLevel.status != 0)
        #expect(badLevel.errors.contains("zstd level 99"), "\(badLevel.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == original)

        let lz4 = try Self.run("compact", store, "--compression", "lz4")
        #expect(lz4.status == 0, "\(lz4.errors)")
        let lz4Size = try #require(FileManager.default.attributesOfItem(atPath: store)[.size] as? Int)
        let zstd = try Self.run("compact", store, "--compression", "zstd")
        #expect(zstd.status == 0, "\(zstd.errors)")
        let zstdSize = try #require(FileManager.default.attributesOfItem(atPath: store)[.size] as? Int)
        #expect(zstdSize < lz4Size, "zstd \(zstdSize) bytes, lz4 \(lz4Size)")

        let check = try Self.run("check", store)
        #expect(check.status == 0, "\(check.errors)")
        #expect(check.output.contains("(0 lz4, "), "\(check.output)")
        #expect(!check.output.contains(" 0 zstd)"), "\(check.output)")
        let after = try Self.run("count", store, "--entity", "Person", "--where", "age > 40")
        #expect(after.output == before.output)
    }

    @Test func checkNamesTheOffsetOfAFlippedBitAndReportsATornTail() throws {
        let directory = Directory()
        let store = directory.path + "/demo.store"
        #expect(try Self.run("demo", store, "--records", "500").status == 0)
        let original = try Data(contentsOf: URL(fileURLWithPath: store))

        var flipped = original
        flipped[4096 + 30] ^= 0x04
        let damaged = directory.path + "/damaged.store"
        try flipped.write(to: URL(fileURLWithPath: damaged))
        let check = try Self.run("check", damaged)
        #expect(check.status == 1)
        #expect(check.errors.contains("offset 4096"))

        let torn = directory.path + "/torn.store"
        try (original + Data([1, 2, 3, 4, 5, 6, 7, 8, 9])).write(to: URL(fileURLWithPath: torn))
        let tornCheck = try Self.run("check", torn)
        #expect(tornCheck.status == 1)
        #expect(tornCheck.errors.contains("torn tail"))
    }

    @Test func checkCannotCheckWhatIsNotAStore() throws {
        let directory = Directory()
        let path = directory.path + "/notes.txt"
        try Data("not a store".utf8).write(to: URL(fileURLWithPath: path))
        let check = try Self.run("check", path)
        #expect(check.status == 2)
        #expect(check.errors.contains("not a MagicalStore file"))
        #expect(try Self.run("check", directory.path + "/missing.store").status == 2)
        #expect(try Self.run("info", path).status != 0)
    }

    /// A plain `compact` writes Zstandard level 3: a store compacted that way is not made
    /// larger by compacting it again, and one of LZ4 pages becomes smaller.
    @Test func compactWritesZstandardUnlessToldOtherwise() throws {
        let directory = Directory()
        let store = directory.path + "/demo.store"
        #expect(try Self.run("demo", store, "--records", "3000").status == 0)
        #expect(try Self.run("compact", store, "--compression", "lz4").status == 0)
        let lz4Size = try #require(FileManager.default.attributesOfItem(atPath: store)[.size] as? Int)

        let first = try Self.run("compact", store)
        #expect(first.status == 0, "\(first.errors)")
        let zstdSize = try #require(FileManager.default.attributesOfItem(atPath: store)[.size] as? Int)
        #expect(zstdSize < lz4Size, "zstd \(zstdSize) bytes, lz4 \(lz4Size)")
        let check = try Self.run("check", store)
        #expect(check.output.contains("(0 lz4, "), "\(check.output)")

        #expect(try Self.run("compact", store).status == 0)
        let again = try #require(FileManager.default.attributesOfItem(atPath: store)[.size] as? Int)
        #expect(again == zstdSize)
    }

    @Test func compactReclaimsDeadSpaceAndRespectsTheLock() throws {
        let directory = Directory()
        let path = directory.path + "/churn.store"
        do {
            let store = try Store(path: path, options: StoreOptions(durability: .none))
            for round in 0..<20 {
                try store.write { transaction in
                    let tree = try transaction.openTree("tree")
                    for key in 0..<200 { try tree.put(numberKey(key), Array("round \(round)".utf8)) }
                }
            }
            try store.close()
        }
        let before = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        let compact = try Self.run("compact", path)
        #expect(compact.status == 0, "\(compact.errors)")
        #expect(compact.output.contains("reclaimed"))
        let after = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(after < before / 4)
        #expect(try Self.run("check", path).status == 0)

        let holder = try Store(path: path)
        let locked = try Self.run("compact", path)
        #expect(locked.status != 0)
        #expect(locked.errors.contains("locked"))
        try holder.close()
    }

    func numberKey(_ number: Int) -> [UInt8] {
        withUnsafeBytes(of: UInt64(number).bigEndian) { Array($0) }
    }
}

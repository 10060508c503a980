import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// The class-level import calls and the hooks of a class adopting ImportHooks (Spec/IMPORT.md I18).
/// Entities of their own (Post, Comment), since their classes are registered process-wide.
@Suite struct ImportAPITests {
    final class Post: ManagedObject, ImportHooks {
        @Field var postID: Int64
        @Field var title: String?
        @Field var keywords: String?
        @Field var imports: Int32
        @ToMany var comments: [Comment]

        class func shouldImport(_ record: JSONObject) -> Bool { record["draft"] != .bool(true) }

        func willImport(_ record: JSONObject) { imports += 1 }

        func importValue(_ value: JSONValue, forAttribute name: String) -> Bool {
            guard name == "keywords", case .array(let words) = value else { return false }
            keywords = words.compactMap { if case .string(let word) = $0 { word.lowercased() } else { nil } }.joined(separator: ",")
            return true
        }

        func didImport(_ record: JSONObject) {
            if title == nil { title = "untitled" }
        }

        func shouldImport(_ value: JSONValue, forRelationship name: String) -> Bool {
            value != .string("skip")
        }
    }

    final class Comment: ManagedObject {
        @Field var commentID: Int64
        @Field var body: String?
        @ToOne var post: Post?
    }

    static let model: ObjectModel = {
        do {
            return try ObjectModel(entities: [
                EntityDescription("Post", relatedBy: "postID") {
                    AttributeDescription("postID", .integer64, optional: false)
                    AttributeDescription("title", .string)
                    AttributeDescription("keywords", .string)
                    AttributeDescription("imports", .integer32, default: .integer(0))
                    RelationshipDescription("comments", to: "Comment", inverse: "post", toMany: true)
                },
                EntityDescription("Comment", relatedBy: "commentID") {
                    AttributeDescription("commentID", .integer64, optional: false)
                    AttributeDescription("body", .string, userInfo: ["mappedKeyName": "text"])
                    RelationshipDescription("post", to: "Post", inverse: "comments")
                },
            ])
        } catch {
            fatalError("the import API test model does not resolve: \(error)")
        }
    }()

    private func makeStack() throws -> ImportStack {
        MagicalRecord.register(Post.self, Comment.self)
        return try ImportStack(model: Self.model)
    }

    @Test func importFromObjectAndArrayReturnTypedObjects() throws {
        let stack = try makeStack()
        let post = try #require(try Post.importFromObject(["postID": 1, "title": "Hello"] as [String: Any], in: stack.main))
        #expect(post.title == "Hello" && post.postID == 1)
        let posts = try Post.importFromArray(
            [["postID": 2], ["postID": "1", "comments": [["commentID": 5, "text": "hi"]]], ["postID": 2, "title": "Two"]] as [Any],
            in: stack.main
        )
        #expect(posts.map(\.postID) == [2, 1])
        #expect(posts[0].title == "Two")
        #expect(posts[1] === post)
        #expect(post.comments.map(\.body) == ["hi"])
        #expect(post.comments.first?.post === post)
    }

    @Test func hooksDeclineTransformAndFinishRecords() throws {
        let stack = try makeStack()
        let result = try stack.main.importRecords(
            [
                ["postID": 1, "draft": true, "title": "draft"],
                ["postID": 2, "keywords": ["Swift", "JSON"]],
                ["postID": 3, "keywords": "kept as text", "comments": "skip"],
            ],
            entityName: "Post"
        )
        #expect(result.declined == 1 && result.created == 2)
        #expect(try Post.countOfEntities(in: stack.main) == 2)
        let two = try #require(try Post.findFirst(byAttribute: "postID", withValue: 2, in: stack.main))
        #expect(two.keywords == "swift,json")
        #expect(two.title == "untitled")
        #expect(two.imports == 1)
        let three = try #require(try Post.findFirst(byAttribute: "postID", withValue: 3, in: stack.main))
        #expect(three.keywords == "kept as text")
        #expect(three.comments.isEmpty)
    }

    @Test func importValuesForKeysImportsIntoTheObjectItself() throws {
        let stack = try makeStack()
        let post = try Post.createEntity(in: stack.main)
        try post.importValuesForKeys(with: ["postID": 9, "title": "T", "comments": [["commentID": 1]]] as [String: Any])
        #expect(post.postID == 9 && post.title == "T" && post.imports == 1)
        #expect(post.comments.map(\.commentID) == [1])
        #expect(try Post.countOfEntities(in: stack.main) == 1)
    }

    @Test func importFromJSONReadsFilesInBatches() throws {
        let stack = try makeStack()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("import-api-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("posts.json")
        let records = (0..<250).map { #"{"postID": \#($0 % 200), "title": "p\#($0)"}"# }
        try Data(("[" + records.joined(separator: ",\n") + "]").utf8).write(to: file)

        var progress: [Int] = []
        let result = try stack.main.importRecords(
            contentsOf: file, entityName: "Post", options: ImportOptions(batchSize: 100), progress: { progress.append($0.recordsRead) }
        )
        #expect(progress == [100, 200, 250])
        #expect(result.created == 200 && result.objectIDs.count == 200)
        #expect(try Post.findFirst(byAttribute: "postID", withValue: 10, in: stack.main)?.title == "p210")
        let again = try Post.importFromJSON(contentsOf: file, in: stack.main)
        #expect(again.created == 0 && again.updated == 200)

        let missing = importFailure { () throws(MagicalRecordError) in
            try stack.main.importRecords(contentsOf: directory.appendingPathComponent("none.json"), entityName: "Post")
        }
        #expect(missing?.description.hasPrefix("the input: could not read the input: cannot open") == true, "\(String(describing: missing))")
        #expect(missing?.description.contains("none.json") == true)
    }

    @Test func foundationValuesThatAreNotJSONAreRefused() throws {
        let stack = try makeStack()
        let failure = importFailure { () throws(MagicalRecordError) in
            try Post.importFromObject(["postID": 1, "title": Date()] as [String: Any], in: stack.main)
        }
        #expect(failure?.description.contains("title") == true)
        #expect(failure?.description.contains("malformed") == false, "a Date is not malformed JSON: \(String(describing: failure))")
        #expect(stack.main.hasChanges == false)
    }
}

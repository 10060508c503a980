import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// Typed properties on ManagedObject subclasses (@Field, @ToOne, @ToMany), the class
/// check against the model, register and inContext. The entity names are this suite's
/// own: the class registry is process-wide.
@Suite struct TypedPropertyTests {
    final class Writer: ManagedObject {
        @Field var writerID: Int64
        @Field var name: String?
        @Field("birthYear") var born: Int16?
        @ToMany var novels: [Novel]
        @ToOne var mentor: Writer?
    }

    final class Novel: ManagedObject {
        @Field var title: String
        @ToOne("author") var writer: Writer?
    }

    enum Finish: String, AttributeConvertible {
        case matte, gloss
        static var valueForNil: Finish { .matte }
    }

    final class Gadget: ManagedObject {
        @Field var small: Int16
        @Field var medium: Int32
        @Field var large: Int64
        @Field var count: Int
        @Field var ratio: Double
        @Field var weight: Float
        @Field var price: Decimal
        @Field var enabled: Bool
        @Field var label: String
        @Field var made: Date
        @Field var blob: Data
        @Field var serial: UUID
        @Field var site: URL
        @Field var note: String?
        @Field("label") var finish: Finish?
        /// Wider Swift types than their attributes: writes are range-checked.
        @Field var level: Int
        @Field var share: Double?
    }

    /// Declared against entity Misfit, which has none of this.
    final class Misfit: ManagedObject {
        @Field var missing: String?
        @Field var code: String?
        @Field var tiny: Int16
        @ToMany var owner: [Writer]
        @ToOne var others: Writer?
        @ToOne var buddy: Novel?
    }

    static let model: ObjectModel = {
        do {
            return try ObjectModel(entities: [
                EntityDescription("Writer", relatedBy: "writerID") {
                    AttributeDescription("writerID", .integer64, optional: false)
                    AttributeDescription("name", .string)
                    AttributeDescription("birthYear", .integer16)
                    RelationshipDescription("novels", to: "Novel", inverse: "author", toMany: true, ordered: true)
                    RelationshipDescription("mentor", to: "Writer")
                },
                EntityDescription("Novel") {
                    AttributeDescription("title", .string, optional: false)
                    RelationshipDescription("author", to: "Writer", inverse: "novels")
                },
                EntityDescription("Gadget") {
                    AttributeDescription("small", .integer16)
                    AttributeDescription("medium", .integer32)
                    AttributeDescription("large", .integer64)
                    AttributeDescription("count", .integer64)
                    AttributeDescription("ratio", .double)
                    AttributeDescription("weight", .float)
                    AttributeDescription("price", .decimal)
                    AttributeDescription("enabled", .boolean)
                    AttributeDescription("label", .string)
                    AttributeDescription("made", .date)
                    AttributeDescription("blob", .binary)
                    AttributeDescription("serial", .uuid)
                    AttributeDescription("site", .uri)
                    AttributeDescription("note", .string)
                    AttributeDescription("level", .integer16)
                    AttributeDescription("share", .float)
                },
                EntityDescription("Misfit") {
                    AttributeDescription("code", .integer32)
                    AttributeDescription("tiny", .integer64)
                    RelationshipDescription("owner", to: "Writer")
                    RelationshipDescription("others", to: "Writer", toMany: true)
                    RelationshipDescription("buddy", to: "Writer")
                },
            ])
        } catch {
            fatalError("the typed-property test model does not resolve: \(error)")
        }
    }()

    private func makeStack() throws -> (root: ManagedObjectContext, main: ManagedObjectContext) {
        MagicalRecord.register(Writer.self, Novel.self, Gadget.self, Misfit.self)
        let options = StoreOptions(durability: .none, fileSystem: MemoryFileSystem(tracksDurability: false))
        let store = try ObjectStore(path: "/typed.store", model: Self.model, options: options)
        return ObjectStack(store: store).makeContexts()
    }

    private func refusals(_ error: MagicalRecordError) -> [String] {
        guard case .validation(let failures) = error else { return [] }
        return failures.compactMap {
            if case .refusedAssignment(let property, _) = $0.reason { return property } else { return nil }
        }
    }

    // MARK: Attributes

    @Test func fieldsReadAndWriteTheirAttributes() throws {
        let (_, main) = try makeStack()
        let writer = try Writer.createEntity(in: main)
        writer.writerID = 1
        writer.name = "Yan"
        writer.born = 1970
        #expect(writer["name"] == .string("Yan"))
        #expect(writer["birthYear"] == .integer(1970))
        #expect(writer.name == "Yan" && writer.born == 1970 && writer.writerID == 1)
        writer.name = nil
        #expect(writer["name"] == .null)
        #expect(writer.name == nil)
        try main.saveToPersistentStore()
    }

    final class Shifter: ManagedObject {
        @Field var first: String?
        @Field("second") var other: Int64
    }

    /// The same class in two models that put its attributes at other positions, read in
    /// turn: each read finds the attribute where its object's own entity has it.
    @Test func fieldsReadTheirAttributeWhereverTheirEntityPutsIt() throws {
        MagicalRecord.register(Shifter.self)
        func context(_ model: ObjectModel) throws -> ManagedObjectContext {
            let options = StoreOptions(durability: .none, fileSystem: MemoryFileSystem(tracksDurability: false))
            return ObjectStack(store: try ObjectStore(path: "/shifter.store", model: model, options: options)).makeContexts().main
        }
        let inOrder = try context(ObjectModel(entities: [
            EntityDescription("Shifter") {
                AttributeDescription("first", .string)
                AttributeDescription("second", .integer64)
            },
        ]))
        let reversed = try context(ObjectModel(entities: [
            EntityDescription("Shifter") {
                AttributeDescription("padding", .string)
                AttributeDescription("second", .integer64)
                AttributeDescription("first", .string)
            },
        ]))
        let one = try Shifter.createEntity(in: inOrder)
        let two = try Shifter.createEntity(in: reversed)
        one.first = "one"
        one.other = 1
        two.first = "two"
        two.other = 2
        for _ in 0..<3 {
            #expect(one.first == "one" && two.first == "two")
            #expect(one.other == 1 && two.other == 2)
            #expect(two["padding"] == .null)
        }
    }

    @Test func everyConvertibleTypeRoundTripsThroughTheStore() throws {
        let (root, main) = try makeStack()
        let gadget = try Gadget.createEntity(in: main)
        let made = Date(timeIntervalSince1970: 1_700_000_000.25)
        let serial = UUID()
        gadget.small = -32768
        gadget.medium = 2_000_000_000
        gadget.large = Int64.max
        gadget.count = 42
        gadget.ratio = 0.1
        gadget.weight = 2.5
        gadget.price = Decimal(string: "12.34")!
        gadget.enabled = true
        gadget.label = "gloss"
        gadget.made = made
        gadget.blob = Data([1, 2, 3])
        gadget.serial = serial
        gadget.site = URL(string: "https://example.com/a")!
        try main.saveToPersistentStore()

        let fresh = ManagedObjectContext.context(withParent: root)
        let again = try gadget.inContext(fresh)
        #expect(again !== gadget)
        #expect(again.small == -32768 && again.medium == 2_000_000_000 && again.large == Int64.max && again.count == 42)
        #expect(again.ratio == 0.1 && again.weight == 2.5 && again.price == Decimal(string: "12.34")!)
        #expect(again.enabled && again.label == "gloss" && again.made == made)
        #expect(again.blob == Data([1, 2, 3]) && again.serial == serial && again.site == URL(string: "https://example.com/a")!)
        #expect(again.note == nil)
        #expect(again.finish == .gloss)
        again.finish = .matte
        #expect(again.label == "matte")
    }

    @Test func nonOptionalPropertiesReadTheirNilValueUntilSet() throws {
        let (_, main) = try makeStack()
        let gadget = try Gadget.createEntity(in: main)
        #expect(gadget.small == 0 && gadget.count == 0 && gadget.ratio == 0 && gadget.enabled == false)
        #expect(gadget.label == "" && gadget.blob.isEmpty && gadget.made == Date(timeIntervalSince1970: 0))
        #expect(gadget.site == URL(string: "about:blank")!)
        #expect(gadget.serial.uuidString == "00000000-0000-0000-0000-000000000000")
        #expect(gadget.finish == nil)
    }

    @Test func aValueTheAttributeCannotHoldFailsTheNextSaveUntilReplaced() throws {
        let (root, main) = try makeStack()
        let gadget = try Gadget.createEntity(in: main)
        gadget.level = 12
        gadget.level = 300_000
        gadget.share = 0.1
        #expect(gadget.level == 12, "a refused value leaves the attribute as it was")
        #expect(gadget.share == nil)

        let failed = Result { () throws(MagicalRecordError) in try main.save() }
        guard case .failure(let error) = failed else {
            Issue.record("a save with refused assignments succeeded")
            return
        }
        #expect(refusals(error) == ["level", "share"])
        #expect(error.description.contains("Integer 16"))
        #expect(try Gadget.countOfEntities(in: root) == 0)

        gadget.level = 30_000
        gadget.share = 0.5
        try main.saveToPersistentStore()
        #expect(try Gadget.findFirst(in: root)?.level == 30_000)
        #expect(try Gadget.findFirst(in: root)?.share == 0.5)
    }

    @Test func aRefusalInsideAFailedSavepointIsUndoneWithIt() throws {
        let (_, main) = try makeStack()
        let gadget = try Gadget.createEntity(in: main)
        let undone = Result { () throws(MagicalRecordError) in
            try main.withSavepoint { () throws(MagicalRecordError) in
                gadget.level = 1_000_000
                throw .invalidFetch("give up")
            }
        }
        #expect((try? undone.get()) == nil)
        try main.saveToPersistentStore()
    }

    // MARK: Relationships

    @Test func relationshipsReadAndWriteWithTheirInverses() throws {
        let (root, main) = try makeStack()
        let writer = try Writer.createEntity(in: main)
        writer.writerID = 1
        let first = try Novel.createEntity(in: main)
        first.title = "First"
        let second = try Novel.createEntity(in: main)
        second.title = "Second"

        first.writer = writer
        #expect(writer.novels.map(\.title) == ["First"])
        writer.novels.append(second)
        #expect(second.writer === writer)
        #expect(writer.novels.map(\.title) == ["First", "Second"])
        writer.novels = [second, first]
        #expect(writer.novels.map(\.title) == ["Second", "First"], "an ordered to-many keeps the order set")

        let mentor = try Writer.createEntity(in: main)
        mentor.writerID = 2
        writer.mentor = mentor
        #expect(writer.mentor === mentor)
        try main.saveToPersistentStore()

        let saved = try #require(try Writer.findFirst(byAttribute: "writerID", withValue: 1, in: root))
        #expect(saved.novels.map(\.title) == ["Second", "First"])
        #expect(saved.mentor?.writerID == 2)
        #expect(saved.novels.allSatisfy { $0.writer === saved })

        first.writer = nil
        #expect(writer.novels.map(\.title) == ["Second"])
        try main.saveToPersistentStore()
        #expect(saved.novels.map(\.title) == ["Second"])
    }

    @Test func aTargetFromAnotherContextIsRefusedAtSave() throws {
        let (root, main) = try makeStack()
        let writer = try Writer.createEntity(in: main)
        writer.writerID = 1
        try main.saveToPersistentStore()
        let novel = try Novel.createEntity(in: main)
        novel.title = "Stray"
        novel.writer = try writer.inContext(root)
        #expect(novel.writer == nil)
        let failed = Result { () throws(MagicalRecordError) in try main.save() }
        guard case .failure(let error) = failed else {
            Issue.record("a save with a refused relationship succeeded")
            return
        }
        #expect(refusals(error) == ["author"], "refusals name the model property")
        novel.writer = writer
        try main.saveToPersistentStore()
    }

    // MARK: Classes

    @Test func aClassThatDoesNotFitItsEntityIsRefusedWithEveryProblem() throws {
        let (_, main) = try makeStack()
        let made = Result { () throws(MagicalRecordError) in try Misfit.createEntity(in: main) }
        guard case .failure(.invalidClass(let type, let entity, let problems)) = made else {
            Issue.record("Misfit was accepted: \(made)")
            return
        }
        #expect(type.hasSuffix("Misfit") && entity == "Misfit")
        #expect(problems == [
            "Misfit has no attribute missing",
            "Misfit.code is Integer 32, which Optional<String> cannot hold",
            "Misfit.tiny is Integer 64, which Int16 cannot hold",
            "Misfit.owner is to-one: declare it @ToOne",
            "Misfit.others is to-many: declare it @ToMany",
            "Misfit.buddy holds Writer, which is not a Novel",
        ])
    }

    @Test func aRefusedClassStaysRefusedAfterASoundOneIsChecked() throws {
        let (_, main) = try makeStack()
        for _ in 0..<2 {
            _ = try Writer.createEntity(in: main)
            let made = Result { () throws(MagicalRecordError) in try Misfit.createEntity(in: main) }
            guard case .failure(.invalidClass) = made else {
                Issue.record("Misfit was accepted: \(made)")
                return
            }
        }
    }

    /// A class of this suite's own entity, registered part way through one test.
    final class Latecomer: ManagedObject {
        @Field var name: String?
    }

    @Test func aClassRegisteredLaterIsWhatAContextMakesFromThen() throws {
        let model = try ObjectModel(entities: [EntityDescription("Latecomer") { AttributeDescription("name", .string) }])
        let options = StoreOptions(durability: .none, fileSystem: MemoryFileSystem(tracksDurability: false))
        let store = try ObjectStore(path: "/latecomer.store", model: model, options: options)
        let (_, main) = ObjectStack(store: store).makeContexts()
        let before = try main.insertObject(entityName: "Latecomer")
        #expect(!(before is Latecomer))
        MagicalRecord.register(Latecomer.self)
        #expect(try main.insertObject(entityName: "Latecomer") is Latecomer)
    }

    @Test func registeredClassesAreWhatContextsMake() throws {
        let (root, main) = try makeStack()
        let writer = try Writer.createEntity(in: main)
        writer.writerID = 5
        try main.saveToPersistentStore()
        let loaded = try root.existingObject(with: writer.objectID)
        #expect(loaded is Writer)
        let fetched = try root.fetch(FetchRequest(entityName: "Writer"))
        #expect(fetched.allSatisfy { $0 is Writer })
    }

    @Test func inContextFindsTheSameObjectElsewhere() throws {
        let (root, main) = try makeStack()
        let writer = try Writer.createEntity(in: main)
        writer.writerID = 3
        #expect(try writer.inContext(main) === writer)
        let unsaved = Result { () throws(MagicalRecordError) in try writer.inContext(root) }
        guard case .failure(.objectNotFound(let id)) = unsaved else {
            Issue.record("an unsaved object was found in the parent: \(unsaved)")
            return
        }
        #expect(id == writer.objectID)

        try main.saveToPersistentStore()
        let child = ManagedObjectContext.context(withParent: main)
        let inChild = try writer.inContext(child)
        #expect(inChild.objectID == writer.objectID && inChild.writerID == 3)
        inChild.name = "Child's"
        #expect(writer.name == nil, "each context has its own instance")
        try child.save()
        #expect(writer.name == "Child's")
    }
}

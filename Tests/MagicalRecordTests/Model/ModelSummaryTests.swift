import Foundation
import Testing
@testable import MagicalRecord

/// The text rendering `mrstore model` prints (Spec/MODEL.md, section 5).
@Suite struct ModelSummaryTests {
    @Test func aModelReadsEntityByEntity() throws {
        let model = try ObjectModel(entities: ModelFingerprintTests.base, versionName: "V3")
        #expect(model.summary == """
            model V3, version hash cee20a24feca2217f7f922833524a67d, 4 entities

            entity Thing, abstract
              key none
              fetches Person, Manager
              attribute createdAt: Date, optional

            entity Department
              key code
              user info: relatedByAttribute = code
              attribute code: String, required, indexed
              attribute budget: Decimal, optional, default 0
              relationship people: to-many to Person, inverse department, optional, delete Deny

            entity Person, parent Thing
              key personID
              fetches Person, Manager
              attribute createdAt: Date, optional, from Thing
              attribute personID: Integer 64, required, indexed
              attribute lastName: String, optional, indexed, user info: mappedKeyName = last_name
              attribute age: Integer 16, optional, default 0
              relationship department: to-one to Department, inverse people, optional, delete Nullify

            entity Manager, parent Person
              key none
              attribute createdAt: Date, optional, from Thing
              attribute personID: Integer 64, required, from Person
              attribute lastName: String, optional, indexed, user info: mappedKeyName = last_name, from Person
              attribute age: Integer 16, optional, default 0, from Person
              relationship department: to-one to Department, inverse people, optional, delete Nullify, from Person
              relationship reports: ordered to-many to Person, inverse none, optional, delete Nullify

            """)
    }

    @Test func defaultsCountsRenamesAndClassNamesAreShown() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                "Item",
                attributes: [
                    AttributeDescription("when", .date, default: .date(Date(timeIntervalSinceReferenceDate: 0.5))),
                    AttributeDescription("blob", .binary, default: .data(Data([1, 2, 3]))),
                    AttributeDescription("label", .string, default: .string("say \"hi\""), renamingIdentifier: "title"),
                    AttributeDescription("done", .boolean, default: .bool(false)),
                ],
                relationships: [RelationshipDescription("parts", to: "Item", toMany: true, deleteRule: .cascade, minCount: 1, maxCount: 5, renamingIdentifier: "pieces")],
                userInfo: ["b": "2", "a": "1"],
                renamingIdentifier: "Thing",
                className: "ItemObject"
            ),
        ])
        #expect(model.summary.components(separatedBy: "\n").dropFirst(2).joined(separator: "\n") == """
            entity Item, class ItemObject, renaming identifier Thing
              key none
              user info: a = 1; b = 2
              attribute when: Date, optional, default 2001-01-01T00:00:00.5Z
              attribute blob: Binary, optional, default 3 bytes
              attribute label: String, optional, default "say \\"hi\\"", renaming identifier title
              attribute done: Boolean, optional, default NO
              relationship parts: to-many to Item, inverse none, optional, delete Cascade, count 1...5, renaming identifier pieces

            """)
        #expect(model.summary.hasPrefix("model (unnamed), version hash \(model.versionHash), 1 entity\n\n"))
    }

    @Test func warningsComeFirst() throws {
        let model = try ObjectModel(contentsOf: ModelFixtures.magicalRecordTestModel)
        let lines = model.summary.components(separatedBy: "\n")
        #expect(lines[0] == "model TestModel, version hash \(model.versionHash), 12 entities")
        #expect(lines[1].hasPrefix("warning: entity MappedEntity: relatedByAttribute names \"mapped\""))
        #expect(lines.contains("  attribute notInJsonAttribute: String, optional, default \"Set From Core Data Model Editor\""))
    }
}

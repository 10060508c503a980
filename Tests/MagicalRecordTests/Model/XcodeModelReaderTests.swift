import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// Reading Xcode's `.xcdatamodeld`/`.xcdatamodel` files (Spec/MODEL.md, section 1).
@Suite struct XcodeModelReaderTests {
    static let testModel = try! ObjectModel(contentsOf: ModelFixtures.magicalRecordTestModel)

    // MARK: MagicalRecord's TestModel

    @Test func theTestModelIsOneVersionNamedAfterItsFolder() throws {
        let versions = try ModelVersions(contentsOf: ModelFixtures.magicalRecordTestModel)
        #expect(versions.all.count == 1)
        #expect(versions.current.versionName == "TestModel")
        #expect(versions.current.declarations == Self.testModel.declarations)
    }

    @Test func theTestModelHasEveryEntityInFileOrder() {
        #expect(Self.testModel.entities.map(\.name) == [
            "AbstractRelatedEntity", "ConcreteRelatedEntity", "EntityWithDifferentClassName",
            "EntityWithoutEntityNameMethodWithASuffix", "MappedEntity",
            "SingleEntityRelatedToManyMappedEntitiesUsingMappedPrimaryKey",
            "SingleEntityRelatedToMappedEntityUsingDefaults", "SingleEntityRelatedToMappedEntityUsingMappedPrimaryKey",
            "SingleEntityRelatedToMappedEntityWithNestedMappedAttributes",
            "SingleEntityRelatedToMappedEntityWithSecondaryMappings", "SingleEntityWithNoRelationships", "SingleRelatedEntity",
        ])
        #expect(Self.testModel.entity(named: "EntityWithDifferentClassName")?.declaration.className == "DifferentClassNameMapping")
        #expect(Self.testModel.entity(named: "EntityWithoutEntityNameMethodWithASuffix")?.declaration.className == "EntityWithoutEntityNameMethod")
        #expect(Self.testModel.entity(named: "MappedEntity")?.declaration.className == "MappedEntity")
    }

    @Test func everyAttributeOfSingleEntityWithNoRelationshipsHasItsTypeAndDefault() throws {
        let entity = try Self.testModel.requireEntity("SingleEntityWithNoRelationships")
        let expected: [(String, AttributeType, AttributeValue)] = [
            ("booleanAsStringTestAttribute", .boolean, .null),
            ("booleanTestAttribute", .boolean, .null),
            ("colorTestAttribute", .transformable, .null),
            ("dateTestAttribute", .date, .null),
            ("dateWithCustomFormat", .date, .null),
            ("decimalTestAttribute", .decimal, .decimal(0)),
            ("doubleTestAttribute", .double, .double(0)),
            ("floatTestAttribute", .float, .float(0)),
            ("int16TestAttribute", .integer16, .integer(0)),
            ("int32TestAttribute", .integer32, .integer(0)),
            ("int64TestAttribute", .integer64, .integer(0)),
            ("mappedStringAttribute", .string, .null),
            ("notInJsonAttribute", .string, .string("Set From Core Data Model Editor")),
            ("nullTestAttribute", .integer64, .integer(100)),
            ("numberAsStringTestAttribute", .string, .null),
            ("stringTestAttribute", .string, .null),
            ("unixTime13TestAttribute", .date, .null),
            ("unixTimeTestAttribute", .date, .null),
        ]
        #expect(entity.attributes.map(\.name) == expected.map(\.0))
        for (name, type, defaultValue) in expected {
            let attribute = try #require(entity.attribute(named: name))
            #expect(attribute.type == type, "\(name)")
            #expect(attribute.defaultValue == defaultValue, "\(name)")
            #expect(attribute.isOptional, "\(name)")
            #expect(!attribute.isIndexed, "\(name)")
        }
        #expect(entity.relationships.isEmpty)
        #expect(entity.keyAttribute == nil)
    }

    @Test func aRequiredBooleanDefaultsToYES() throws {
        let attribute = try #require(Self.testModel.entity(named: "SingleEntityRelatedToMappedEntityWithSecondaryMappings")?.attribute(named: "notImportedAttribute"))
        #expect(attribute.type == .boolean)
        #expect(!attribute.isOptional)
        #expect(attribute.defaultValue == .bool(true))
    }

    @Test func userInfoIsReadForEntitiesAttributesAndRelationships() throws {
        let single = try Self.testModel.requireEntity("SingleEntityWithNoRelationships")
        #expect(single.attribute(named: "dateWithCustomFormat")?.userInfo == [UserInfoKey.dateFormat: "M/d/yyyy H-mm-ss"])
        #expect(single.attribute(named: "unixTime13TestAttribute")?.userInfo == [UserInfoKey.dateFormat: "UnixTime"])
        #expect(single.attribute(named: "colorTestAttribute")?.userInfo == [UserInfoKey.attributeValueClassName: "*Color"])
        #expect(single.attribute(named: "mappedStringAttribute")?.userInfo == [UserInfoKey.mappedKeyName: "mappedAttributeWithStringValue"])

        let secondary = try Self.testModel.requireEntity("SingleEntityRelatedToMappedEntityWithSecondaryMappings")
        #expect(secondary.attribute(named: "secondaryMappedAttribute")?.userInfo == [
            "mappedKeyName": "no_in_use", "mappedKeyName.1": "getting_warmer", "mappedKeyName.2": "actualMappedKey",
        ])
        #expect(secondary.relationship(named: "mappedRelationship")?.userInfo == [
            "mappedKeyName": "not_in_use", "mappedKeyName.1": "almost_there", "mappedKeyName.2": "actualRelatedObject",
        ])

        let mapped = try Self.testModel.requireEntity("MappedEntity")
        #expect(mapped.userInfo == [UserInfoKey.relatedByAttribute: "mapped"])
        #expect(mapped.attribute(named: "testMappedEntityID")?.userInfo == [UserInfoKey.mappedKeyName: "id"])
        #expect(mapped.attribute(named: "nestedAttribute")?.userInfo == [UserInfoKey.mappedKeyName: "attributeValue.nestedValue"])
        #expect(mapped.attribute(named: "mappedEntityID")?.type == .integer16)
        #expect(mapped.attribute(named: "testMappedEntityID")?.type == .integer64)
    }

    @Test func relationshipsKeepDestinationRuleCountsAndUserInfo() throws {
        let owner = try Self.testModel.requireEntity("SingleEntityRelatedToManyMappedEntitiesUsingMappedPrimaryKey")
        #expect(owner.keyAttribute == "testPrimaryKey")
        let toMany = try #require(owner.relationship(named: "mappedEntities"))
        #expect(toMany == RelationshipDescription(
            "mappedEntities", to: "MappedEntity", toMany: true, deleteRule: .cascade,
            userInfo: [UserInfoKey.relatedByAttribute: "testMappedEntityID"]
        ))

        let toOne = try #require(Self.testModel.entity(named: "SingleEntityRelatedToMappedEntityUsingMappedPrimaryKey")?.relationship(named: "mappedEntity"))
        #expect(toOne == RelationshipDescription(
            "mappedEntity", to: "MappedEntity", deleteRule: .cascade, minCount: 1, maxCount: 1,
            userInfo: [UserInfoKey.mappedKeyName: "someRandomAttributeName", UserInfoKey.relatedByAttribute: "testMappedEntityID"]
        ))

        let related = try Self.testModel.requireEntity("SingleRelatedEntity")
        #expect(related.relationships.map(\.name) == [
            "testAbstractToManyRelationship", "testAbstractToOneRelationship",
            "testConcreteToManyRelationship", "testConcreteToOneRelationship",
        ])
        #expect(related.relationships.map(\.destination) == [
            "AbstractRelatedEntity", "AbstractRelatedEntity", "ConcreteRelatedEntity", "ConcreteRelatedEntity",
        ])
        #expect(related.relationships.map(\.isToMany) == [true, false, true, false])
        #expect(related.relationships.allSatisfy { $0.inverse == nil && $0.isOptional && $0.deleteRule == .cascade })
    }

    @Test func inheritanceGivesTheConcreteEntityItsParentsAttribute() throws {
        let abstract = try Self.testModel.requireEntity("AbstractRelatedEntity")
        let concrete = try Self.testModel.requireEntity("ConcreteRelatedEntity")
        #expect(abstract.isAbstract)
        #expect(!concrete.isAbstract)
        #expect(concrete.parent == "AbstractRelatedEntity")
        #expect(concrete.ancestors == ["AbstractRelatedEntity"])
        #expect(concrete.attributes.map(\.name) == ["sampleBaseAttribute", "sampleConcreteAttribute"])
        #expect(abstract.concreteEntities == ["ConcreteRelatedEntity"])
        #expect(concrete.concreteEntities == ["ConcreteRelatedEntity"])
    }

    @Test func conventionalKeysAreFound() throws {
        #expect(Self.testModel.entity(named: "SingleEntityRelatedToMappedEntityUsingDefaults")?.keyAttribute
            == "singleEntityRelatedToMappedEntityUsingDefaultsID")
        #expect(Self.testModel.entity(named: "SingleRelatedEntity")?.keyAttribute == nil)
    }

    /// MappedEntity's `relatedByAttribute` is `mapped`, which it does not have: the model
    /// loads, with a warning that its objects have no key.
    @Test func aKeyNamingNoAttributeLoadsWithAWarning() throws {
        #expect(Self.testModel.warnings == [
            "entity MappedEntity: relatedByAttribute names \"mapped\", which is not one of its attributes; its objects have no key, so imports always insert them",
        ])
        #expect(Self.testModel.entity(named: "MappedEntity")?.keyAttribute == nil)
    }

    @Test func aSingleVersionFolderReadsTheSameAsItsBundle() throws {
        let folder = ModelFixtures.magicalRecordTestModel.appendingPathComponent("TestModel.xcdatamodel")
        let versions = try ModelVersions(contentsOf: folder)
        #expect(versions.current.versionName == "TestModel")
        #expect(versions.current.declarations == Self.testModel.declarations)
    }

    // MARK: Our versioned fixture

    @Test func theVersionedModelHasBothVersionsAndV2IsCurrent() throws {
        let versions = try ModelVersions(contentsOf: ModelFixtures.versioned)
        #expect(versions.all.map(\.versionName) == ["V1", "V2"])
        #expect(versions.currentIndex == 1)
        #expect(versions.current.versionName == "V2")
        #expect(versions.version(named: "V1")?.entities.map(\.name) == ["Named", "Author", "Book"])
        #expect(try ObjectModel(contentsOf: ModelFixtures.versioned).declarations == versions.current.declarations)
    }

    @Test func versionOneReadsIndexedAttributesAndAnOrderedToManyWithItsInverse() throws {
        let v1 = try #require(try ModelVersions(contentsOf: ModelFixtures.versioned).version(named: "V1"))
        let named = try v1.requireEntity("Named")
        #expect(named.isAbstract)
        #expect(named.attribute(named: "name")?.isIndexed == true)
        #expect(named.concreteEntities == ["Author", "Book"])
        let author = try v1.requireEntity("Author")
        #expect(author.attributes.map(\.name) == ["name", "authorID", "born"])
        #expect(author.attribute(named: "authorID") == AttributeDescription("authorID", .integer64, optional: false, default: .integer(0)))
        #expect(author.keyAttribute == "authorID")
        #expect(author.relationship(named: "books") == RelationshipDescription(
            "books", to: "Book", inverse: "author", toMany: true, ordered: true, deleteRule: .cascade
        ))
        #expect(try v1.requireEntity("Book").relationship(named: "author") == RelationshipDescription(
            "author", to: "Author", inverse: "books", maxCount: 1
        ))
    }

    @Test func versionTwoReadsFetchIndexesRenamesAndEveryDeleteRule() throws {
        let v2 = try ModelVersions(contentsOf: ModelFixtures.versioned).current
        #expect(v2.entities.map(\.name) == ["Named", "Author", "Work", "Tag", "Defaults"])
        let named = try v2.requireEntity("Named")
        #expect(named.attribute(named: "name")?.isIndexed == true, "a one-attribute fetch index")
        #expect(named.userInfo == ["note": "the base of everything with a name"])

        let author = try v2.requireEntity("Author")
        #expect(author.declaration.attributes == [
            AttributeDescription("authorID", .integer64, optional: false, default: .integer(0), indexed: true, userInfo: ["mappedKeyName": "id"]),
            AttributeDescription("birthDate", .date, renamingIdentifier: "born"),
        ])
        #expect(author.keyAttribute == "authorID")
        #expect(author.relationships.map(\.name) == ["books"], "the fetched property is not a relationship")
        #expect(author.relationship(named: "books") == RelationshipDescription(
            "books", to: "Work", inverse: "author", toMany: true, ordered: true, deleteRule: .cascade, minCount: 1, maxCount: 100
        ))

        let work = try v2.requireEntity("Work")
        #expect(work.declaration.renamingIdentifier == "Book")
        #expect(work.attribute(named: "workID")?.renamingIdentifier == "bookID")
        #expect(work.keyAttribute == "workID")
        #expect(work.relationship(named: "tags") == RelationshipDescription(
            "tags", to: "Tag", inverse: "works", toMany: true, deleteRule: .deny, userInfo: ["relatedByAttribute": "label"]
        ))
        #expect(try v2.requireEntity("Tag").relationship(named: "works")?.deleteRule == .noAction)
        #expect(try v2.requireEntity("Tag").attribute(named: "label")?.defaultValue == .string(""))
    }

    /// M4.
    @Test func versionTwoReadsADefaultOfEveryType() throws {
        let defaults = try ModelVersions(contentsOf: ModelFixtures.versioned).current.requireEntity("Defaults")
        let expected: [String: AttributeValue] = [
            "binaryValue": .null,
            "booleanValue": .bool(true),
            "dateValue": .date(Date(timeIntervalSinceReferenceDate: 333_000_000.5)),
            "decimalValue": .decimal(Decimal(string: "1.2")!),
            "doubleValue": .double(124.3),
            "floatValue": .float(1e10),
            "int16Value": .integer(-7),
            "int32Value": .integer(70000),
            "int64Value": .integer(10_158_365_420_975_381),
            "stringValue": .string("héllo & <world>"),
            "transformableValue": .null,
            "uriValue": .uri(URL(string: "https://example.com/a?b=c&d=e")!),
            "uuidValue": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
        ]
        #expect(Set(defaults.attributes.map(\.type)) == Set(AttributeType.allCases))
        for attribute in defaults.attributes {
            #expect(attribute.defaultValue == expected[attribute.name], "\(attribute.name)")
        }
    }

    /// M1, M2.
    @Test func versionsAreOrderedByNameWithNumbersComparedAsNumbers() throws {
        try ModelFixtures.withScratchFolder { folder in
            let entity = ModelFixtures.contents(#"<entity name="Thing"/>"#)
            try ModelFixtures.write([
                "M.xcdatamodeld/M 10.xcdatamodel/contents": entity,
                "M.xcdatamodeld/M 2.xcdatamodel/contents": entity,
                "M.xcdatamodeld/M.xcdatamodel/contents": entity,
                "M.xcdatamodeld/.xccurrentversion": Self.currentVersionPlist("M 2"),
            ], in: folder)
            let versions = try ModelVersions(contentsOf: folder.appendingPathComponent("M.xcdatamodeld"))
            #expect(versions.all.map(\.versionName) == ["M", "M 2", "M 10"])
            #expect(versions.current.versionName == "M 2")
        }
    }

    @Test func aLoneVersionNeedsNoCurrentVersionFile() throws {
        try ModelFixtures.withScratchFolder { folder in
            try ModelFixtures.write(["Solo.xcdatamodeld/Only.xcdatamodel/contents": ModelFixtures.contents("")], in: folder)
            let versions = try ModelVersions(contentsOf: folder.appendingPathComponent("Solo.xcdatamodeld"))
            #expect(versions.current.versionName == "Only")
            #expect(versions.current.entities.isEmpty)
        }
    }

    // MARK: What the reader reads and skips

    /// M6.
    @Test func unknownElementsAndEverythingInsideThemAreSkipped() throws {
        let entities = try Self.entities("""
            <entity name="A">
                <attribute name="x" optional="YES" attributeType="String" someFutureFlag="YES">
                    <futureElement><userInfo><entry key="lost" value="1"/></userInfo></futureElement>
                </attribute>
                <compoundIndexes><compoundIndex><index value="x"/></compoundIndex></compoundIndexes>
                <fetchedProperty name="f" optional="YES"><fetchRequest name="r" entity="A"/></fetchedProperty>
            </entity>
            <fetchRequest name="All" entity="A"/>
            <configuration name="C"><memberEntity name="A"/></configuration>
            <entity name="B"/>
            """)
        #expect(entities == [EntityDescription("A", attributes: [AttributeDescription("x", .string)]), EntityDescription("B")])
    }

    /// M5.
    @Test func onlyOneAttributeFetchIndexesOnTheEntitysOwnAttributesMarkThemIndexed() throws {
        let entities = try Self.entities("""
            <entity name="Base" isAbstract="YES"><attribute name="inherited" optional="YES" attributeType="String"/></entity>
            <entity name="Child" parentEntity="Base">
                <attribute name="single" optional="YES" attributeType="String"/>
                <attribute name="pairA" optional="YES" attributeType="String"/>
                <attribute name="pairB" optional="YES" attributeType="String"/>
                <fetchIndex name="bySingle"><fetchIndexElement property="single" type="Binary" order="ascending"/></fetchIndex>
                <fetchIndex name="byPair">
                    <fetchIndexElement property="pairA" type="Binary" order="ascending"/>
                    <fetchIndexElement property="pairB" type="Binary" order="ascending"/>
                </fetchIndex>
                <fetchIndex name="byInherited"><fetchIndexElement property="inherited" type="Binary" order="ascending"/></fetchIndex>
                <fetchIndex name="byExpression"><fetchIndexElement expression="length:(pairA)" expressionType="Integer 64" type="Binary" order="ascending"/></fetchIndex>
            </entity>
            """)
        #expect(entities[0].attributes.map(\.isIndexed) == [false])
        #expect(entities[1].attributes.map(\.isIndexed) == [true, false, false])
    }

    @Test func emptyRenamingIdentifiersAndClassNamesReadAsNone() throws {
        let entities = try Self.entities("""
            <entity name="A" representedClassName="" renamingIdentifier="">
                <attribute name="x" optional="YES" attributeType="String" renamingIdentifier=""/>
                <relationship name="r" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="A" inverseName="" renamingIdentifier=""/>
            </entity>
            """)
        #expect(entities == [EntityDescription("A", attributes: [AttributeDescription("x", .string)], relationships: [RelationshipDescription("r", to: "A", maxCount: 1)])])
    }

    // MARK: Damaged files

    /// M7: each damaged `contents` and the exact reason given for it.
    static let damagedContents: [(String, String)] = [
        ("<model>\n<entity name=\"A\">\n</model>", "line 3: malformed XML (parser error 76: an end tag does not match its start tag)"),
        ("<model>\n<entity name=\"A\n/>", "line 3: malformed XML (parser error 40: an attribute value is not closed)"),
        ("<model/>\ntrailing", "line 2: malformed XML (parser error 5: the document does not end where its root element does)"),
        ("not XML at all", "line 1: malformed XML (parser error 4: the document is empty)"),
        ("", "no <model> element: this is not a Core Data model"),
        ("<plist version=\"1.0\"/>", "line 1: the root element is <plist>, not <model>: this is not a Core Data model"),
        ("<model><entity/></model>", "line 1: an <entity> has no name"),
        ("<model><entity name=\"A\" isAbstract=\"maybe\"/></model>", "line 1: entity A has isAbstract=\"maybe\", not YES or NO"),
        ("<model><entity name=\"A\">\n<attribute attributeType=\"String\"/></entity></model>", "line 2: an <attribute> of entity A has no name"),
        ("<model><entity name=\"A\"><attribute name=\"x\"/></entity></model>", "line 1: attribute A.x has no attributeType"),
        ("<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"Integer 128\"/></entity></model>",
         "line 1: attribute A.x has attributeType \"Integer 128\", which is not one of Integer 16, Integer 32, Integer 64, Double, Float, Decimal, Boolean, String, Date, Binary, UUID, URI, Transformable"),
        ("<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"String\" optional=\"yes\"/></entity></model>",
         "line 1: attribute A.x has optional=\"yes\", not YES or NO"),
        ("<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"Integer 16\" defaultValueString=\"70000\"/></entity></model>",
         "line 1: attribute A.x: defaultValueString \"70000\" is not a valid Integer 16 default"),
        ("<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"Integer 32\" defaultValueString=\"1.5\"/></entity></model>",
         "line 1: attribute A.x: defaultValueString \"1.5\" is not a valid Integer 32 default"),
        ("<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"Double\" defaultValueString=\"abc\"/></entity></model>",
         "line 1: attribute A.x: defaultValueString \"abc\" is not a valid Double default"),
        ("<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"Float\" defaultValueString=\"\"/></entity></model>",
         "line 1: attribute A.x: defaultValueString \"\" is not a valid Float default"),
        ("<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"Decimal\" defaultValueString=\"1.2.3\"/></entity></model>",
         "line 1: attribute A.x: defaultValueString \"1.2.3\" is not a valid Decimal default"),
        ("<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"Boolean\" defaultValueString=\"TRUE\"/></entity></model>",
         "line 1: attribute A.x: defaultValueString \"TRUE\" is not a valid Boolean default"),
        ("<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"Date\" defaultDateTimeInterval=\"yesterday\"/></entity></model>",
         "line 1: attribute A.x: defaultDateTimeInterval \"yesterday\" is not a valid Date default"),
        ("<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"Date\" defaultValueString=\"inf\"/></entity></model>",
         "line 1: attribute A.x: defaultValueString \"inf\" is not a valid Date default"),
        ("<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"UUID\" defaultValueString=\"not-a-uuid\"/></entity></model>",
         "line 1: attribute A.x: defaultValueString \"not-a-uuid\" is not a valid UUID default"),
        ("<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"Binary\" defaultValueString=\"AAAA\"/></entity></model>",
         "line 1: attribute A.x: defaultValueString \"AAAA\" is not a valid Binary default"),
        ("<model><entity name=\"A\"><relationship name=\"r\"/></entity></model>", "line 1: relationship A.r has no destinationEntity"),
        ("<model><entity name=\"A\"><relationship destinationEntity=\"A\"/></entity></model>", "line 1: a <relationship> of entity A has no name"),
        ("<model><entity name=\"A\"><relationship name=\"r\" destinationEntity=\"A\" deletionRule=\"Explode\"/></entity></model>",
         "line 1: relationship A.r has deletionRule \"Explode\", which is not one of Nullify, Cascade, Deny, No Action"),
        ("<model><entity name=\"A\"><relationship name=\"r\" destinationEntity=\"A\" minCount=\"-1\"/></entity></model>",
         "line 1: relationship A.r has minCount=\"-1\", not a count"),
        ("<model><entity name=\"A\"><relationship name=\"r\" destinationEntity=\"A\" toMany=\"1\"/></entity></model>",
         "line 1: relationship A.r has toMany=\"1\", not YES or NO"),
        ("<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"String\"><userInfo><entry value=\"v\"/></userInfo></attribute></entity></model>",
         "line 1: a userInfo <entry> of attribute A.x has no key"),
        ("<!DOCTYPE model [<!ENTITY secret SYSTEM \"file:///etc/hostname\">]>\n<model><entity name=\"&secret;\"/></model>",
         "it holds a document type declaration (<!DOCTYPE), which model files do not have"),
    ]

    @Test(arguments: damagedContents)
    func aDamagedContentsFileGivesAPreciseError(contents: String, reason: String) {
        #expect(throws: ModelError.unreadable(source: "contents", reason: reason)) {
            try XcodeContentsParser.entities(from: Data(contents.utf8), source: "contents")
        }
    }

    @Test func aModelThatReadsButDoesNotResolveGivesTheResolversError() throws {
        try ModelFixtures.withScratchFolder { folder in
            try ModelFixtures.write(["Bad.xcdatamodel/contents": ModelFixtures.contents("""
                <entity name="A"><relationship name="r" optional="YES" maxCount="1" destinationEntity="Missing"/></entity>
                """)], in: folder)
            #expect(throws: ModelError.unknownDestination(entity: "A", relationship: "r", destination: "Missing")) {
                try ModelVersions(contentsOf: folder.appendingPathComponent("Bad.xcdatamodel"))
            }
        }
    }

    @Test func damagedFoldersGiveAPreciseError() throws {
        try ModelFixtures.withScratchFolder { folder in
            let entity = ModelFixtures.contents(#"<entity name="Thing"/>"#)
            try ModelFixtures.write([
                "Two.xcdatamodeld/A.xcdatamodel/contents": entity,
                "Two.xcdatamodeld/B.xcdatamodel/contents": entity,
                "Empty.xcdatamodeld/README": "no versions here",
                "NotPlist.xcdatamodeld/A.xcdatamodel/contents": entity,
                "NotPlist.xcdatamodeld/.xccurrentversion": "{ this is not a plist",
                "NoKey.xcdatamodeld/A.xcdatamodel/contents": entity,
                "NoKey.xcdatamodeld/.xccurrentversion": Self.plist("<key>other</key><string>A.xcdatamodel</string>"),
                "Elsewhere.xcdatamodeld/A.xcdatamodel/contents": entity,
                "Elsewhere.xcdatamodeld/.xccurrentversion": Self.currentVersionPlist("V9"),
                "NoContents.xcdatamodeld/A.xcdatamodel/README": "contents went missing",
                "Broken.xcdatamodeld/A.xcdatamodel/contents": "<model>\n<entity name=\"A\">",
                "model.txt": "a text file",
            ], in: folder)
            func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
            let cases: [(String, ModelError)] = [
                ("Missing.xcdatamodeld", .unreadable(source: path("Missing.xcdatamodeld"), reason: "no such folder")),
                ("Missing.xcdatamodel", .unreadable(source: path("Missing.xcdatamodel"), reason: "no such model version folder")),
                ("Missing.json", .unreadable(source: path("Missing.json"), reason: "no such file")),
                ("model.txt", .unreadable(source: path("model.txt"), reason: "not a model file: expected a .xcdatamodeld, .xcdatamodel or .json")),
                ("Two.xcdatamodeld", .unreadable(source: path("Two.xcdatamodeld"), reason: "2 versions and no .xccurrentversion saying which is current")),
                ("Empty.xcdatamodeld", .unreadable(source: path("Empty.xcdatamodeld"), reason: "the folder holds no .xcdatamodel version")),
                ("NotPlist.xcdatamodeld", .unreadable(source: path("NotPlist.xcdatamodeld/.xccurrentversion"), reason: "not a property list dictionary")),
                ("NoKey.xcdatamodeld", .unreadable(source: path("NoKey.xcdatamodeld/.xccurrentversion"), reason: "no _XCCurrentVersionName string naming the current version")),
                ("Elsewhere.xcdatamodeld", .unreadable(source: path("Elsewhere.xcdatamodeld/.xccurrentversion"), reason: "names V9.xcdatamodel, which Elsewhere.xcdatamodeld does not hold")),
                ("NoContents.xcdatamodeld", .unreadable(source: path("NoContents.xcdatamodeld/A.xcdatamodel/contents"), reason: "no such file")),
                ("Broken.xcdatamodeld", .unreadable(source: path("Broken.xcdatamodeld/A.xcdatamodel/contents"), reason: "line 2: malformed XML (parser error 5: the document does not end where its root element does)")),
            ]
            for (name, error) in cases {
                #expect(throws: error, "\(name)") { try ModelVersions(contentsOf: folder.appendingPathComponent(name)) }
            }
        }
    }

    /// Truncated and byte-flipped copies of the real test model: each reads or fails with
    /// a `ModelError`, never a crash.
    @Test func randomlyDamagedModelsNeverCrash() throws {
        let contents = try Data(contentsOf: ModelFixtures.magicalRecordTestModel.appendingPathComponent("TestModel.xcdatamodel/contents"))
        var random = SplitMix64(seed: 0x6d6f_6465_6c73)
        var outcomes: [Bool: Int] = [:]
        for round in 0..<300 {
            var damaged = [UInt8](contents)
            if round % 3 == 0 {
                damaged.removeLast(Int.random(in: 1..<damaged.count, using: &random))
            } else {
                for _ in 0..<(1 + round % 4) {
                    damaged[Int.random(in: 0..<damaged.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
            }
            do {
                _ = try ObjectModel(entities: XcodeContentsParser.entities(from: Data(damaged), source: "damaged"))
                outcomes[true, default: 0] += 1
            } catch {
                outcomes[false, default: 0] += 1
            }
        }
        #expect(outcomes[false, default: 0] > 100, "most damage is noticed")
    }

    // MARK: Helpers

    private static func entities(_ body: String) throws -> [EntityDescription] {
        try XcodeContentsParser.entities(from: Data(ModelFixtures.contents(body).utf8), source: "contents")
    }

    static func plist(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0"><dict>\(body)</dict></plist>
        """
    }

    static func currentVersionPlist(_ version: String) -> String {
        plist("<key>_XCCurrentVersionName</key><string>\(version).xcdatamodel</string>")
    }
}

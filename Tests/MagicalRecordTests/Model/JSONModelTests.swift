import Foundation
import Testing
@testable import MagicalRecord

/// The JSON model description (Spec/MODEL.md, section 2).
@Suite struct JSONModelTests {
    // MARK: Round trips

    @Test func theFixturesRoundTrip() throws {
        for url in [ModelFixtures.magicalRecordTestModel, ModelFixtures.versioned] {
            let versions = try ModelVersions(contentsOf: url)
            let json = JSONModelDescription(versions).encoded()
            let read = try JSONModelDescription(data: json)
            #expect(read.versions == versions, "\(url.lastPathComponent)")
            #expect(read.versions.current.versionName == versions.current.versionName)
            #expect(read.encoded() == json, "M17: equal descriptions give equal bytes")
            #expect(read.versions.current.warnings == versions.current.warnings)
        }
    }

    /// M17: the bytes do not depend on how the model was built, only on what it is.
    @Test func encodingIsDeterministic() throws {
        let versions = try ModelVersions(contentsOf: ModelFixtures.versioned)
        let rebuilt = try ModelVersions(
            versions.all.map { try ObjectModel(entities: $0.declarations, versionName: $0.versionName) },
            current: "V2"
        )
        #expect(JSONModelDescription(rebuilt).encoded() == JSONModelDescription(versions).encoded())
        #expect(JSONModelDescription(rebuilt).encoded(prettyPrinted: true) == JSONModelDescription(versions).encoded(prettyPrinted: true))
    }

    @Test(arguments: 0..<150)
    func randomModelsRoundTrip(seed: UInt64) throws {
        var random = RandomModels(seed: seed)
        let model = random.model(versionName: random.chance(0.5) ? "v\(seed)" : nil)
        let slots = Dictionary(uniqueKeysWithValues: model.entities.enumerated().map { ($1.name, $0 + 1) }
            + model.entities.flatMap { entity in entity.attributes.enumerated().map { ("\(entity.name).\($1.name)", $0 + 1) } })
        let description = JSONModelDescription(model, slots: slots)
        let json = description.encoded()
        let read = try JSONModelDescription(data: json)
        #expect(read == description, "seed \(seed)")
        #expect(read.versions.current.declarations == model.declarations, "seed \(seed)")
        #expect(read.currentSlots == slots)
        #expect(read.encoded() == json, "seed \(seed)")
        #expect(read.versions.current.versionHash == model.versionHash)
        #expect(try JSONModelDescription(data: description.encoded(prettyPrinted: true)) == description)
    }

    @Test(arguments: 0..<20)
    func randomVersionFamiliesRoundTripWithSlotsPerVersion(seed: UInt64) throws {
        var random = RandomModels(seed: 1000 + seed)
        let models = (1...3).map { random.model(versionName: "Model \($0)") }
        let versions = try ModelVersions(models, current: "Model \(seed % 3 + 1)")
        let description = JSONModelDescription(versions, slots: [["A": 1], [:], ["A": 1, "A.x": 2]])
        let read = try JSONModelDescription(data: description.encoded())
        #expect(read == description)
        #expect(read.versions.currentIndex == Int(seed % 3))
        #expect(read.slots == [["A": 1], [:], ["A": 1, "A.x": 2]])
    }

    @Test func slotsArePaddedOrTrimmedToOneMapPerVersion() throws {
        let versions = try ModelVersions(contentsOf: ModelFixtures.versioned)
        #expect(JSONModelDescription(versions).slots == [[:], [:]])
        #expect(JSONModelDescription(versions, slots: [["X": 1], ["Y": 2], ["Z": 3]]).slots == [["X": 1], ["Y": 2]])
        #expect(JSONModelDescription(versions, slots: [["X": 1]]).currentSlots == [:])
    }

    @Test func aJSONFileReadsThroughModelVersions() throws {
        let versions = try ModelVersions(contentsOf: ModelFixtures.versioned)
        try ModelFixtures.withScratchFolder { folder in
            let file = folder.appendingPathComponent("model.json")
            try JSONModelDescription(versions).encoded(prettyPrinted: true).write(to: file)
            #expect(try ModelVersions(contentsOf: file) == versions)
            #expect(try ObjectModel(contentsOf: file).declarations == versions.current.declarations)
        }
    }

    // MARK: The format

    /// Spec/MODEL.md's example, as written there.
    static let specExample = """
        {
          "format": "MagicalRecord model",
          "formatVersion": 1,
          "current": "V2",
          "versions": [
            {
              "name": "V1",
              "entities": [
                { "name": "Person", "attributes": [ { "name": "name", "type": "String" } ] }
              ]
            },
            {
              "name": "V2",
              "entities": [
                {
                  "name": "Person",
                  "userInfo": { "relatedByAttribute": "personID" },
                  "attributes": [
                    { "name": "personID", "type": "Integer 64", "optional": false, "indexed": true },
                    { "name": "fullName", "type": "String", "renamingIdentifier": "name" },
                    { "name": "born", "type": "Date", "default": "1970-01-01T00:00:00Z" },
                    { "name": "balance", "type": "Decimal", "default": "0.10" }
                  ],
                  "relationships": [
                    { "name": "pets", "destination": "Pet", "inverse": "owner", "toMany": true,
                      "ordered": true, "deleteRule": "Cascade" }
                  ]
                },
                {
                  "name": "Pet",
                  "attributes": [ { "name": "photo", "type": "Binary", "default": "iVBORw0KGgo=" } ],
                  "relationships": [ { "name": "owner", "destination": "Person", "inverse": "pets" } ]
                }
              ],
              "slots": { "Person": 1, "Person.personID": 1, "Person.fullName": 2, "Person.born": 3,
                         "Person.balance": 4, "Pet": 2, "Pet.photo": 1, "Pet.owner": 2 }
            }
          ]
        }
        """

    @Test func theSpecExampleReadsWithItsDefaults() throws {
        let read = try JSONModelDescription(data: Data(Self.specExample.utf8))
        #expect(read.versions.all.map(\.versionName) == ["V1", "V2"])
        let v2 = read.versions.current
        #expect(v2.versionName == "V2")
        #expect(v2.declarations == [
            EntityDescription("Person", relatedBy: "personID") {
                AttributeDescription("personID", .integer64, optional: false, indexed: true)
                AttributeDescription("fullName", .string, renamingIdentifier: "name")
                AttributeDescription("born", .date, default: .date(Date(timeIntervalSince1970: 0)))
                AttributeDescription("balance", .decimal, default: .decimal(Decimal(string: "0.1")!))
                RelationshipDescription("pets", to: "Pet", inverse: "owner", toMany: true, ordered: true, deleteRule: .cascade)
            },
            EntityDescription("Pet") {
                AttributeDescription("photo", .binary, default: .data(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])))
                RelationshipDescription("owner", to: "Person", inverse: "pets")
            },
        ])
        #expect(read.currentSlots["Pet.owner"] == 2)
        #expect(read.slots[0].isEmpty)
    }

    /// M8-M13, M17: the members written, flags always, nil and empty things never.
    @Test func whatIsWritten() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                "A",
                attributes: [AttributeDescription("x", .string)],
                relationships: [RelationshipDescription("r", to: "A")],
                className: "AClass"
            ),
        ])
        let json = String(decoding: JSONModelDescription(model).encoded(), as: UTF8.self)
        #expect(json == """
            {"current":null,"format":"MagicalRecord model","formatVersion":1,"versions":[{"entities":[{"abstract":false,\
            "attributes":[{"indexed":false,"name":"x","optional":true,"type":"String"}],"className":"AClass","name":"A",\
            "relationships":[{"deleteRule":"Nullify","destination":"A","maxCount":0,"minCount":0,"name":"r","optional":true,\
            "ordered":false,"toMany":false}]}]}]}
            """.replacingOccurrences(of: "\"current\":null,", with: ""))
    }

    /// M12: each type's default in the JSON type it calls for.
    @Test func defaultsAreTyped() throws {
        let values: [(AttributeType, AttributeValue, String)] = [
            (.integer16, .integer(-7), "-7"),
            (.integer64, .integer(10_158_365_420_975_381), "10158365420975381"),
            (.integer64, .integer(.min), "-9223372036854775808"),
            (.double, .double(124.3), "124.3"),
            (.double, .double(.infinity), "\"inf\""),
            (.double, .double(-.infinity), "\"-inf\""),
            (.float, .float(0.1), "0.1"),
            (.float, .float(-.infinity), "\"-inf\""),
            (.decimal, .decimal(Decimal(string: "12345678901234567890.123456789")!), "\"12345678901234567890.123456789\""),
            (.boolean, .bool(true), "true"),
            (.string, .string("a \"quoted\" / slash"), #""a \"quoted\" / slash""#),
            (.date, .date(Date(timeIntervalSinceReferenceDate: 333_000_000.5)), "\"2011-07-22T04:00:00.5Z\""),
            (.date, .date(Date(timeIntervalSinceReferenceDate: -0.25)), "\"2000-12-31T23:59:59.75Z\""),
            (.date, .date(Date(timeIntervalSinceReferenceDate: 1e20)), "1e+20"),
            (.date, .date(Date(timeIntervalSinceReferenceDate: -.infinity)), "\"-inf\""),
            (.binary, .data(Data([1, 2, 3])), "\"AQID\""),
            (.transformable, .data(Data()), "\"\""),
            (.uuid, .uuid(UUID(uuidString: "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")!), "\"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\""),
            (.uri, .uri(URL(string: "https://example.com/a?b=c")!), "\"https://example.com/a?b=c\""),
        ]
        for (type, value, expected) in values {
            let model = try ObjectModel(entities: [EntityDescription("A") { AttributeDescription("x", type, default: value) }])
            let json = String(decoding: JSONModelDescription(model).encoded(), as: UTF8.self)
            #expect(json.contains("{\"default\":\(expected),\"indexed\""), "\(type) \(value): \(json)")
            let read = try JSONModelDescription(data: Data(json.utf8)).versions.current
            #expect(read.declarations[0].attributes[0].defaultValue == value, "\(type) \(value)")
        }
    }

    @Test func notANumberRoundTrips() throws {
        let model = try ObjectModel(entities: [EntityDescription("A") {
            AttributeDescription("d", .double, default: .double(.nan))
            AttributeDescription("f", .float, default: .float(.nan))
            AttributeDescription("t", .date, default: .date(Date(timeIntervalSinceReferenceDate: .nan)))
            AttributeDescription("m", .decimal, default: .decimal(.nan))
        }])
        let read = try JSONModelDescription(data: JSONModelDescription(model).encoded()).versions.current
        let defaults = read.declarations[0].attributes.map(\.defaultValue)
        guard case .double(let double) = defaults[0], case .float(let float) = defaults[1], case .date(let date) = defaults[2],
              case .decimal(let decimal) = defaults[3]
        else {
            Issue.record("wrong types: \(defaults)")
            return
        }
        #expect(double.isNaN && float.isNaN && date.timeIntervalSinceReferenceDate.isNaN && decimal.isNaN)
    }

    // MARK: Damaged descriptions

    static let damaged: [(String, String)] = [
        ("{", "not valid JSON"),
        ("[]", "the document: expected an object"),
        (#"{"format": "MagicalRecord model", "formatVersion": 1.5, "versions": []}"#,
         "a number does not fit its member (a fraction or too large where a whole number belongs)"),
        (#"{"formatVersion": 1, "versions": []}"#, "format: missing"),
        (#"{"format": "Something else", "formatVersion": 1, "versions": []}"#, "format is \"Something else\", not \"MagicalRecord model\""),
        (#"{"format": "MagicalRecord model", "formatVersion": 2, "versions": []}"#, "written in format version 2; this library reads up to 1"),
        (#"{"format": "MagicalRecord model", "formatVersion": 1, "versions": []}"#, "there are no model versions"),
        (document(#"{"name": "A", "attributes": [{"name": "x"}]}"#), "versions[0].entities[0].attributes[0].type: missing"),
        (document(#"{"name": "A", "attributes": [{"name": "x", "type": "Integer 128"}]}"#),
         "versions[0].entities[0].attributes[0].type: \"Integer 128\" is not one of Integer 16, Integer 32, Integer 64, Double, Float, Decimal, Boolean, String, Date, Binary, UUID, URI, Transformable"),
        (document(#"{"name": "A", "attributes": [{"name": "x", "type": "Integer 16", "default": "7"}]}"#),
         "versions[0].entities[0].attributes[0].default: expected an integer"),
        (document(#"{"name": "A", "attributes": [{"name": "x", "type": "Integer 64", "default": 1.5}]}"#),
         "versions[0].entities[0].attributes[0].default: not a whole number that fits in 64 bits"),
        (document(#"{"name": "A", "attributes": [{"name": "x", "type": "Integer 64", "default": 9223372036854775808}]}"#),
         "versions[0].entities[0].attributes[0].default: not a whole number that fits in 64 bits"),
        (document(#"{"name": "A", "attributes": [{"name": "x", "type": "Double", "default": "many"}]}"#),
         "versions[0].entities[0].attributes[0].default: not a Double, \"nan\", \"inf\" or \"-inf\""),
        (document(#"{"name": "A", "attributes": [{"name": "x", "type": "Decimal", "default": 1.2}]}"#),
         "versions[0].entities[0].attributes[0].default: expected a string"),
        (document(#"{"name": "A", "attributes": [{"name": "x", "type": "Decimal", "default": "1,2"}]}"#),
         "versions[0].entities[0].attributes[0].default: \"1,2\" is not a decimal number"),
        (document(#"{"name": "A", "attributes": [{"name": "x", "type": "Boolean", "default": "YES"}]}"#),
         "versions[0].entities[0].attributes[0].default: expected true or false"),
        (document(#"{"name": "A", "attributes": [{"name": "x", "type": "Date", "default": "2011-07-22 04:00:00"}]}"#),
         "versions[0].entities[0].attributes[0].default: \"2011-07-22 04:00:00\" is not an ISO 8601 date (YYYY-MM-DDTHH:MM:SS[.fraction]Z)"),
        (document(#"{"name": "A", "attributes": [{"name": "x", "type": "Binary", "default": "*not base64*"}]}"#),
         "versions[0].entities[0].attributes[0].default: \"*not base64*\" is not base64"),
        (document(#"{"name": "A", "attributes": [{"name": "x", "type": "UUID", "default": "E621E1F8"}]}"#),
         "versions[0].entities[0].attributes[0].default: \"E621E1F8\" is not a UUID"),
        (document(#"{"name": "A", "attributes": [{"name": "x", "type": "String", "optional": "yes"}]}"#),
         "versions[0].entities[0].attributes[0].optional: expected true or false"),
        (document(#"{"name": "A", "relationships": [{"name": "r"}]}"#), "versions[0].entities[0].relationships[0].destination: missing"),
        (document(#"{"name": "A", "relationships": [{"name": "r", "destination": "A", "deleteRule": "Explode"}]}"#),
         "versions[0].entities[0].relationships[0].deleteRule: Cannot initialize DeleteRule from invalid String value Explode"),
        (document(#"{"name": "A"}"#, slots: #"{"A": -1}"#), "versions[0].slots: A has a negative number, -1"),
        (document(#"{"name": "A"}"#, slots: #"{"A": "one"}"#), "versions[0].slots.A: expected an integer"),
        // Readers keep a table as long as the largest number.
        (document(#"{"name": "A"}"#, slots: #"{"A": 1, "A.x": 4294967296}"#), "versions[0].slots: A.x has a number past 16777215, 4294967296"),
        // Two entities or two properties of one entity under one number: a record could not
        // say whose value it holds.
        (document(#"{"name": "A"}, {"name": "B"}"#, slots: #"{"A": 1, "B": 1}"#), "versions[0].slots: A and B have the same number, 1"),
        (document(#"{"name": "A"}"#, slots: #"{"A": 1, "A.x": 2, "A.r": 2}"#), "versions[0].slots: A.r and A.x have the same number, 2"),
        (document(#"{"name": "A"}"#, slots: ##"{"A": 1, "#1": 1}"##), "versions[0].slots: #1 and A have the same number, 1"),
        (document(#"{"name": "A"}"#, current: "\"V9\""), "the current version, V9, is not one of the versions (V1)"),
        (#"{"format": "MagicalRecord model", "formatVersion": 1, "current": "V", "versions": [{"name": "V", "entities": []}, {"name": "V", "entities": []}]}"#,
         "two model versions are named V"),
        (#"{"format": "MagicalRecord model", "formatVersion": 1, "current": "V", "versions": [{"name": "V", "entities": []}, {"entities": []}]}"#,
         "one of 2 model versions has no name"),
        (#"{"format": "MagicalRecord model", "formatVersion": 1, "versions": [{"name": "V", "entities": []}, {"name": "W", "entities": []}]}"#,
         "the current version, (unnamed), is not one of the versions (V, W)"),
    ]

    @Test(arguments: damaged)
    func aDamagedDescriptionGivesAPreciseError(json: String, reason: String) {
        do {
            _ = try JSONModelDescription(data: Data(json.utf8), source: "model.json")
            Issue.record("read: \(json)")
        } catch {
            guard case .unreadable(let source, let actual) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(source == "model.json")
            // Invalid JSON's detail is Foundation's own wording; the rest is ours, exactly.
            #expect(reason == "not valid JSON" ? actual.hasPrefix(reason + " (") : actual == reason, "\(actual)")
        }
    }

    @Test func aDescriptionThatIsNotAModelGivesTheResolversError() {
        let json = Self.document(#"{"name": "A", "relationships": [{"name": "r", "destination": "B"}]}"#)
        #expect(throws: ModelError.unknownDestination(entity: "A", relationship: "r", destination: "B")) {
            try JSONModelDescription(data: Data(json.utf8))
        }
        let outOfRange = Self.document(#"{"name": "A", "attributes": [{"name": "x", "type": "Integer 16", "default": 40000}]}"#)
        #expect(throws: ModelError.defaultValueMismatch(entity: "A", attribute: "x", type: .integer16)) {
            try JSONModelDescription(data: Data(outOfRange.utf8))
        }
    }

    /// M15.
    @Test func unknownMembersAreIgnored() throws {
        let json = Self.document(#"{"name": "A", "comment": "for people", "attributes": [{"name": "x", "type": "String", "since": 2}]}"#)
        #expect(try JSONModelDescription(data: Data(json.utf8)).versions.current.declarations == [
            EntityDescription("A") { AttributeDescription("x", .string) },
        ])
    }

    private static func document(_ entity: String, slots: String? = nil, current: String = "\"V1\"") -> String {
        """
        {"format": "MagicalRecord model", "formatVersion": 1, "current": \(current),
         "versions": [{"name": "V1", "entities": [\(entity)]\(slots.map { ", \"slots\": \($0)" } ?? "")}]}
        """
    }
}

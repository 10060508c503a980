import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// Sort strings (`"lastName:NO,firstName"`) and how fetches order by sort keys: nil first
/// ascending, strings by UTF-8 bytes, key paths through to-one relationships, ties in
/// object-id order.
@Suite struct SortKeyTests {
    // MARK: Parsing

    @Test(arguments: [
        ("lastName:NO,firstName", true, [SortKey("lastName", ascending: false), SortKey("firstName", ascending: true)]),
        ("lastName:NO,firstName", false, [SortKey("lastName", ascending: false), SortKey("firstName", ascending: false)]),
        ("lastName:YES,firstName", false, [SortKey("lastName", ascending: true), SortKey("firstName", ascending: false)]),
        ("a:NO,b,c:YES,d", true, [SortKey("a", ascending: false), SortKey("b"), SortKey("c"), SortKey("d")]),
        ("a:YES,b,c:NO,d", false, [SortKey("a"), SortKey("b", ascending: false), SortKey("c", ascending: false), SortKey("d", ascending: false)]),
        ("age", false, [SortKey("age", ascending: false)]),
        ("department.name:NO", true, [SortKey("department.name", ascending: false)]),
        (" lastName : no ,  firstName ", true, [SortKey("lastName", ascending: false), SortKey("firstName")]),
        ("", true, []),
        ("   ", false, []),
    ])
    func eachKeyTakesItsOwnSuffixElseTheDefault(sortString: String, ascending: Bool, expected: [SortKey]) throws {
        #expect(try SortKey.parse(sortString, ascending: ascending) == expected)
    }

    @Test func everySpellingOfADirectionIsAccepted() throws {
        let keys = try SortKey.parse("a:yes,b:No,c:ASC,d:desc,e:True,f:FALSE,g:1,h:0", ascending: false)
        #expect(keys.map(\.ascending) == [true, false, true, false, true, false, true, false])
        #expect(keys.map(\.keyPath) == ["a", "b", "c", "d", "e", "f", "g", "h"])
    }

    @Test(arguments: ["a,,b", "a,", ",a", ":NO", "a:", "a:maybe", "a:NO:YES", " , ", "a:NO YES"])
    func aBadSortStringIsATypedError(sortString: String) {
        let error = fetchFailure { () throws(MagicalRecordError) in try SortKey.parse(sortString) }
        guard case .invalidFetch(let reason)? = error else {
            Issue.record("\"\(sortString)\" should be refused as an invalid fetch, got \(String(describing: error))")
            return
        }
        #expect(reason.contains(sortString))
    }

    /// Descriptions joined with commas parse back to the same keys, whatever the default
    /// direction and however the suffixes are spelt and spaced.
    @Test func sortStringsRoundTripThroughDescriptions() throws {
        var random = SplitMix64(seed: 0x50_27)
        let names = ["age", "lastName", "department.name", "a", "x_1", "born"]
        let yes = ["YES", "yes", "ASC", "true", "1"]
        let no = ["NO", "no", "DESC", "False", "0"]
        for _ in 0..<(200 * testScale) {
            let keys = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                SortKey(names.randomElement(using: &random)!, ascending: Bool.random(using: &random))
            }
            #expect(try SortKey.parse(keys.map(\.description).joined(separator: ",")) == keys)

            let fallback = Bool.random(using: &random)
            var expected: [SortKey] = []
            var items: [String] = []
            for key in keys {
                let space = Bool.random(using: &random) ? " " : ""
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    items.append(space + key.keyPath + space)
                    expected.append(SortKey(key.keyPath, ascending: fallback))
                default:
                    let suffix = (key.ascending ? yes : no).randomElement(using: &random)!
                    items.append(space + key.keyPath + space + ":" + space + suffix)
                    expected.append(key)
                }
            }
            let sortString = items.joined(separator: ",")
            #expect(try SortKey.parse(sortString, ascending: fallback) == expected, "\(sortString)")
        }
    }

    // MARK: Sorting fetches

    @Test func nilSortsFirstAscendingAndLastDescendingAndStringsByTheirBytes() throws {
        let stack = try FetchStack()
        let company = try Company(in: stack.main)
        try stack.main.saveToPersistentStore()
        let byLastName = [company.nobody, company.grace, company.ada, company.alan, company.yan, company.zoe].map(\.objectID)
        #expect(try stack.main.fetchedIDs(fetchRequest("Employee", sortedBy: "lastName")) == byLastName)
        #expect(try stack.main.fetchedIDs(fetchRequest("Employee", sortedBy: "lastName:NO")) == byLastName.reversed())
    }

    @Test func tiesComeInObjectIDOrderWhateverTheDirection() throws {
        let stack = try FetchStack()
        let company = try Company(in: stack.main)
        try stack.main.saveToPersistentStore()
        #expect(try stack.main.fetchedIDs(fetchRequest("Employee", sortedBy: "age"))
            == [company.nobody, company.yan, company.ada, company.alan, company.zoe, company.grace].map(\.objectID))
        #expect(try stack.main.fetchedIDs(fetchRequest("Employee", sortedBy: "age:NO"))
            == [company.grace, company.alan, company.zoe, company.ada, company.yan, company.nobody].map(\.objectID))
        #expect(try stack.main.fetchedIDs(fetchRequest("Employee", sortedBy: "age:NO,firstName:NO"))
            == [company.grace, company.zoe, company.alan, company.ada, company.yan, company.nobody].map(\.objectID))
        #expect(try stack.main.fetchedIDs(fetchRequest("Employee")) == company.employees.map(\.objectID))
    }

    @Test func aSortKeyFollowsToOneRelationships() throws {
        let stack = try FetchStack()
        let company = try Company(in: stack.main)
        try stack.main.saveToPersistentStore()
        #expect(try stack.main.fetchedIDs(fetchRequest("Employee", sortedBy: "department.name,lastName:NO"))
            == [company.nobody, company.alan, company.ada, company.grace, company.zoe, company.yan].map(\.objectID))
        #expect(try stack.main.fetchedIDs(fetchRequest("Employee", sortedBy: "department.budget:NO,age"))
            == [company.ada, company.alan, company.grace, company.yan, company.zoe, company.nobody].map(\.objectID))
    }

    @Test(arguments: [("Employee", "shoeSize"), ("Employee", "department"), ("Employee", "department.nickname"), ("Department", "employees.lastName"), ("Employee", "lastName.count")])
    func aSortKeyThatIsNoAttributeIsATypedError(entity: String, sortString: String) throws {
        let stack = try FetchStack()
        _ = try Company(in: stack.main)
        let request = try fetchRequest(entity, sortedBy: sortString)
        let error = fetchFailure { () throws(MagicalRecordError) in try stack.main.fetch(request) }
        guard case .invalidFetch(let reason)? = error else {
            Issue.record("sorting \(entity) by \(sortString) should be an invalid fetch, got \(String(describing: error))")
            return
        }
        #expect(reason.contains(sortString))
    }
}

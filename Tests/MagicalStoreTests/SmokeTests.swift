import Testing
@testable import MagicalStore

@Test func smoke() throws {
    let directory = TemporaryDirectory()
    let path = directory.file()
    do {
        let store = try Store(path: path)
        try store.write { txn in
            let tree = try txn.createTree("people")
            for i in 0..<10_000 { try tree.put(numberKey(i), Array("value \(i)".utf8)) }
        }
        try store.read { snapshot in
            let tree = try snapshot.tree("people")
            #expect(tree.count == 10_000)
            #expect(try tree.get(numberKey(42)) == Array("value 42".utf8))
        }
        try store.close()
    }
    let store = try Store(path: path)
    let tree = try store.read().tree("people")
    #expect(tree.count == 10_000)
    var seen = 0
    try tree.scan { key, _ in
        #expect(key == numberKey(seen))
        seen += 1
        return true
    }
    #expect(seen == 10_000)
}

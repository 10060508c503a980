import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads the `contents` XML of one `.xcdatamodel` into entity declarations.
///
/// Reads the elements that describe what a store keeps: `entity`, its `attribute`,
/// `relationship`, `userInfo` and single-attribute `fetchIndex` elements. Everything else
/// (`elements`, `fetchRequest`, `configuration`, `fetchedProperty`, `uniquenessConstraints`,
/// whatever a newer Xcode adds), with everything inside it, is skipped (Spec/MODEL.md,
/// M3-M7).
final class XcodeContentsParser: NSObject, XMLParserDelegate {
    private let source: String
    private var entities: [EntityDescription] = []
    /// The elements being read, outermost first; skipped elements are not pushed.
    private var open: [String] = []
    /// How deep inside a skipped element the parser is (0: not skipping).
    private var skipDepth = 0
    private var entity: EntityDescription?
    private var attribute: AttributeDescription?
    private var relationship: RelationshipDescription?
    /// Attributes named by the current entity's single-property fetch indexes.
    private var fetchIndexed: Set<String> = []
    private var fetchIndexProperties: [String] = []
    private var failure: ModelError?
    private var sawModel = false

    private init(source: String) {
        self.source = source
    }

    /// The entities of a `contents` file, in file order. `source` names it in errors.
    static func entities(from data: Data, source: String) throws(ModelError) -> [EntityDescription] {
        if let problem = XMLScreening.problem(in: data) { throw .unreadable(source: source, reason: problem) }
        let reader = XcodeContentsParser(source: source)
        let parser = XMLParser(data: data)
        parser.delegate = reader
        parser.shouldResolveExternalEntities = false
        _ = parser.parse()
        // libxml2 may report an error and still return true, so the delegate's record of
        // the first failure is what counts.
        if let failure = reader.failure { throw failure }
        guard reader.open.isEmpty, reader.sawModel else {
            throw .unreadable(source: source, reason: "no <model> element: this is not a Core Data model")
        }
        return reader.entities
    }

    func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        guard failure == nil else { return }
        guard skipDepth == 0 else { return skipDepth += 1 }
        let values = XMLAttributes(attributes, line: parser.lineNumber)
        do throws(XMLReadFailure) {
            switch (open.last, element) {
            case (nil, "model"):
                sawModel = true
            case (nil, _):
                throw values.failure("the root element is <\(element)>, not <model>: this is not a Core Data model")
            case ("model", "entity"):
                entity = try readEntity(values)
                fetchIndexed = []
            case ("entity", "attribute"):
                attribute = try readAttribute(values, entity: entity!.name)
            case ("entity", "relationship"):
                relationship = try readRelationship(values, entity: entity!.name)
            case ("entity", "fetchIndex"):
                fetchIndexProperties = []
            case ("fetchIndex", "fetchIndexElement"):
                if let property = attributes["property"] { fetchIndexProperties.append(property) }
            case ("entity", "userInfo"), ("attribute", "userInfo"), ("relationship", "userInfo"):
                break
            case ("userInfo", "entry"):
                try addUserInfo(values)
            default:
                return skipDepth = 1
            }
            open.append(element)
        } catch {
            failure = .unreadable(source: source, reason: "line \(error.line): \(error.reason)")
            parser.abortParsing()
        }
    }

    func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
        guard failure == nil, !open.isEmpty else { return }
        guard skipDepth == 0 else { return skipDepth -= 1 }
        open.removeLast()
        switch element {
        case "attribute":
            entity!.attributes.append(attribute!)
            attribute = nil
        case "relationship":
            entity!.relationships.append(relationship!)
            relationship = nil
        case "fetchIndex" where fetchIndexProperties.count == 1:
            fetchIndexed.insert(fetchIndexProperties[0])
        case "entity":
            // A fetch index on an inherited attribute or a relationship has nothing here to
            // mark; the parent's own declaration decides whether it is indexed.
            for index in entity!.attributes.indices where fetchIndexed.contains(entity!.attributes[index].name) {
                entity!.attributes[index].isIndexed = true
            }
            entities.append(entity!)
            entity = nil
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        guard failure == nil else { return }
        let code = (parseError as NSError).code
        let detail = Self.libxmlErrors[code].map { ": \($0)" } ?? ""
        failure = .unreadable(source: source, reason: "line \(parser.lineNumber): malformed XML (parser error \(code)\(detail))")
        parser.abortParsing()
    }

    /// libxml2's codes (Foundation's XML parser on Linux) for the damage seen most often.
    private static let libxmlErrors = [
        4: "the document is empty",
        5: "the document does not end where its root element does",
        40: "an attribute value is not closed",
        76: "an end tag does not match its start tag",
    ]

    // MARK: Elements

    private func readEntity(_ values: XMLAttributes) throws(XMLReadFailure) -> EntityDescription {
        let name = try values.required("name", of: "an <entity>")
        return EntityDescription(
            name,
            parent: values.nonEmpty("parentEntity"),
            abstract: try values.flag("isAbstract", of: "entity \(name)"),
            renamingIdentifier: values.nonEmpty("renamingIdentifier"),
            className: values.nonEmpty("representedClassName")
        )
    }

    private func readAttribute(_ values: XMLAttributes, entity: String) throws(XMLReadFailure) -> AttributeDescription {
        let name = try values.required("name", of: "an <attribute> of entity \(entity)")
        let owner = "attribute \(entity).\(name)"
        let typeName = try values.required("attributeType", of: owner)
        guard let type = AttributeType(rawValue: typeName) else {
            throw values.failure("\(owner) has attributeType \"\(typeName)\", which is not one of \(AttributeType.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        var defaultValue = AttributeValue.null
        for key in ["defaultValueString", "defaultDateTimeInterval"] {
            guard let text = values[key] else { continue }
            guard let value = XcodeDefaultValue.parse(text, as: type) else {
                throw values.failure("\(owner): \(key) \"\(text)\" is not a valid \(type.rawValue) default")
            }
            defaultValue = value
        }
        return AttributeDescription(
            name,
            type,
            optional: try values.flag("optional", of: owner),
            default: defaultValue,
            indexed: try values.flag("indexed", of: owner),
            renamingIdentifier: values.nonEmpty("renamingIdentifier")
        )
    }

    private func readRelationship(_ values: XMLAttributes, entity: String) throws(XMLReadFailure) -> RelationshipDescription {
        let name = try values.required("name", of: "a <relationship> of entity \(entity)")
        let owner = "relationship \(entity).\(name)"
        let ruleName = values["deletionRule"] ?? DeleteRule.nullify.rawValue
        guard let rule = DeleteRule(rawValue: ruleName) else {
            throw values.failure("\(owner) has deletionRule \"\(ruleName)\", which is not one of \(DeleteRule.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return RelationshipDescription(
            name,
            to: try values.required("destinationEntity", of: owner),
            inverse: values.nonEmpty("inverseName"),
            toMany: try values.flag("toMany", of: owner),
            ordered: try values.flag("ordered", of: owner),
            optional: try values.flag("optional", of: owner),
            deleteRule: rule,
            minCount: try values.count("minCount", of: owner),
            maxCount: try values.count("maxCount", of: owner),
            renamingIdentifier: values.nonEmpty("renamingIdentifier")
        )
    }

    private func addUserInfo(_ values: XMLAttributes) throws(XMLReadFailure) {
        let owner = relationship.map { "relationship \(entity!.name).\($0.name)" }
            ?? attribute.map { "attribute \(entity!.name).\($0.name)" }
            ?? "entity \(entity!.name)"
        let key = try values.required("key", of: "a userInfo <entry> of \(owner)")
        let value = values["value"] ?? ""
        if relationship != nil {
            relationship!.userInfo[key] = value
        } else if attribute != nil {
            attribute!.userInfo[key] = value
        } else {
            entity!.userInfo[key] = value
        }
    }
}

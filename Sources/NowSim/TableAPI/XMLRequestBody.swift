import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reads the field values of an XML request body (`Content-Type: application/xml`).
///
/// Accepts `<request><entry><short_description>…</short_description></entry></request>` as in
/// ServiceNow's XML examples, and any root whose children are the fields (`<incident>…</incident>`);
/// an empty element clears its field.
final class XMLRequestBody: NSObject, XMLParserDelegate {
    private var path: [String] = []
    private var text = ""
    private var fields: [String: String?] = [:]
    private var depthOfFields: Int?
    private var failed = false

    /// Parses `bytes`; `nil` when they are not well-formed XML.
    static func fields(from bytes: [UInt8]) -> [String: String?]? {
        let reader = XMLRequestBody()
        let parser = XMLParser(data: Data(bytes))
        parser.delegate = reader
        guard parser.parse(), !reader.failed else { return nil }
        return reader.fields
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        path.append(elementName)
        text = ""
        // Fields sit one level below the root, or one below `<request><entry>`.
        if depthOfFields == nil {
            if path.count == 2 && path[0] == "request" && elementName == "entry" {
                depthOfFields = 3
            } else if path.count == 2 {
                depthOfFields = 2
            }
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        text += String(decoding: block, as: UTF8.self)
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
    ) {
        if path.count == depthOfFields {
            fields[elementName] = text.isEmpty ? .some(nil) : text
        }
        text = ""
        path.removeLast()
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        failed = true
    }
}

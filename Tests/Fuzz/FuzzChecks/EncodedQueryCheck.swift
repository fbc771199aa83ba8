import NowQuery

/// Encoded-query text: whatever the parser accepts prints as canonical text that parses back to the
/// same query and prints the same again (``EncodedQuery/description``'s promise); whatever it refuses
/// is an ``EncodedQueryError`` whose offset lies in the text.
enum EncodedQueryCheck {
    static func check(_ bytes: [UInt8]) -> FuzzFailure? {
        let text = String(decoding: bytes, as: UTF8.self)
        let query: EncodedQuery
        do {
            query = try EncodedQuery(parsing: text)
        } catch {
            guard (0...text.utf8.count).contains(error.offset) else {
                return FuzzFailure("error offset \(error.offset) outside the \(text.utf8.count) bytes: \(error)")
            }
            return nil
        }
        let printed = query.description
        let reparsed: EncodedQuery
        do {
            reparsed = try EncodedQuery(parsing: printed)
        } catch {
            return FuzzFailure("the printed query \(printed.debugDescription) does not parse: \(error)")
        }
        guard reparsed == query else {
            return FuzzFailure(
                "\(text.debugDescription) printed as \(printed.debugDescription) parses to another query: "
                    + "\(query) / \(reparsed)")
        }
        guard reparsed.description == printed else {
            return FuzzFailure(
                "canonical text is not stable: \(printed.debugDescription) → \(reparsed.description.debugDescription)")
        }
        return nil
    }
}

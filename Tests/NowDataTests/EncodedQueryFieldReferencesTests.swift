import NowData
import Testing

/// `EncodedQuery.fieldReferences(in:)`: every field name of a query with its byte offset.
@Suite(.timeLimit(.minutes(3))) struct EncodedQueryFieldReferencesTests {
    @Test func conditionsComparedFieldsSortsAndDotWalksWithTheirOffsets() throws {
        let text =
            "active=true^ORprioirty<=2^NQcaller_id.manager.nameSTARTSWITHA^opened_atGT_FIELDclosed_at"
            + "^ORDERBYDESCnumber^EQ"
        let references = try EncodedQuery.fieldReferences(in: text)
        #expect(
            references.map(\.field) == [
                "active", "prioirty", "caller_id.manager.name", "opened_at", "closed_at", "number",
            ])
        #expect(references.map(\.role) == [.condition, .condition, .condition, .condition, .comparedField, .sort])
        for reference in references {
            let bytes = Array(text.utf8)
            let name = Array(reference.field.utf8)
            #expect(Array(bytes[reference.utf8Offset..<(reference.utf8Offset + name.count)]) == name, "\(reference)")
        }
        #expect(references[1].utf8Offset == 14)
    }

    @Test func textSearchPseudoFieldsAndEmptySegmentsAreLeftOut() throws {
        let references = try EncodedQuery.fieldReferences(in: "^123TEXTQUERY321=network^^stateIN1,2^")
        #expect(references == [EncodedQuery.FieldReference(field: "state", utf8Offset: 26, role: .condition)])
        #expect(try EncodedQuery.fieldReferences(in: "").isEmpty)
    }

    @Test func aQueryThatDoesNotParseThrowsTheParsersError() {
        #expect(throws: EncodedQueryError.self) { try EncodedQuery.fieldReferences(in: "active=true^ORDERBY") }
    }
}

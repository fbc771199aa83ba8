import NowData
import Testing

@Test func sortDefaultsToAscending() {
    #expect(EncodedQuery.Sort(field: "number").descending == false)
}

import Testing

@testable import NowETL

/// ``AdaptivePageSize``: half the size after a page the instance gave up on, down to a floor, and back
/// up after healthy pages.
@Suite(.timeLimit(.minutes(1))) struct ExtractPageSizeTests {
    @Test func halvesDownToTheFloorAndGrowsBackAfterHealthyPages() {
        let sizes = AdaptivePageSize(maximum: 100)
        #expect(sizes.minimum == 6)
        #expect(sizes.reduce(after: 100) == 50)
        #expect(sizes.reduce(after: 50) == 25)
        #expect(sizes.reduce(after: 25) == 12)
        #expect(sizes.reduce(after: 12) == 6)
        #expect(sizes.reduce(after: 6) == nil, "at the floor the error stands")
        #expect(sizes.current == 6)
        #expect(sizes.reductions == 4)
        for _ in 0..<(AdaptivePageSize.healthyPagesToGrow - 1) { sizes.healthy() }
        #expect(sizes.current == 6)
        sizes.healthy()
        #expect(sizes.current == 12)
        for _ in 0..<(AdaptivePageSize.healthyPagesToGrow * 10) { sizes.healthy() }
        #expect(sizes.current == 100, "never above the configured size")
    }

    @Test func anotherTasksLowerSizeIsKept() {
        let sizes = AdaptivePageSize(maximum: 40)
        #expect(sizes.reduce(after: 40) == 20)
        #expect(sizes.reduce(after: 20) == 10)
        // A task that was still asking for 40 gets 20 for its retry, but the shared size stays at 10.
        #expect(sizes.reduce(after: 40) == 20)
        #expect(sizes.current == 10)
    }

    @Test func aPageSizeOfOneCannotShrink() {
        let sizes = AdaptivePageSize(maximum: 1)
        #expect(sizes.reduce(after: 1) == nil)
        #expect(sizes.reductions == 0)
    }
}

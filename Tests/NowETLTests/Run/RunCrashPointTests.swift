import Testing

@testable import NowETL

/// How `NOWETL_CRASH_AT` names a crash point (the kill itself is exercised by ``ChaosTests``, on the
/// real binary: here it would kill the test runner).
@Suite(.timeLimit(.minutes(1))) struct RunCrashPointTests {
    @Test(arguments: [
        ("commit-record", "commit-record", 1),
        ("commit-rename:2", "commit-rename", 2),
        ("spill-appended:17", "spill-appended", 17),
        ("commit-rename:0", "commit-rename:0", 1),
        ("commit-rename:x", "commit-rename:x", 1),
        (":3", ":3", 1),
    ])
    func parsesNameAndOccurrence(text: String, name: String, occurrence: Int) {
        let trigger = CrashPoint.Trigger(text)
        #expect(trigger?.name == name)
        #expect(trigger?.occurrence == occurrence)
    }

    @Test func unsetOrEmptyArmsNothing() {
        #expect(CrashPoint.Trigger(nil) == nil)
        #expect(CrashPoint.Trigger("") == nil)
    }

    /// Unset in the test process, so reaching a point does nothing.
    @Test func reachingAPointWithoutTheVariableDoesNothing() {
        for name in ["spill-appended", "table-prepared", "commit-record", "commit-rename", "commit-manifest"] {
            CrashPoint.reached(name)
        }
    }
}

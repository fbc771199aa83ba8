import Testing

@testable import NowETL

/// `nowetl` limits glibc's malloc arenas at start unless the environment already sets them.
@Suite(.timeLimit(.minutes(1))) struct MemoryPolicyTests {
    @Test func theEnvironmentsOwnSettingIsLeftAlone() {
        #expect(!MemoryPolicy.apply(environment: ["MALLOC_ARENA_MAX": "8"]))
        #expect(!MemoryPolicy.apply(environment: ["GLIBC_TUNABLES": "glibc.malloc.arena_max=4"]))
    }

    @Test func otherwiseTheLimitIsSet() {
        // mallopt(M_ARENA_MAX) succeeds in any glibc process, this one included (arenas already made
        // stay; the limit applies to new ones).
        #expect(MemoryPolicy.apply(environment: [:]))
        #expect(MemoryPolicy.apply(environment: ["GLIBC_TUNABLES": "glibc.malloc.check=0"]))
    }
}

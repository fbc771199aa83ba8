import CProcess
import Foundation

/// How `nowetl` asks glibc's allocator to keep its memory.
///
/// glibc gives each thread that allocates concurrently an arena of its own (up to eight per core), and
/// an arena keeps the memory freed into it for the next allocation there. An export frees and allocates
/// a page's worth (a few megabytes: the body, its records, the row batch, the spill frame) on whichever
/// threads of the pool run its tasks, so every arena ends up holding pages' worth of freed memory:
/// measured on a 1M-row JSONL.gz export (concurrency 4, page 1000), peak RSS 73 MB with glibc's default,
/// 70 MB with two arenas and 64 MB with one, at the same CPU time (the threads spend far less time in
/// malloc than in parsing, compressing and I/O). So `nowetl` uses one arena, unless the environment
/// already tells glibc what to do (`MALLOC_ARENA_MAX`, or `arena_max` in `GLIBC_TUNABLES`).
public enum MemoryPolicy {
    /// The arenas `nowetl` asks for.
    public static let arenas: Int32 = 1

    /// Limits the allocator's arenas unless `environment` sets them.
    /// - Returns: whether the limit was set by this call.
    @discardableResult
    public static func apply(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        if environment["MALLOC_ARENA_MAX"] != nil { return false }
        if let tunables = environment["GLIBC_TUNABLES"], tunables.contains("arena_max") { return false }
        return nowetl_set_malloc_arena_max(arenas) == 1
    }
}

// glibc's process controls that Swift cannot call directly: prctl(2) is variadic.
#ifndef NOWETL_CPROCESS_SHIM_H
#define NOWETL_CPROCESS_SHIM_H

#include <malloc.h>
#include <sys/prctl.h>
#include <sys/resource.h>

// No core file, and not dumpable: a crash must not write the process's memory (credentials, tokens,
// exported rows) to disk, and no other process of the same user may attach to read it.
// Returns 0, or -1 with errno set by the call that failed.
static inline int nowetl_disable_core_dumps(void) {
    struct rlimit none = {0, 0};
    if (setrlimit(RLIMIT_CORE, &none) != 0) return -1;
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

// Whether the process is dumpable (1) or not (0); -1 with errno on failure.
static inline int nowetl_is_dumpable(void) {
    return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
}

// At most `count` malloc arenas (mallopt(M_ARENA_MAX), a macro Swift does not import).
// Returns 1 on success, 0 on failure, as mallopt does.
static inline int nowetl_set_malloc_arena_max(int count) {
    return mallopt(M_ARENA_MAX, count);
}

#endif

#ifndef NOWETL_CISAL_SHIM_H
#define NOWETL_CISAL_SHIM_H
#include <isa-l/igzip_lib.h>

/// The level buffer ISA-L suggests for `level` (its ISAL_DEF_LVLn_DEFAULT), or 0 for level 0, which needs
/// none: the macros are arithmetic Swift cannot import, and the size is per level.
static inline unsigned int nowetl_isal_level_buffer_size(int level) {
    switch (level) {
    case 1: return ISAL_DEF_LVL1_DEFAULT;
    case 2: return ISAL_DEF_LVL2_DEFAULT;
    case 3: return ISAL_DEF_LVL3_DEFAULT;
    default: return 0;
    }
}

/// Whether the stream has written everything it was given, its sync flush included (the state ISA-L's
/// documentation names for "all input flushed"): the enum lives inside a nested struct.
static inline int nowetl_isal_is_flushed(const struct isal_zstream *stream) {
    return stream->internal_state.state == ZSTATE_NEW_HDR;
}
#endif

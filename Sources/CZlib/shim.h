#ifndef NOWETL_CZLIB_SHIM_H
#define NOWETL_CZLIB_SHIM_H
#include <zlib.h>

/// deflateInit2 is a macro (it passes ZLIB_VERSION and the stream size), which Swift cannot import.
static inline int nowetl_deflate_init2(z_streamp stream, int level, int method, int windowBits, int memLevel,
                                       int strategy) {
    return deflateInit2(stream, level, method, windowBits, memLevel, strategy);
}

/// inflateInit2 is a macro too.
static inline int nowetl_inflate_init2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}
#endif

#ifndef NOWETL_CLIBXML2_SHIM_H
#define NOWETL_CLIBXML2_SHIM_H
/*
 * Debian builds libxml2 with ICU, so <libxml/encoding.h> includes ICU's <unicode/ucnv.h>. Swift's
 * Foundation ships its own ICU (_FoundationICU) whose UErrorCode differs, and a module that imports
 * both fails to build from a clean cache. nowetl and nowsim never touch libxml2's encoding handlers
 * (nowetl writes UTF-8 through its own output callbacks, nowsim's unload import reads the UTF-8 the
 * reader hands out), so the ICU parts of the headers are switched off: the
 * only difference is two trailing converter pointers in xmlCharEncodingHandler, which Swift never
 * allocates or reads.
 */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/xmlwriter.h>
#include <libxml/xmlIO.h>
#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#endif

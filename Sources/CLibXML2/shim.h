#ifndef NOWETL_CLIBXML2_SHIM_H
#define NOWETL_CLIBXML2_SHIM_H
#include <libxml/xmlwriter.h>
#include <libxml/xmlIO.h>
#include <libxml/parser.h>
#endif

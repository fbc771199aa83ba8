#ifndef NOWETL_CYAML_SHIM_H
#define NOWETL_CYAML_SHIM_H
#include <yaml.h>
#endif

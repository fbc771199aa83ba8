#ifndef NOWETL_CCRYPTO_SHIM_H
#define NOWETL_CCRYPTO_SHIM_H
/// OpenSSL's libcrypto, for SHA-256 through the EVP digest API (hardware SHA extensions where the CPU has
/// them). Only EVP's functions are used; none is a macro.
#include <openssl/evp.h>
#endif

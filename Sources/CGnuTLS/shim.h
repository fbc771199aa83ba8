#ifndef NOWETL_CGNUTLS_SHIM_H
#define NOWETL_CGNUTLS_SHIM_H
#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>

/* nowsim verifies client certificates (mutual TLS) on the GnuTLS session libmicrohttpd hands out;
   libmicrohttpd itself only asks for a certificate. The functions needed are plain C calls; this
   header only makes them visible to Swift. crypto.h: the SHA-256 of attachments (gnutls_hash_*). */
#endif

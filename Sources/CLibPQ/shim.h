#ifndef NOWETL_CLIBPQ_SHIM_H
#define NOWETL_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#include <postgres_ext.h>

/* PG_DIAG_SQLSTATE is a character-literal macro ('C'), which Swift does not import. */
static inline int nowetl_pq_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }

/* A notice processor that drops NOTICE/WARNING messages: libpq's default prints them to stderr, where
   they would interleave with nowetl's structured log lines. */
static inline void nowetl_pq_ignore_notice(void *arg, const char *message) {
    (void)arg;
    (void)message;
}
static inline void nowetl_pq_silence_notices(PGconn *conn) {
    PQsetNoticeProcessor(conn, nowetl_pq_ignore_notice, 0);
}
#endif

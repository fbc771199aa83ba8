#ifndef NOWETL_CMICROHTTPD_SHIM_H
#define NOWETL_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* Swift cannot call C variadic functions, so the three variadic entry points nowsim needs get
   fixed-argument wrappers here (the same reason macros get wrappers). Nothing else lives here. */

/* MHD_start_daemon with all options passed as one MHD_OPTION_ARRAY (terminated by MHD_OPTION_END). */
static inline struct MHD_Daemon *nowetl_mhd_start_daemon(unsigned int flags, uint16_t port,
                                                         MHD_AccessHandlerCallback handler, void *handler_cls,
                                                         struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls, MHD_OPTION_ARRAY, options,
                            MHD_OPTION_END);
}

/* The port the daemon is bound to (the ephemeral one when started with port 0), or 0 if unknown. */
static inline uint16_t nowetl_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/* The peer address of a connection, or NULL. */
static inline const struct sockaddr *nowetl_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/* The per-connection pointer set in the MHD_OPTION_NOTIFY_CONNECTION callback, or NULL. */
static inline void *nowetl_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/* The GnuTLS session (gnutls_session_t) of an HTTPS connection, or NULL. */
static inline void *nowetl_mhd_tls_session(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    return info == NULL ? NULL : info->tls_session;
}
#endif

// libmicrohttpd (Debian's libmicrohttpd-dev) for Swift. Three of its calls are variadic, which
// Swift cannot call: `MHD_start_daemon` (options as a list) and `MHD_get_daemon_info`. The
// inline functions below call them with a fixed list, so that Swift sees typed parameters.
#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Starts a daemon with `flags` bound to `address`, with the limits given; `key_pem` and
/// `cert_pem` (both or neither, NUL-terminated PEM text) for TLS. NULL when it cannot start.
static inline struct MHD_Daemon *uwb_mhd_start(unsigned int flags, const struct sockaddr *address,
                                               unsigned int connection_limit, unsigned int per_ip_limit,
                                               size_t memory_limit, unsigned int timeout_seconds,
                                               const char *key_pem, const char *cert_pem,
                                               MHD_AccessHandlerCallback handler, void *handler_context,
                                               MHD_RequestCompletedCallback completed, void *completed_context) {
    if (key_pem != NULL && cert_pem != NULL) {
        return MHD_start_daemon(flags | MHD_USE_TLS, 0, NULL, NULL, handler, handler_context,
                                MHD_OPTION_SOCK_ADDR, address,
                                MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                                MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
                                MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                                MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                                MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
                                MHD_OPTION_HTTPS_MEM_KEY, key_pem,
                                MHD_OPTION_HTTPS_MEM_CERT, cert_pem,
                                MHD_OPTION_END);
    }
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_context,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
                            MHD_OPTION_END);
}

/// The epoll descriptor of a daemon started with MHD_USE_EPOLL (what to poll in "external
/// select" mode), or -1.
static inline int uwb_mhd_epoll_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info == NULL ? -1 : info->epoll_fd;
}

/// The port the daemon listens on (the kernel's choice when 0 was asked for), or 0.
static inline uint16_t uwb_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

// libmicrohttpd (Debian's libmicrohttpd-dev) for Swift, loaded when a web server starts rather
// than linked: linked, it and what it needs (GnuTLS, nettle, gmp, p11-kit and five more) were
// mapped into every `uwb2mqtt run` at start, 2.6 MiB of resident memory for a server only
// `watch --http` runs. Its header gives the types and constants; each call goes through a
// pointer that `uwb_mhd()` looks up once with dlsym (`uwb_MHD_…` below, one per call used).
//
// Four of its calls are variadic, which Swift cannot call: `MHD_start_daemon` (options as a
// list), `MHD_get_daemon_info`, `MHD_get_connection_info` and `MHD_set_connection_option`. The
// inline functions below call them with a fixed list, so that Swift sees typed parameters.
#include <dlfcn.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/// The library's calls that the web server makes.
struct uwb_mhd_calls {
    __typeof__(&MHD_start_daemon) start_daemon;
    __typeof__(&MHD_get_daemon_info) get_daemon_info;
    __typeof__(&MHD_get_connection_info) get_connection_info;
    __typeof__(&MHD_set_connection_option) set_connection_option;
    __typeof__(&MHD_stop_daemon) stop_daemon;
    __typeof__(&MHD_run) run;
    __typeof__(&MHD_get_timeout) get_timeout;
    __typeof__(&MHD_is_feature_supported) is_feature_supported;
    __typeof__(&MHD_create_response_from_buffer) create_response_from_buffer;
    __typeof__(&MHD_create_response_from_callback) create_response_from_callback;
    __typeof__(&MHD_add_response_header) add_response_header;
    __typeof__(&MHD_queue_response) queue_response;
    __typeof__(&MHD_destroy_response) destroy_response;
    __typeof__(&MHD_suspend_connection) suspend_connection;
    __typeof__(&MHD_resume_connection) resume_connection;
    __typeof__(&MHD_basic_auth_get_username_password) basic_auth_get_username_password;
    __typeof__(&MHD_queue_basic_auth_fail_response) queue_basic_auth_fail_response;
    __typeof__(&MHD_free) free;
};

/// Why the library could not be loaded, after `uwb_mhd()` returned NULL.
static inline char *uwb_mhd_load_error(void) {
    static char reason[256];
    return reason;
}

/// The library's calls, loaded on the first call (libmicrohttpd.so.12, the soname of Debian's
/// libmicrohttpd12); NULL when the library or one of its calls is missing (`uwb_mhd_load_error()`
/// says which). Called on one thread (the event loop's).
static inline const struct uwb_mhd_calls *uwb_mhd(void) {
    static struct uwb_mhd_calls calls;
    static int state = 0;   // 0: not tried, 1: loaded, -1: failed
    if (state != 0) return state == 1 ? &calls : NULL;
    state = -1;
    void *library = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(uwb_mhd_load_error(), 256, "%s", reason != NULL ? reason : "libmicrohttpd.so.12 not found");
        return NULL;
    }
#define UWB_MHD_LOAD(field, name) \
    if ((*(void **)&calls.field = dlsym(library, name)) == NULL) { \
        snprintf(uwb_mhd_load_error(), 256, "libmicrohttpd.so.12 has no %s", name); \
        return NULL; \
    }
    UWB_MHD_LOAD(start_daemon, "MHD_start_daemon")
    UWB_MHD_LOAD(get_daemon_info, "MHD_get_daemon_info")
    UWB_MHD_LOAD(get_connection_info, "MHD_get_connection_info")
    UWB_MHD_LOAD(set_connection_option, "MHD_set_connection_option")
    UWB_MHD_LOAD(stop_daemon, "MHD_stop_daemon")
    UWB_MHD_LOAD(run, "MHD_run")
    UWB_MHD_LOAD(get_timeout, "MHD_get_timeout")
    UWB_MHD_LOAD(is_feature_supported, "MHD_is_feature_supported")
    UWB_MHD_LOAD(create_response_from_buffer, "MHD_create_response_from_buffer")
    UWB_MHD_LOAD(create_response_from_callback, "MHD_create_response_from_callback")
    UWB_MHD_LOAD(add_response_header, "MHD_add_response_header")
    UWB_MHD_LOAD(queue_response, "MHD_queue_response")
    UWB_MHD_LOAD(destroy_response, "MHD_destroy_response")
    UWB_MHD_LOAD(suspend_connection, "MHD_suspend_connection")
    UWB_MHD_LOAD(resume_connection, "MHD_resume_connection")
    UWB_MHD_LOAD(basic_auth_get_username_password, "MHD_basic_auth_get_username_password")
    UWB_MHD_LOAD(queue_basic_auth_fail_response, "MHD_queue_basic_auth_fail_response")
    UWB_MHD_LOAD(free, "MHD_free")
#undef UWB_MHD_LOAD
    state = 1;
    return &calls;
}

// The calls, through the pointers: only after `uwb_mhd()` returned the calls.
static inline void uwb_MHD_stop_daemon(struct MHD_Daemon *daemon) { uwb_mhd()->stop_daemon(daemon); }
static inline enum MHD_Result uwb_MHD_run(struct MHD_Daemon *daemon) { return uwb_mhd()->run(daemon); }
static inline enum MHD_Result uwb_MHD_get_timeout(struct MHD_Daemon *daemon, MHD_UNSIGNED_LONG_LONG *timeout) {
    return uwb_mhd()->get_timeout(daemon, timeout);
}
static inline enum MHD_Result uwb_MHD_is_feature_supported(enum MHD_FEATURE feature) { return uwb_mhd()->is_feature_supported(feature); }
static inline struct MHD_Response *uwb_MHD_create_response_from_buffer(size_t size, void *buffer, enum MHD_ResponseMemoryMode mode) {
    return uwb_mhd()->create_response_from_buffer(size, buffer, mode);
}
static inline struct MHD_Response *uwb_MHD_create_response_from_callback(uint64_t size, size_t block_size,
                                                                          MHD_ContentReaderCallback reader, void *reader_context,
                                                                          MHD_ContentReaderFreeCallback release) {
    return uwb_mhd()->create_response_from_callback(size, block_size, reader, reader_context, release);
}
static inline enum MHD_Result uwb_MHD_add_response_header(struct MHD_Response *response, const char *header, const char *content) {
    return uwb_mhd()->add_response_header(response, header, content);
}
static inline enum MHD_Result uwb_MHD_queue_response(struct MHD_Connection *connection, unsigned int status, struct MHD_Response *response) {
    return uwb_mhd()->queue_response(connection, status, response);
}
static inline void uwb_MHD_destroy_response(struct MHD_Response *response) { uwb_mhd()->destroy_response(response); }
static inline void uwb_MHD_suspend_connection(struct MHD_Connection *connection) { uwb_mhd()->suspend_connection(connection); }
static inline void uwb_MHD_resume_connection(struct MHD_Connection *connection) { uwb_mhd()->resume_connection(connection); }
static inline char *uwb_MHD_basic_auth_get_username_password(struct MHD_Connection *connection, char **password) {
    return uwb_mhd()->basic_auth_get_username_password(connection, password);
}
static inline enum MHD_Result uwb_MHD_queue_basic_auth_fail_response(struct MHD_Connection *connection, const char *realm,
                                                                     struct MHD_Response *response) {
    return uwb_mhd()->queue_basic_auth_fail_response(connection, realm, response);
}
static inline void uwb_MHD_free(void *pointer) { uwb_mhd()->free(pointer); }

/// The client's address as text (`192.0.2.7`, `2001:db8::7`) in `text`, empty when unknown.
static inline void uwb_mhd_client_address(struct MHD_Connection *connection, char *text, size_t size) {
    if (size == 0) return;
    text[0] = 0;
    const union MHD_ConnectionInfo *info = uwb_mhd()->get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)address)->sin_addr, text, (socklen_t)size);
    } else if (address->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)address)->sin6_addr, text, (socklen_t)size);
    }
}

/// The connection's socket, or -1.
static inline int uwb_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = uwb_mhd()->get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// Gives one connection an idle timeout of its own, in seconds.
static inline void uwb_mhd_set_connection_timeout(struct MHD_Connection *connection, unsigned int seconds) {
    uwb_mhd()->set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, seconds);
}

/// Starts a daemon with `flags` bound to `address`, with the limits given; `key_pem` and
/// `cert_pem` (both or neither, NUL-terminated PEM text) for TLS. NULL when it cannot start.
static inline struct MHD_Daemon *uwb_mhd_start(unsigned int flags, const struct sockaddr *address,
                                               unsigned int connection_limit, unsigned int per_ip_limit,
                                               size_t memory_limit, unsigned int timeout_seconds,
                                               const char *key_pem, const char *cert_pem,
                                               MHD_AccessHandlerCallback handler, void *handler_context,
                                               MHD_RequestCompletedCallback completed, void *completed_context,
                                               MHD_NotifyConnectionCallback notify, void *notify_context) {
    // Without TLS the list ends where the key would be: the library reads no option after an
    // MHD_OPTION_END, so one call serves both.
    int tls = key_pem != NULL && cert_pem != NULL;
    return uwb_mhd()->start_daemon(tls ? flags | MHD_USE_TLS : flags, 0, NULL, NULL, handler, handler_context,
                                   MHD_OPTION_SOCK_ADDR, address,
                                   MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                                   MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
                                   MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                                   MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                                   MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
                                   MHD_OPTION_NOTIFY_CONNECTION, notify, notify_context,
                                   tls ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, key_pem,
                                   MHD_OPTION_HTTPS_MEM_CERT, cert_pem,
                                   MHD_OPTION_END);
}

/// The epoll descriptor of a daemon started with MHD_USE_EPOLL (what to poll in "external
/// select" mode), or -1.
static inline int uwb_mhd_epoll_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = uwb_mhd()->get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info == NULL ? -1 : info->epoll_fd;
}

/// The port the daemon listens on (the kernel's choice when 0 was asked for), or 0.
static inline uint16_t uwb_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = uwb_mhd()->get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

// CLinuxEvents: the Linux calls that Swift's Glibc module does not show (sys/epoll.h,
// sys/eventfd.h, sys/signalfd.h, sys/prctl.h and sys/timex.h are not in its module map, pipe2
// needs _GNU_SOURCE): the event loop's wait, wake-up and signal descriptors, naming its helper
// threads, a wake-up pipe, and the kernel clock's error. Thin wrappers; errors are reported as
// the C calls report them (-1 and errno).
#ifndef CLINUXEVENTS_H
#define CLINUXEVENTS_H

#include <signal.h>
#include <stdint.h>

/// epoll_create1(EPOLL_CLOEXEC): the event loop's wait set. Returns the fd, or -1 with errno set.
int clinux_epoll_create(void);

/// epoll_ctl(epfd, op, fd, {events, id}): op is 1 (add), 2 (delete) or 3 (change), events the
/// poll(2) bits (POLLIN, POLLOUT, ...: epoll's have the same values). Returns 0, or -1 with errno.
int clinux_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t id);

/// One descriptor epoll_wait found ready: the id it was added with and its poll(2) bits.
/// (Not `struct epoll_event`, which is packed on x86-64 and imports into Swift badly.)
typedef struct {
    uint64_t id;
    uint32_t events;
} clinux_ready;

/// epoll_wait for at most `max` (≤ 64) descriptors and `timeout_ms` (-1: no limit). Returns how
/// many entries of `ready` it filled, or -1 with errno set (EINTR included).
int clinux_epoll_wait(int epfd, clinux_ready *ready, int max, int timeout_ms);

/// eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC): a counter descriptor that other threads write to wake
/// the loop. Returns the fd, or -1 with errno set.
int clinux_eventfd(void);

/// Adds 1 to the counter (a wake-up). Returns 0, or -1 with errno set (EAGAIN: already maxed).
int clinux_eventfd_signal(int fd);

/// Reads and resets the counter. Returns 0 (nothing was pending or it was reset), or -1 on error.
int clinux_eventfd_drain(int fd);

/// signalfd(-1, mask, SFD_NONBLOCK | SFD_CLOEXEC) for the signals in `mask`. The caller blocks
/// them first (pthread_sigmask), or they keep their default action.
int clinux_signalfd(const sigset_t *mask);

/// Reads one pending signal from a signalfd. Returns its number, 0 when none is pending, or -1.
int clinux_signalfd_next(int fd);

/// Names the calling thread (prctl PR_SET_NAME; at most 15 bytes are kept), for ps and gdb.
int clinux_name_this_thread(const char *name);

/// pipe2(fds, O_CLOEXEC | O_NONBLOCK): a pipe whose ends are never inherited by child processes,
/// set atomically (a plain pipe + fcntl leaves a window in which another thread's fork leaks them).
/// Returns 0, or -1 with errno set.
int clinux_pipe_cloexec_nonblock(int fds[2]);

/// The kernel clock's estimated maximum error in microseconds (adjtimex, read only): what
/// `timedatectl` calls "System clock synchronized" when it is below 16 s. Returns 0 and sets
/// `*max_error_us`, or -1 with errno set.
int clinux_clock_max_error(long *max_error_us);

#endif

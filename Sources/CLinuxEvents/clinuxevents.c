// See include/clinuxevents.h. _GNU_SOURCE exposes pipe2.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/timex.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include "clinuxevents.h"

int clinux_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int clinux_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t id) {
    struct epoll_event event = { .events = events, .data.u64 = id };
    return epoll_ctl(epfd, op, fd, &event);
}

int clinux_epoll_wait(int epfd, clinux_ready *ready, int max, int timeout_ms) {
    struct epoll_event events[64];
    if (max > 64) max = 64;
    int n = epoll_wait(epfd, events, max, timeout_ms);
    for (int i = 0; i < n; i++) {
        ready[i].id = events[i].data.u64;
        ready[i].events = events[i].events;
    }
    return n;
}

int clinux_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

int clinux_eventfd_signal(int fd) {
    uint64_t one = 1;
    return write(fd, &one, sizeof one) == sizeof one ? 0 : -1;
}

int clinux_eventfd_drain(int fd) {
    uint64_t value;
    if (read(fd, &value, sizeof value) == sizeof value) return 0;
    return errno == EAGAIN ? 0 : -1;
}

int clinux_signalfd(const sigset_t *mask) { return signalfd(-1, mask, SFD_NONBLOCK | SFD_CLOEXEC); }

int clinux_signalfd_next(int fd) {
    struct signalfd_siginfo info;
    ssize_t n = read(fd, &info, sizeof info);
    if (n == sizeof info) return (int)info.ssi_signo;
    return (n < 0 && errno == EAGAIN) ? 0 : -1;
}

int clinux_name_this_thread(const char *name) { return prctl(PR_SET_NAME, name, 0, 0, 0); }

int clinux_pipe_cloexec_nonblock(int fds[2]) { return pipe2(fds, O_CLOEXEC | O_NONBLOCK); }

int clinux_clock_max_error(long *max_error_us) {
    struct timex t = {0};  /* modes 0: read only */
    if (adjtimex(&t) < 0) return -1;
    *max_error_us = t.maxerror;
    return 0;
}

// CLinuxEvents: the Linux calls the event loop uses that Swift's Glibc module does not show
// (sys/eventfd.h, sys/signalfd.h and sys/prctl.h are not in its module map): its wake-up and signal
// descriptors, and naming its helper threads. Direct pass-throughs; errors are reported as the C
// calls report them (-1 and errno).
#ifndef CLINUXEVENTS_H
#define CLINUXEVENTS_H

#include <signal.h>
#include <stdint.h>

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

#endif

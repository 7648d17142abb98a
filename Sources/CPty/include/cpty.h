// CPty: the pseudo-terminal calls that Swift's Glibc module does not show, because glibc declares
// them only under feature macros (_XOPEN_SOURCE / _GNU_SOURCE) that the module map does not set.
// Each wrapper is a direct pass-through; errors are reported as the C call reports them.
#ifndef CPTY_H
#define CPTY_H

#include <stddef.h>

/// posix_openpt(flags): opens a pseudo-terminal master. Returns the fd, or -1 with errno set.
int cpty_posix_openpt(int flags);

/// grantpt(fd): sets the slave's owner and mode. Returns 0, or -1 with errno set.
int cpty_grantpt(int fd);

/// unlockpt(fd): allows the slave to be opened. Returns 0, or -1 with errno set.
int cpty_unlockpt(int fd);

/// ptsname_r(fd, buf, len): the slave's path (thread-safe, unlike ptsname). Returns 0 or an errno.
int cpty_ptsname_r(int fd, char *buf, size_t len);

#endif

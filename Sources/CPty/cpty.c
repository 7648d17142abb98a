// See include/cpty.h. _GNU_SOURCE exposes posix_openpt, grantpt, unlockpt, ptsname_r and pipe2.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include "cpty.h"

int cpty_posix_openpt(int flags) { return posix_openpt(flags); }

int cpty_grantpt(int fd) { return grantpt(fd); }

int cpty_unlockpt(int fd) { return unlockpt(fd); }

int cpty_ptsname_r(int fd, char *buf, size_t len) { return ptsname_r(fd, buf, len); }

int cpty_pipe_cloexec_nonblock(int fds[2]) { return pipe2(fds, O_CLOEXEC | O_NONBLOCK); }

// See include/cpty.h. _GNU_SOURCE exposes posix_openpt, grantpt, unlockpt and ptsname_r.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include "cpty.h"

int cpty_posix_openpt(int flags) { return posix_openpt(flags); }

int cpty_grantpt(int fd) { return grantpt(fd); }

int cpty_unlockpt(int fd) { return unlockpt(fd); }

int cpty_ptsname_r(int fd, char *buf, size_t len) { return ptsname_r(fd, buf, len); }


#ifndef CANTEEN_CEPOLL_SHIM_H
#define CANTEEN_CEPOLL_SHIM_H

/* epoll for server-bench's parked displays: Glibc's Swift module does not carry sys/epoll.h. */
#include <sys/epoll.h>

#endif

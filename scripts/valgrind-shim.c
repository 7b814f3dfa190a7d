// Preloaded into `canteen serve` by scripts/count-instructions.sh, for two things valgrind changes.
//
// - Valgrind 3.19 crashes when a program passes sigsuspend a mask in read-only memory, as
//   libdispatch's main thread does (fixed in valgrind 3.20): sigsuspend here passes a copy.
// - Under callgrind the server runs ~50x slower, so its once-a-second work (the café and token
//   caches' refreshes, the kitchen feed's watch for other processes' changes) would fall on 50x
//   fewer orders than in a native run. With SLOWDOWN=K every clock the server reads runs K times
//   slower from the server's start, and the kernel timers and waits it arms (timerfd, epoll_wait,
//   nanosleep) are stretched back to match, so that work keeps its native share of each order.
#define _GNU_SOURCE
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, 8);
}

static long long slowdown = 1;
static long long base[16];      // each clock's reading at start, in ns
static unsigned char timer_clock[65536];

__attribute__((constructor)) static void start(void) {
    const char *text = getenv("SLOWDOWN");
    if (text && atoll(text) > 1) slowdown = atoll(text);
    for (int clock = 0; clock < 16; clock++) {
        struct timespec ts;
        if (syscall(SYS_clock_gettime, clock, &ts) == 0) base[clock] = ts.tv_sec * 1000000000LL + ts.tv_nsec;
    }
}

static long long ns(const struct timespec *ts) { return ts->tv_sec * 1000000000LL + ts->tv_nsec; }
static struct timespec spec(long long value) {
    struct timespec ts = { value / 1000000000LL, value % 1000000000LL };
    return ts;
}

int clock_gettime(clockid_t clock, struct timespec *ts) {
    int result = (int)syscall(SYS_clock_gettime, clock, ts);
    if (result != 0 || slowdown == 1 || clock < 0 || clock >= 16) return result;
    *ts = spec(base[clock] + (ns(ts) - base[clock]) / slowdown);
    return 0;
}

int gettimeofday(struct timeval *tv, void *tz) {
    (void)tz;
    struct timespec ts;
    int result = clock_gettime(CLOCK_REALTIME, &ts);
    if (result == 0) { tv->tv_sec = ts.tv_sec; tv->tv_usec = ts.tv_nsec / 1000; }
    return result;
}

int timerfd_create(int clock, int flags) {
    int fd = (int)syscall(SYS_timerfd_create, clock, flags);
    if (fd >= 0 && fd < 65536) timer_clock[fd] = (unsigned char)clock;
    return fd;
}

int timerfd_settime(int fd, int flags, const struct itimerspec *value, struct itimerspec *old) {
    struct itimerspec real = *value;
    if (slowdown > 1 && fd >= 0 && fd < 65536) {
        long long target = ns(&value->it_value);
        if (target != 0) {
            if (flags & TFD_TIMER_ABSTIME) {
                long long origin = base[timer_clock[fd] & 15];
                real.it_value = spec(origin + (target - origin) * slowdown);
            } else {
                real.it_value = spec(target * slowdown);
            }
        }
        real.it_interval = spec(ns(&value->it_interval) * slowdown);
    }
    return (int)syscall(SYS_timerfd_settime, fd, flags, &real, old);
}

int epoll_wait(int epfd, struct epoll_event *events, int count, int timeout) {
    if (slowdown > 1 && timeout > 0) timeout = timeout > INT_MAX / slowdown ? INT_MAX : timeout * (int)slowdown;
    return (int)syscall(SYS_epoll_pwait, epfd, events, count, timeout, NULL, 8);
}

int nanosleep(const struct timespec *request, struct timespec *remaining) {
    struct timespec real = spec(ns(request) * slowdown);
    return (int)syscall(SYS_nanosleep, &real, remaining);
}

/*
 * rtprobe: an LD_PRELOAD library that checks, at run time, that the realtime render path of
 * `rack run` never allocates, locks, sleeps or does I/O.
 *
 * rack's JACK process callback calls rack_probe_enter() before and rack_probe_leave() after each
 * render, through weak symbols. This library defines them: between the two calls a thread-local
 * flag is set, and every interposed libc call made by that thread while the flag is set is counted
 * (and, for the first few, its call stack is kept). At exit the counts are written as JSON to
 * $RACK_PROBE_OUT (default: stderr):
 *
 *   {"cycles": N, "malloc": n, "free": n, "lock": n, "io": n, "details": {...}}
 *
 *   malloc : malloc calloc realloc posix_memalign aligned_alloc memalign valloc pvalloc
 *   free   : free (of a non-NULL pointer)
 *   lock   : pthread mutex / rwlock / spin locks (incl. try-locks), condition waits, sem waits,
 *            futex waits made through syscall(SYS_futex, ...)
 *   io     : read write open openat close recv* send* poll select epoll_wait nanosleep usleep
 *            sleep clock_nanosleep and the stdio output calls (fwrite fputs printf ...)
 *
 * details holds one count per function (only those seen), the number of distinct threads that
 * entered, unbalanced enter/leave calls, the longest cycle in microseconds and the call stacks of
 * the first offending calls (module+offset, and the symbol when dladdr knows it; resolve the rest
 * with `addr2line -f -e MODULE OFFSET`).
 *
 * The process callback itself: the library also interposes jack_set_process_callback and
 * jack_set_xrun_callback, and runs the process's callbacks from its own, so the report says
 * what the JACK server saw of this process, cycle by cycle ("callback"):
 *
 *   cycles       process callbacks run
 *   period_us    the period of the last cycle (frames / rate)
 *   max_us       the longest callback, wall clock, start to return
 *   max_cpu_us   the most CPU time the thread spent in one callback (what it did, not waited)
 *   max_fraction max_us / the period of that cycle
 *   percent      21 counts: callbacks that took [0,5) [5,10) ... [95,100) and >= 100 % of their
 *                period, wall clock; cpu_percent the same of their CPU time
 *   gaps         cycles whose frame time (jack_last_frame_time) is not the last one's plus its
 *                frames: a server xrun came between (it skipped cycles of this process or reset
 *                its frame timer); missed_frames the sum of the differences (modulo 2^32: a
 *                timer set back counts as a huge one); first_gaps the first 64 as
 *                {"cycle": n, "frame": frame time, "missed": frames}
 *   xruns        xrun notifications the server sent this process
 *
 * With RACK_PROBE_CYCLES=PATH it also writes PATH at exit: the frame time of each cycle, one a
 * line, the last 262,144 cycles (23 minutes at 256 frames and 48 kHz).
 *
 * Build: cc -shared -fPIC -O2 -o librtprobe.so rtprobe.c -ldl -lpthread
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define TLS __thread __attribute__((tls_model("initial-exec")))

/* ------------------------------------------------------------------------------------------ */
/* counters                                                                                    */

enum category { CAT_MALLOC, CAT_FREE, CAT_LOCK, CAT_IO, CAT_NONE, CAT_COUNT };

#define FUNCS(X)                                                                                \
    X(malloc, CAT_MALLOC) X(calloc, CAT_MALLOC) X(realloc, CAT_MALLOC)                          \
    X(posix_memalign, CAT_MALLOC) X(aligned_alloc, CAT_MALLOC) X(memalign, CAT_MALLOC)          \
    X(valloc, CAT_MALLOC) X(pvalloc, CAT_MALLOC)                                                \
    X(free, CAT_FREE) X(free_null, CAT_NONE)                                                    \
    X(pthread_mutex_lock, CAT_LOCK) X(pthread_mutex_trylock, CAT_LOCK)                          \
    X(pthread_mutex_timedlock, CAT_LOCK)                                                        \
    X(pthread_rwlock_rdlock, CAT_LOCK) X(pthread_rwlock_wrlock, CAT_LOCK)                       \
    X(pthread_rwlock_tryrdlock, CAT_LOCK) X(pthread_rwlock_trywrlock, CAT_LOCK)                 \
    X(pthread_rwlock_timedrdlock, CAT_LOCK) X(pthread_rwlock_timedwrlock, CAT_LOCK)             \
    X(pthread_spin_lock, CAT_LOCK) X(pthread_cond_wait, CAT_LOCK)                               \
    X(pthread_cond_timedwait, CAT_LOCK) X(sem_wait, CAT_LOCK) X(sem_timedwait, CAT_LOCK)        \
    X(sem_trywait, CAT_LOCK) X(futex_wait, CAT_LOCK)                                            \
    X(futex_wake, CAT_NONE) X(syscall_other, CAT_NONE)                                          \
    X(read, CAT_IO) X(write, CAT_IO) X(pread64, CAT_IO) X(pwrite64, CAT_IO) X(readv, CAT_IO)    \
    X(writev, CAT_IO) X(open, CAT_IO) X(open64, CAT_IO) X(openat, CAT_IO) X(openat64, CAT_IO)   \
    X(close, CAT_IO) X(fopen, CAT_IO) X(recv, CAT_IO) X(recvfrom, CAT_IO) X(recvmsg, CAT_IO)    \
    X(send, CAT_IO) X(sendto, CAT_IO) X(sendmsg, CAT_IO) X(poll, CAT_IO) X(ppoll, CAT_IO)       \
    X(select, CAT_IO) X(pselect, CAT_IO) X(epoll_wait, CAT_IO) X(nanosleep, CAT_IO)             \
    X(usleep, CAT_IO) X(sleep, CAT_IO) X(clock_nanosleep, CAT_IO) X(sched_yield, CAT_IO)        \
    X(fwrite, CAT_IO) X(fputs, CAT_IO) X(puts, CAT_IO) X(fputc, CAT_IO) X(putchar, CAT_IO)      \
    X(fflush, CAT_IO) X(printf, CAT_IO) X(fprintf, CAT_IO) X(vprintf, CAT_IO)                   \
    X(vfprintf, CAT_IO) X(flockfile, CAT_IO)

#define ENUM_ENTRY(name, cat) F_##name,
enum func { FUNCS(ENUM_ENTRY) F_COUNT };
#define NAME_ENTRY(name, cat) #name,
static const char *const func_names[F_COUNT] = {FUNCS(NAME_ENTRY)};
#define CAT_ENTRY(name, cat) cat,
static const enum category func_cats[F_COUNT] = {FUNCS(CAT_ENTRY)};

static _Atomic unsigned long func_counts[F_COUNT];
static _Atomic unsigned long cycles;
static _Atomic unsigned long unbalanced;
static _Atomic unsigned long max_cycle_ns;
static _Atomic int rt_threads;

static TLS int in_rt;        /* set between rack_probe_enter and rack_probe_leave */
static TLS int in_probe;     /* set while this library does its own bookkeeping */
static TLS int thread_seen;  /* this thread has entered once */
static TLS struct timespec cycle_start;

/* the first offending calls, with their stacks */
#define MAX_OFFENDERS 12
#define MAX_FRAMES 14
struct offender {
    int func;
    int nframes;
    void *frames[MAX_FRAMES];
};
static struct offender offenders[MAX_OFFENDERS];
static _Atomic int n_offenders;
static int backtrace_ready;

__attribute__((noinline)) static void note(enum func f) {
    if (!in_rt || in_probe)
        return;
    atomic_fetch_add_explicit(&func_counts[f], 1, memory_order_relaxed);
    if (func_cats[f] == CAT_NONE || !backtrace_ready)
        return;
    int slot = atomic_fetch_add_explicit(&n_offenders, 1, memory_order_relaxed);
    if (slot >= MAX_OFFENDERS)
        return;
    in_probe = 1;
    offenders[slot].func = f;
    offenders[slot].nframes = backtrace(offenders[slot].frames, MAX_FRAMES);
    in_probe = 0;
}

/* ------------------------------------------------------------------------------------------ */
/* the hooks rack calls                                                                        */

EXPORT void rack_probe_enter(void) {
    if (in_rt)
        atomic_fetch_add_explicit(&unbalanced, 1, memory_order_relaxed);
    if (!thread_seen) {
        thread_seen = 1;
        atomic_fetch_add_explicit(&rt_threads, 1, memory_order_relaxed);
    }
    clock_gettime(CLOCK_MONOTONIC, &cycle_start);
    in_rt = 1;
}

EXPORT void rack_probe_leave(void) {
    if (!in_rt) {
        atomic_fetch_add_explicit(&unbalanced, 1, memory_order_relaxed);
        return;
    }
    in_rt = 0;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    unsigned long ns = (unsigned long)((now.tv_sec - cycle_start.tv_sec) * 1000000000L +
                                       (now.tv_nsec - cycle_start.tv_nsec));
    unsigned long old = atomic_load_explicit(&max_cycle_ns, memory_order_relaxed);
    while (ns > old &&
           !atomic_compare_exchange_weak_explicit(&max_cycle_ns, &old, ns, memory_order_relaxed,
                                                  memory_order_relaxed)) {
    }
    atomic_fetch_add_explicit(&cycles, 1, memory_order_relaxed);
}

/* ------------------------------------------------------------------------------------------ */
/* the process callback, timed                                                                 */

/* The JACK types, declared here so that the library needs no JACK headers or library: the
 * real functions are looked up at their first call, in a process that has libjack. */
typedef uint32_t probe_nframes_t;
typedef int (*probe_process_fn)(probe_nframes_t, void *);
typedef int (*probe_xrun_fn)(void *);

#define MAX_CLIENTS 8
#define MAX_GAPS 64
#define PERCENT_BUCKETS 21
struct wrapped {
    void *client;
    probe_process_fn process;
    void *arg;
    uint32_t rate;
    uint32_t last_frame;
    int have_last;
};
static struct wrapped wrapped_clients[MAX_CLIENTS];
static _Atomic int n_wrapped;
static struct wrapped xrun_wrapped[MAX_CLIENTS];
static _Atomic int n_xrun_wrapped;

static _Atomic unsigned long cb_cycles, cb_max_ns, cb_max_cpu_ns, cb_period_ns, cb_gaps,
    cb_missed, cb_xruns;
static _Atomic unsigned long cb_max_fraction_ppm;
static _Atomic unsigned long cb_percent[PERCENT_BUCKETS], cb_cpu_percent[PERCENT_BUCKETS];
struct gap { unsigned long cycle; uint32_t frame, missed; };
static struct gap gaps[MAX_GAPS];
#define FRAME_LOG (1 << 18)
static uint32_t frame_log[FRAME_LOG];

static int (*real_jack_set_process_callback)(void *, probe_process_fn, void *);
static int (*real_jack_set_xrun_callback)(void *, probe_xrun_fn, void *);
static uint32_t (*real_jack_last_frame_time)(const void *);
static uint32_t (*real_jack_get_sample_rate)(void *);

static void store_max(_Atomic unsigned long *slot, unsigned long v) {
    unsigned long old = atomic_load_explicit(slot, memory_order_relaxed);
    while (v > old && !atomic_compare_exchange_weak_explicit(slot, &old, v, memory_order_relaxed,
                                                             memory_order_relaxed)) {
    }
}

static unsigned long elapsed_ns(const struct timespec *a, const struct timespec *b) {
    return (unsigned long)((b->tv_sec - a->tv_sec) * 1000000000L + (b->tv_nsec - a->tv_nsec));
}

static int timed_process(probe_nframes_t nframes, void *arg) {
    struct wrapped *w = arg;
    struct timespec t0, t1, c0, c1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    unsigned long cycle = atomic_fetch_add_explicit(&cb_cycles, 1, memory_order_relaxed);
    uint32_t frame = real_jack_last_frame_time ? real_jack_last_frame_time(w->client) : 0;
    if (w->have_last && frame != (uint32_t)(w->last_frame + nframes)) {
        uint32_t missed = frame - w->last_frame - nframes;
        unsigned long g = atomic_fetch_add_explicit(&cb_gaps, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&cb_missed, missed, memory_order_relaxed);
        if (g < MAX_GAPS)
            gaps[g] = (struct gap){cycle, frame, missed};
    }
    w->last_frame = frame;
    w->have_last = 1;
    frame_log[cycle % FRAME_LOG] = frame;
    int result = w->process(nframes, w->arg);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    unsigned long ns = elapsed_ns(&t0, &t1);
    store_max(&cb_max_ns, ns);
    store_max(&cb_max_cpu_ns, elapsed_ns(&c0, &c1));
    if (w->rate) {
        unsigned long period = (unsigned long)nframes * 1000000000UL / w->rate;
        atomic_store_explicit(&cb_period_ns, period, memory_order_relaxed);
        unsigned long ppm = period ? ns * 1000000UL / period : 0;
        store_max(&cb_max_fraction_ppm, ppm);
        unsigned long bucket = ppm / 50000;
        if (bucket >= PERCENT_BUCKETS)
            bucket = PERCENT_BUCKETS - 1;
        atomic_fetch_add_explicit(&cb_percent[bucket], 1, memory_order_relaxed);
        bucket = period ? elapsed_ns(&c0, &c1) * 20 / period : 0;
        if (bucket >= PERCENT_BUCKETS)
            bucket = PERCENT_BUCKETS - 1;
        atomic_fetch_add_explicit(&cb_cpu_percent[bucket], 1, memory_order_relaxed);
    }
    return result;
}

EXPORT int jack_set_process_callback(void *client, probe_process_fn process, void *arg) {
    if (!real_jack_set_process_callback) {
        *(void **)&real_jack_set_process_callback = dlsym(RTLD_NEXT, "jack_set_process_callback");
        *(void **)&real_jack_last_frame_time = dlsym(RTLD_NEXT, "jack_last_frame_time");
        *(void **)&real_jack_get_sample_rate = dlsym(RTLD_NEXT, "jack_get_sample_rate");
    }
    if (!real_jack_set_process_callback)
        return -1;
    int slot = process ? atomic_fetch_add(&n_wrapped, 1) : MAX_CLIENTS;
    if (slot >= MAX_CLIENTS) /* more clients than the table holds: run theirs untimed */
        return real_jack_set_process_callback(client, process, arg);
    struct wrapped *w = &wrapped_clients[slot];
    *w = (struct wrapped){client, process, arg,
                          real_jack_get_sample_rate ? real_jack_get_sample_rate(client) : 0, 0, 0};
    return real_jack_set_process_callback(client, timed_process, w);
}

static int counted_xrun(void *arg) {
    struct wrapped *w = arg;
    atomic_fetch_add_explicit(&cb_xruns, 1, memory_order_relaxed);
    return ((probe_xrun_fn)(void *)w->process)(w->arg);
}

EXPORT int jack_set_xrun_callback(void *client, probe_xrun_fn xrun, void *arg) {
    if (!real_jack_set_xrun_callback)
        *(void **)&real_jack_set_xrun_callback = dlsym(RTLD_NEXT, "jack_set_xrun_callback");
    if (!real_jack_set_xrun_callback)
        return -1;
    int slot = xrun ? atomic_fetch_add(&n_xrun_wrapped, 1) : MAX_CLIENTS;
    if (slot >= MAX_CLIENTS)
        return real_jack_set_xrun_callback(client, xrun, arg);
    struct wrapped *w = &xrun_wrapped[slot];
    *w = (struct wrapped){client, (probe_process_fn)(void *)xrun, arg, 0, 0, 0};
    return real_jack_set_xrun_callback(client, counted_xrun, w);
}

/* ------------------------------------------------------------------------------------------ */
/* resolving the real functions                                                                */

/* dlsym may call calloc/malloc before the real allocator is known: serve those from here. */
static char arena[1 << 16] __attribute__((aligned(64)));
static _Atomic size_t arena_used;
static TLS int resolving;

static void *arena_alloc(size_t size, size_t align) {
    if (align < 16)
        align = 16;
    size_t header = align; /* keeps the size just before the block, and the alignment */
    for (;;) {
        size_t used = atomic_load(&arena_used);
        size_t start = (used + header + align - 1) & ~(align - 1);
        if (start + size > sizeof arena)
            return NULL;
        if (atomic_compare_exchange_weak(&arena_used, &used, start + size)) {
            ((size_t *)(arena + start))[-1] = size;
            return arena + start;
        }
    }
}

static int in_arena(const void *p) {
    return (const char *)p >= arena && (const char *)p < arena + sizeof arena;
}

#define REAL(name) real_##name
#define DECLARE_REAL(ret, name, ...) static ret (*real_##name)(__VA_ARGS__)

DECLARE_REAL(void *, malloc, size_t);
DECLARE_REAL(void *, calloc, size_t, size_t);
DECLARE_REAL(void *, realloc, void *, size_t);
DECLARE_REAL(void, free, void *);
DECLARE_REAL(int, posix_memalign, void **, size_t, size_t);
DECLARE_REAL(void *, aligned_alloc, size_t, size_t);
DECLARE_REAL(void *, memalign, size_t, size_t);
DECLARE_REAL(void *, valloc, size_t);
DECLARE_REAL(void *, pvalloc, size_t);
DECLARE_REAL(int, pthread_mutex_lock, pthread_mutex_t *);
DECLARE_REAL(int, pthread_mutex_trylock, pthread_mutex_t *);
DECLARE_REAL(int, pthread_mutex_timedlock, pthread_mutex_t *, const struct timespec *);
DECLARE_REAL(int, pthread_rwlock_rdlock, pthread_rwlock_t *);
DECLARE_REAL(int, pthread_rwlock_wrlock, pthread_rwlock_t *);
DECLARE_REAL(int, pthread_rwlock_tryrdlock, pthread_rwlock_t *);
DECLARE_REAL(int, pthread_rwlock_trywrlock, pthread_rwlock_t *);
DECLARE_REAL(int, pthread_rwlock_timedrdlock, pthread_rwlock_t *, const struct timespec *);
DECLARE_REAL(int, pthread_rwlock_timedwrlock, pthread_rwlock_t *, const struct timespec *);
DECLARE_REAL(int, pthread_spin_lock, pthread_spinlock_t *);
DECLARE_REAL(int, pthread_cond_wait, pthread_cond_t *, pthread_mutex_t *);
DECLARE_REAL(int, pthread_cond_timedwait, pthread_cond_t *, pthread_mutex_t *,
             const struct timespec *);
DECLARE_REAL(int, sem_wait, sem_t *);
DECLARE_REAL(int, sem_timedwait, sem_t *, const struct timespec *);
DECLARE_REAL(int, sem_trywait, sem_t *);
DECLARE_REAL(long, syscall, long, long, long, long, long, long, long);
DECLARE_REAL(ssize_t, read, int, void *, size_t);
DECLARE_REAL(ssize_t, write, int, const void *, size_t);
DECLARE_REAL(ssize_t, pread64, int, void *, size_t, off_t);
DECLARE_REAL(ssize_t, pwrite64, int, const void *, size_t, off_t);
DECLARE_REAL(ssize_t, readv, int, const struct iovec *, int);
DECLARE_REAL(ssize_t, writev, int, const struct iovec *, int);
DECLARE_REAL(int, open, const char *, int, ...);
DECLARE_REAL(int, open64, const char *, int, ...);
DECLARE_REAL(int, openat, int, const char *, int, ...);
DECLARE_REAL(int, openat64, int, const char *, int, ...);
DECLARE_REAL(int, close, int);
DECLARE_REAL(FILE *, fopen, const char *, const char *);
DECLARE_REAL(ssize_t, recv, int, void *, size_t, int);
DECLARE_REAL(ssize_t, recvfrom, int, void *, size_t, int, struct sockaddr *, socklen_t *);
DECLARE_REAL(ssize_t, recvmsg, int, struct msghdr *, int);
DECLARE_REAL(ssize_t, send, int, const void *, size_t, int);
DECLARE_REAL(ssize_t, sendto, int, const void *, size_t, int, const struct sockaddr *, socklen_t);
DECLARE_REAL(ssize_t, sendmsg, int, const struct msghdr *, int);
DECLARE_REAL(int, poll, struct pollfd *, nfds_t, int);
DECLARE_REAL(int, ppoll, struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
DECLARE_REAL(int, select, int, fd_set *, fd_set *, fd_set *, struct timeval *);
DECLARE_REAL(int, pselect, int, fd_set *, fd_set *, fd_set *, const struct timespec *,
             const sigset_t *);
DECLARE_REAL(int, epoll_wait, int, struct epoll_event *, int, int);
DECLARE_REAL(int, nanosleep, const struct timespec *, struct timespec *);
DECLARE_REAL(int, usleep, useconds_t);
DECLARE_REAL(unsigned, sleep, unsigned);
DECLARE_REAL(int, clock_nanosleep, clockid_t, int, const struct timespec *, struct timespec *);
DECLARE_REAL(int, sched_yield, void);
DECLARE_REAL(size_t, fwrite, const void *, size_t, size_t, FILE *);
DECLARE_REAL(int, fputs, const char *, FILE *);
DECLARE_REAL(int, puts, const char *);
DECLARE_REAL(int, fputc, int, FILE *);
DECLARE_REAL(int, putchar, int);
DECLARE_REAL(int, fflush, FILE *);
DECLARE_REAL(int, vprintf, const char *, va_list);
DECLARE_REAL(int, vfprintf, FILE *, const char *, va_list);
DECLARE_REAL(void, flockfile, FILE *);

static void *lookup(const char *name) {
    resolving++;
    void *p = NULL;
    /* the condition variables exist in two versions; the plain lookup may give the old one */
    if (!strncmp(name, "pthread_cond_", 13))
        p = dlvsym(RTLD_NEXT, name, "GLIBC_2.3.2");
    if (!p)
        p = dlsym(RTLD_NEXT, name);
    resolving--;
    return p;
}

#define RESOLVE(name)                                                                           \
    do {                                                                                        \
        if (!real_##name)                                                                       \
            *(void **)&real_##name = lookup(#name);                                             \
    } while (0)

static void resolve_all(void) {
    RESOLVE(malloc); RESOLVE(calloc); RESOLVE(realloc); RESOLVE(free);
    RESOLVE(posix_memalign); RESOLVE(aligned_alloc); RESOLVE(memalign); RESOLVE(valloc);
    RESOLVE(pvalloc);
    RESOLVE(pthread_mutex_lock); RESOLVE(pthread_mutex_trylock); RESOLVE(pthread_mutex_timedlock);
    RESOLVE(pthread_rwlock_rdlock); RESOLVE(pthread_rwlock_wrlock);
    RESOLVE(pthread_rwlock_tryrdlock); RESOLVE(pthread_rwlock_trywrlock);
    RESOLVE(pthread_rwlock_timedrdlock); RESOLVE(pthread_rwlock_timedwrlock);
    RESOLVE(pthread_spin_lock); RESOLVE(pthread_cond_wait); RESOLVE(pthread_cond_timedwait);
    RESOLVE(sem_wait); RESOLVE(sem_timedwait); RESOLVE(sem_trywait); RESOLVE(syscall);
    RESOLVE(read); RESOLVE(write); RESOLVE(pread64); RESOLVE(pwrite64); RESOLVE(readv);
    RESOLVE(writev); RESOLVE(open); RESOLVE(open64); RESOLVE(openat); RESOLVE(openat64);
    RESOLVE(close); RESOLVE(fopen); RESOLVE(recv); RESOLVE(recvfrom); RESOLVE(recvmsg);
    RESOLVE(send); RESOLVE(sendto); RESOLVE(sendmsg); RESOLVE(poll); RESOLVE(ppoll);
    RESOLVE(select); RESOLVE(pselect); RESOLVE(epoll_wait); RESOLVE(nanosleep); RESOLVE(usleep);
    RESOLVE(sleep); RESOLVE(clock_nanosleep); RESOLVE(sched_yield); RESOLVE(fwrite);
    RESOLVE(fputs); RESOLVE(puts); RESOLVE(fputc); RESOLVE(putchar); RESOLVE(fflush);
    RESOLVE(vprintf); RESOLVE(vfprintf); RESOLVE(flockfile);
}

__attribute__((constructor)) static void probe_init(void) {
    resolve_all();
    /* load the unwinder now, so that the first backtrace in the realtime thread does not */
    void *frames[4];
    in_probe = 1;
    backtrace(frames, 4);
    in_probe = 0;
    backtrace_ready = 1;
}

/* ------------------------------------------------------------------------------------------ */
/* allocation                                                                                  */

EXPORT void *malloc(size_t size) {
    if (!real_malloc) {
        if (resolving)
            return arena_alloc(size, 16);
        RESOLVE(malloc);
    }
    note(F_malloc);
    return real_malloc(size);
}

EXPORT void *calloc(size_t n, size_t size) {
    if (!real_calloc) {
        if (resolving) {
            if (size && n > SIZE_MAX / size)
                return NULL;
            return arena_alloc(n * size, 16); /* static storage: already zero */
        }
        RESOLVE(calloc);
    }
    note(F_calloc);
    return real_calloc(n, size);
}

EXPORT void *realloc(void *p, size_t size) {
    if (in_arena(p)) {
        size_t old = ((size_t *)p)[-1];
        void *q = malloc(size);
        if (q)
            memcpy(q, p, old < size ? old : size);
        return q;
    }
    if (!real_realloc) {
        if (resolving)
            return arena_alloc(size, 16);
        RESOLVE(realloc);
    }
    note(F_realloc);
    return real_realloc(p, size);
}

EXPORT void free(void *p) {
    if (!p) {
        note(F_free_null);
        return;
    }
    if (in_arena(p))
        return;
    RESOLVE(free);
    note(F_free);
    real_free(p);
}

EXPORT int posix_memalign(void **out, size_t align, size_t size) {
    if (!real_posix_memalign && resolving) {
        *out = arena_alloc(size, align);
        return *out ? 0 : ENOMEM;
    }
    RESOLVE(posix_memalign);
    note(F_posix_memalign);
    return real_posix_memalign(out, align, size);
}

EXPORT void *aligned_alloc(size_t align, size_t size) {
    if (!real_aligned_alloc && resolving)
        return arena_alloc(size, align);
    RESOLVE(aligned_alloc);
    note(F_aligned_alloc);
    return real_aligned_alloc(align, size);
}

EXPORT void *memalign(size_t align, size_t size) {
    if (!real_memalign && resolving)
        return arena_alloc(size, align);
    RESOLVE(memalign);
    note(F_memalign);
    return real_memalign(align, size);
}

EXPORT void *valloc(size_t size) {
    RESOLVE(valloc);
    note(F_valloc);
    return real_valloc(size);
}

EXPORT void *pvalloc(size_t size) {
    RESOLVE(pvalloc);
    note(F_pvalloc);
    return real_pvalloc(size);
}

/* ------------------------------------------------------------------------------------------ */
/* locks and waits                                                                             */

#define WRAP1(ret, name, t1)                                                                    \
    EXPORT ret name(t1 a) {                                                                     \
        RESOLVE(name);                                                                          \
        note(F_##name);                                                                         \
        return real_##name(a);                                                                  \
    }
#define WRAP2(ret, name, t1, t2)                                                                \
    EXPORT ret name(t1 a, t2 b) {                                                               \
        RESOLVE(name);                                                                          \
        note(F_##name);                                                                         \
        return real_##name(a, b);                                                               \
    }
#define WRAP3(ret, name, t1, t2, t3)                                                            \
    EXPORT ret name(t1 a, t2 b, t3 c) {                                                         \
        RESOLVE(name);                                                                          \
        note(F_##name);                                                                         \
        return real_##name(a, b, c);                                                            \
    }
#define WRAP4(ret, name, t1, t2, t3, t4)                                                        \
    EXPORT ret name(t1 a, t2 b, t3 c, t4 d) {                                                   \
        RESOLVE(name);                                                                          \
        note(F_##name);                                                                         \
        return real_##name(a, b, c, d);                                                         \
    }
#define WRAP5(ret, name, t1, t2, t3, t4, t5)                                                    \
    EXPORT ret name(t1 a, t2 b, t3 c, t4 d, t5 e) {                                             \
        RESOLVE(name);                                                                          \
        note(F_##name);                                                                         \
        return real_##name(a, b, c, d, e);                                                      \
    }
#define WRAP6(ret, name, t1, t2, t3, t4, t5, t6)                                                \
    EXPORT ret name(t1 a, t2 b, t3 c, t4 d, t5 e, t6 f) {                                       \
        RESOLVE(name);                                                                          \
        note(F_##name);                                                                         \
        return real_##name(a, b, c, d, e, f);                                                   \
    }

WRAP1(int, pthread_mutex_lock, pthread_mutex_t *)
WRAP1(int, pthread_mutex_trylock, pthread_mutex_t *)
WRAP2(int, pthread_mutex_timedlock, pthread_mutex_t *, const struct timespec *)
WRAP1(int, pthread_rwlock_rdlock, pthread_rwlock_t *)
WRAP1(int, pthread_rwlock_wrlock, pthread_rwlock_t *)
WRAP1(int, pthread_rwlock_tryrdlock, pthread_rwlock_t *)
WRAP1(int, pthread_rwlock_trywrlock, pthread_rwlock_t *)
WRAP2(int, pthread_rwlock_timedrdlock, pthread_rwlock_t *, const struct timespec *)
WRAP2(int, pthread_rwlock_timedwrlock, pthread_rwlock_t *, const struct timespec *)
WRAP1(int, pthread_spin_lock, pthread_spinlock_t *)
WRAP2(int, pthread_cond_wait, pthread_cond_t *, pthread_mutex_t *)
WRAP3(int, pthread_cond_timedwait, pthread_cond_t *, pthread_mutex_t *, const struct timespec *)
WRAP1(int, sem_wait, sem_t *)
WRAP2(int, sem_timedwait, sem_t *, const struct timespec *)
WRAP1(int, sem_trywait, sem_t *)

/* futexes used directly (Swift's Synchronization.Mutex, hand-written locks) */
EXPORT long syscall(long number, ...) {
    va_list ap;
    va_start(ap, number);
    long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long);
    long d = va_arg(ap, long), e = va_arg(ap, long), f = va_arg(ap, long);
    va_end(ap);
    RESOLVE(syscall);
    if (number == SYS_futex) {
        int op = (int)b & FUTEX_CMD_MASK;
        if (op == FUTEX_WAKE || op == FUTEX_WAKE_OP || op == FUTEX_WAKE_BITSET ||
            op == FUTEX_UNLOCK_PI)
            note(F_futex_wake);
        else
            note(F_futex_wait);
    } else {
        note(F_syscall_other);
    }
    return real_syscall(number, a, b, c, d, e, f);
}

/* ------------------------------------------------------------------------------------------ */
/* I/O and sleeping                                                                            */

WRAP3(ssize_t, read, int, void *, size_t)
WRAP3(ssize_t, write, int, const void *, size_t)
WRAP4(ssize_t, pread64, int, void *, size_t, off_t)
WRAP4(ssize_t, pwrite64, int, const void *, size_t, off_t)
WRAP3(ssize_t, readv, int, const struct iovec *, int)
WRAP3(ssize_t, writev, int, const struct iovec *, int)
WRAP1(int, close, int)
WRAP2(FILE *, fopen, const char *, const char *)
WRAP4(ssize_t, recv, int, void *, size_t, int)
WRAP6(ssize_t, recvfrom, int, void *, size_t, int, struct sockaddr *, socklen_t *)
WRAP3(ssize_t, recvmsg, int, struct msghdr *, int)
WRAP4(ssize_t, send, int, const void *, size_t, int)
WRAP6(ssize_t, sendto, int, const void *, size_t, int, const struct sockaddr *, socklen_t)
WRAP3(ssize_t, sendmsg, int, const struct msghdr *, int)
WRAP3(int, poll, struct pollfd *, nfds_t, int)
WRAP4(int, ppoll, struct pollfd *, nfds_t, const struct timespec *, const sigset_t *)
WRAP5(int, select, int, fd_set *, fd_set *, fd_set *, struct timeval *)
WRAP6(int, pselect, int, fd_set *, fd_set *, fd_set *, const struct timespec *, const sigset_t *)
WRAP4(int, epoll_wait, int, struct epoll_event *, int, int)
WRAP2(int, nanosleep, const struct timespec *, struct timespec *)
WRAP1(int, usleep, useconds_t)
WRAP1(unsigned, sleep, unsigned)
WRAP4(int, clock_nanosleep, clockid_t, int, const struct timespec *, struct timespec *)
EXPORT int sched_yield(void) {
    RESOLVE(sched_yield);
    note(F_sched_yield);
    return real_sched_yield();
}
WRAP4(size_t, fwrite, const void *, size_t, size_t, FILE *)
WRAP2(int, fputs, const char *, FILE *)
WRAP1(int, puts, const char *)
WRAP2(int, fputc, int, FILE *)
WRAP1(int, putchar, int)
WRAP1(int, fflush, FILE *)
WRAP2(int, vprintf, const char *, va_list)
WRAP3(int, vfprintf, FILE *, const char *, va_list)
EXPORT void flockfile(FILE *f) {
    RESOLVE(flockfile);
    note(F_flockfile);
    real_flockfile(f);
}

EXPORT int printf(const char *fmt, ...) {
    RESOLVE(vprintf);
    note(F_printf);
    va_list ap;
    va_start(ap, fmt);
    int n = real_vprintf(fmt, ap);
    va_end(ap);
    return n;
}

EXPORT int fprintf(FILE *f, const char *fmt, ...) {
    RESOLVE(vfprintf);
    note(F_fprintf);
    va_list ap;
    va_start(ap, fmt);
    int n = real_vfprintf(f, fmt, ap);
    va_end(ap);
    return n;
}

static int needs_mode(int flags) {
#ifdef O_TMPFILE
    if ((flags & O_TMPFILE) == O_TMPFILE)
        return 1;
#endif
    return (flags & O_CREAT) != 0;
}

#define OPEN_WRAPPER(name)                                                                      \
    EXPORT int name(const char *path, int flags, ...) {                                         \
        mode_t mode = 0;                                                                        \
        if (needs_mode(flags)) {                                                                \
            va_list ap;                                                                         \
            va_start(ap, flags);                                                                \
            mode = (mode_t)va_arg(ap, int);                                                     \
            va_end(ap);                                                                         \
        }                                                                                       \
        RESOLVE(name);                                                                          \
        note(F_##name);                                                                         \
        return real_##name(path, flags, mode);                                                  \
    }
#define OPENAT_WRAPPER(name)                                                                    \
    EXPORT int name(int dir, const char *path, int flags, ...) {                                \
        mode_t mode = 0;                                                                        \
        if (needs_mode(flags)) {                                                                \
            va_list ap;                                                                         \
            va_start(ap, flags);                                                                \
            mode = (mode_t)va_arg(ap, int);                                                     \
            va_end(ap);                                                                         \
        }                                                                                       \
        RESOLVE(name);                                                                          \
        note(F_##name);                                                                         \
        return real_##name(dir, path, flags, mode);                                             \
    }
OPEN_WRAPPER(open)
OPEN_WRAPPER(open64)
OPENAT_WRAPPER(openat)
OPENAT_WRAPPER(openat64)

/* ------------------------------------------------------------------------------------------ */
/* the report                                                                                  */

static void put_json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void put_frame(FILE *f, void *addr) {
    Dl_info info;
    char buf[1024];
    if (dladdr(addr, &info) && info.dli_fname) {
        const char *module = strrchr(info.dli_fname, '/');
        module = module ? module + 1 : info.dli_fname;
        unsigned long offset = (unsigned long)((char *)addr - (char *)info.dli_fbase);
        if (info.dli_sname)
            snprintf(buf, sizeof buf, "%s+0x%lx %s+0x%lx", module, offset, info.dli_sname,
                     (unsigned long)((char *)addr - (char *)info.dli_saddr));
        else
            snprintf(buf, sizeof buf, "%s+0x%lx", module, offset);
    } else {
        snprintf(buf, sizeof buf, "%p", addr);
    }
    put_json_string(f, buf);
}

__attribute__((destructor)) static void probe_report(void) {
    in_probe = 1; /* our own output is not the audio thread's */
    unsigned long cat[CAT_COUNT] = {0};
    for (int i = 0; i < F_COUNT; i++)
        cat[func_cats[i]] += atomic_load(&func_counts[i]);

    /* Children of the probed process inherit LD_PRELOAD and RACK_PROBE_OUT: a process that ran
     * no cycle never overwrites an existing report, and without RACK_PROBE_OUT only a process that
     * ran cycles reports (on stderr). */
    unsigned long ncycles = atomic_load(&cycles);
    const char *path = getenv("RACK_PROBE_OUT");
    FILE *f;
    if (path && *path) {
        if (ncycles == 0 && access(path, F_OK) == 0)
            return;
        f = fopen(path, "w");
        if (!f)
            f = stderr;
    } else {
        if (ncycles == 0)
            return;
        f = stderr;
    }
    fprintf(f, "{\"cycles\": %lu, \"malloc\": %lu, \"free\": %lu, \"lock\": %lu, \"io\": %lu",
            ncycles, cat[CAT_MALLOC], cat[CAT_FREE], cat[CAT_LOCK], cat[CAT_IO]);
    fprintf(f, ", \"details\": {\"threads\": %d, \"unbalanced\": %lu, \"max_cycle_us\": %.1f",
            atomic_load(&rt_threads), atomic_load(&unbalanced),
            atomic_load(&max_cycle_ns) / 1000.0);
    fprintf(f, ", \"callback\": {\"cycles\": %lu, \"period_us\": %.1f, \"max_us\": %.1f, "
               "\"max_cpu_us\": %.1f, \"max_fraction\": %.4f, \"percent\": [",
            atomic_load(&cb_cycles), atomic_load(&cb_period_ns) / 1000.0,
            atomic_load(&cb_max_ns) / 1000.0, atomic_load(&cb_max_cpu_ns) / 1000.0,
            atomic_load(&cb_max_fraction_ppm) / 1e6);
    for (int i = 0; i < PERCENT_BUCKETS; i++)
        fprintf(f, "%s%lu", i ? ", " : "", atomic_load(&cb_percent[i]));
    fprintf(f, "], \"cpu_percent\": [");
    for (int i = 0; i < PERCENT_BUCKETS; i++)
        fprintf(f, "%s%lu", i ? ", " : "", atomic_load(&cb_cpu_percent[i]));
    unsigned long ngaps = atomic_load(&cb_gaps);
    fprintf(f, "], \"gaps\": %lu, \"missed_frames\": %lu, \"xruns\": %lu, \"first_gaps\": [", ngaps,
            atomic_load(&cb_missed), atomic_load(&cb_xruns));
    for (unsigned long i = 0; i < ngaps && i < MAX_GAPS; i++)
        fprintf(f, "%s{\"cycle\": %lu, \"frame\": %u, \"missed\": %u}", i ? ", " : "", gaps[i].cycle,
                gaps[i].frame, gaps[i].missed);
    fprintf(f, "]}");
    fprintf(f, ", \"calls\": {");
    int first = 1;
    for (int i = 0; i < F_COUNT; i++) {
        unsigned long n = atomic_load(&func_counts[i]);
        if (!n)
            continue;
        fprintf(f, "%s\"%s\": %lu", first ? "" : ", ", func_names[i], n);
        first = 0;
    }
    fprintf(f, "}, \"first_offenders\": [");
    int n = atomic_load(&n_offenders);
    if (n > MAX_OFFENDERS)
        n = MAX_OFFENDERS;
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s{\"call\": \"%s\", \"stack\": [", i ? ", " : "", func_names[offenders[i].func]);
        /* frame 0 is note(), frame 1 the wrapper: start at the caller */
        for (int k = 2; k < offenders[i].nframes; k++) {
            if (k > 2)
                fputs(", ", f);
            put_frame(f, offenders[i].frames[k]);
        }
        fputs("]}", f);
    }
    fputs("]}}\n", f);
    if (f != stderr)
        fclose(f);
    const char *cycles_path = getenv("RACK_PROBE_CYCLES");
    unsigned long ncb = atomic_load(&cb_cycles);
    FILE *c = cycles_path && *cycles_path && ncb ? fopen(cycles_path, "w") : NULL;
    if (c) {
        for (unsigned long i = ncb > FRAME_LOG ? ncb - FRAME_LOG : 0; i < ncb; i++)
            fprintf(c, "%u\n", frame_log[i % FRAME_LOG]);
        fclose(c);
    }
}

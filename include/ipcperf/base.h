/* SPDX-License-Identifier: MIT */
/*
 * The base every layer stands on: numbers with units as people type and
 * read them (sizes, counts, times, rates), the monotonic clock, the
 * process's descriptor limit, how a side's work is stopped and the
 * library's helper threads are started, and reading an input file whole.
 * Like stats, it is used by all layers and
 * uses none; it is a layer of its own because none of this is statistics,
 * and because link (below pattern) parses times and rates, so units cannot
 * live in cli or report.  docs/architecture.md has the layer order.
 */
#ifndef IPCPERF_BASE_H
#define IPCPERF_BASE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h> /* timer_t under strict ISO C too */
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Numbers with units.  One syntax for every option, the --link items and
 * the man page's SIZES, COUNTS AND TIMES:
 *
 *   NUMBER[UNIT]   digits, with a fraction (".5") for times and rates only;
 *                  no sign, no space anywhere, no hex, no exponent
 *
 *   kind     base      units (any case)                         no unit
 *   size     bytes     k, M, G = 1024-based; "B", "kB", "KiB" too  bytes
 *   count    1         k, M, G = 1000-based                        1
 *   time     ns        ns, us (µs), ms, s, m (min), h              seconds
 *   bitrate  bit/s     bit, kbit, mbit, gbit = 1000-based          bit/s
 *   percent  ppm       % (1% = 10000 ppm)                          refused
 *   pct      ppm       % (for options that are percentages)        percent
 *
 * The syntax is the same everywhere; the range a value may take is the
 * caller's (a delay may be 0, a duration may not).  A value typed as more
 * than 0 that rounds to 0 ("0.1ns") is refused rather than taken as 0.
 */
enum ipc_unit_kind {
	IPC_UNIT_SIZE = 0,
	IPC_UNIT_COUNT,
	IPC_UNIT_TIME,
	IPC_UNIT_BITRATE,
	IPC_UNIT_PERCENT,
	IPC_UNIT_PCT,
};

/*
 * Parse @s as a number of @kind in [@min, @max] (in the kind's base unit)
 * into *out.  Returns 0, or -EINVAL with one sentence in @err naming the
 * bad value and why ("bad time ' -1ms': a space is not allowed"); *out is
 * then unchanged.
 */
int ipc_units_parse(enum ipc_unit_kind kind, const char *s, uint64_t min,
		    uint64_t max, uint64_t *out, char *err, size_t err_len);

#define IPC_UNITS_LIST_MAX 4096 /* values in one list */

/* A list of values, in the order given, duplicates dropped. */
struct ipc_u64_list {
	uint64_t *v;
	size_t n;
};

/*
 * Parse a comma-separated list of values and ranges of @kind, each value
 * in [@min, @max]:
 *
 *   0,4,8          the values
 *   0..1024        0, then powers of two up to 1024
 *   64..4096       64, 128, ... 4096 (doubling; the end is always there)
 *   64..4096:x4    64, 256, 1024, 4096 (a whole factor of at least 2)
 *   0..100:+10     0, 10, ... 100 (a step of the list's kind: 0..1M:+64k)
 *
 * Returns 0 with @out allocated (free it with ipc_u64_list_free), or
 * -EINVAL (or -ENOMEM) with one sentence in @err and @out empty.
 */
int ipc_units_parse_list(enum ipc_unit_kind kind, const char *s, uint64_t min,
			 uint64_t max, struct ipc_u64_list *out, char *err,
			 size_t err_len);

/* Free the values of @l and empty it; an empty list is a no-op. */
void ipc_u64_list_free(struct ipc_u64_list *l);

/*
 * Copy @src into @dst (@dst_len bytes, NUL-terminated) for one line of a
 * terminal or a log: printable ASCII and other UTF-8 characters as they
 * are; control bytes as \n, \t, \r or \xNN, bytes that are not UTF-8
 * as \xNN, and the code points that change how a line shows (C1
 * controls, bidirectional overrides such as U+202E, U+2028 and U+2029,
 * zero-width marks, U+FEFF) as \uNNNN.  With IPC_TEXT_ASCII every
 * non-ASCII character is escaped so.  A copy that does not fit ends
 * before the first character or escape that would not fit whole.
 * Returns the bytes written.
 */
#define IPC_TEXT_ASCII (1u << 0)
size_t ipc_text_escape(char *dst, size_t dst_len, const char *src,
		       unsigned flags);

/*
 * The length of @s cut to at most @max bytes at a character boundary
 * (UTF-8), so that a cut text stays valid.
 */
size_t ipc_text_cut(const char *s, size_t max);

/*
 * Human units for tables, with three significant digits: "812 ns",
 * "4.91 µs", "1.25 ms", "3.2 s"; "64 B", "4 KiB", "1.5 MiB"; "18.4 k/s",
 * "2.1 M/s"; rates of bytes as "812 MiB/s".  A value that is negative or
 * not finite prints as "-".  Each writes into @buf (@len bytes) and
 * returns it.  JSON and CSV never come through here: they carry integers.
 */
char *ipc_fmt_ns(double ns, char *buf, size_t len);
char *ipc_fmt_bytes(double bytes, char *buf, size_t len);
char *ipc_fmt_rate(double per_s, char *buf, size_t len);
char *ipc_fmt_bps(double bytes_per_s, char *buf, size_t len);

/*
 * CLOCK_MONOTONIC now, in ns: inline where <time.h> declares the POSIX
 * clocks, out of line (ipc_clock_ns) for a user compiling as strict ISO C,
 * which hides them.
 */
uint64_t ipc_clock_ns(void);
#ifndef CLOCK_MONOTONIC
static inline uint64_t ipc_now_ns(void)
{
	return ipc_clock_ns();
}
#else
static inline uint64_t ipc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
#endif

/*
 * Raise this process's soft limit on open descriptors (RLIMIT_NOFILE) to
 * its hard limit, for patterns with many flows.  Returns the soft limit in
 * force afterwards (0 when it cannot be read); *hard (if not NULL) gets the
 * hard limit.  Changes the whole process: call it before threads that open
 * descriptors start, or accept that they see either limit.
 */
uint64_t ipc_nofile_raise(uint64_t *hard);

/* The hard limit on open descriptors (0 if unknown), changing nothing. */
uint64_t ipc_nofile_hard(void);

/*
 * Read the file @path whole into a new NUL-terminated buffer *text (*len
 * bytes, the NUL not counted; free it).  A regular file or a pipe (a FIFO,
 * /dev/stdin when it is one) is read, at most @max bytes; the open never
 * blocks, so a FIFO without a writer is -ENODATA at once.  Returns 0, or
 * -errno with "PATH: problem" in @err: -EFBIG past @max, -EISDIR, -EINVAL
 * for a device or socket, -ENODATA for a pipe that gave nothing, -ENOMEM,
 * or what open and read said.
 */
int ipc_file_read(const char *path, size_t max, char **text, size_t *len,
		  char *err, size_t err_len);

/*
 * Stopping a side.  Every wait of a side (a blocking call, poll, epoll,
 * io_uring, a spin, a futex sleep) must end soon once the side is asked to
 * stop, whichever thread asks and whenever (just before the wait began
 * too), without the wait paying for it.  A cancel carries the request in
 * three forms, one for each kind of wait:
 *
 *   ipc_cancel_fire ──┬─► fired flag ·········► spins and loops look at it
 *                     ├─► eventfd readable ····► poll, epoll, io_uring wait
 *                     │                          on it with their own fds
 *                     └─► each watching thread's timer: the wake signal
 *                         now and every 10 ms ─► a blocking call returns
 *                                                EINTR; the caller looks at
 *                                                the flag
 *
 * A thread that makes blocking calls for a side watches its cancel
 * (ipc_cancel_watch): a POSIX timer aimed at that thread alone
 * (SIGEV_THREAD_ID) then repeats the wake signal until the thread stops
 * watching, so that a stop landing just before a blocking receive is not
 * lost.  Nothing else in the process is disturbed, and nothing costs a
 * system call until the cancel is fired.  The fields are the
 * implementation's; use the functions.
 */
#define IPC_CANCEL_WATCHERS 4

struct ipc_cancel {
	int fired; /* nonzero once fired (atomic) */
	int fd;	   /* eventfd, readable once fired; -1 before init */
	struct {
		int state;     /* free, being set up, watching, leaving */
		int busy;      /* firings using the timer right now */
		timer_t timer; /* aimed at the watching thread */
	} watch[IPC_CANCEL_WATCHERS];
};

/*
 * Make @c ready (its eventfd open, not fired).  0 or -errno (nothing left
 * open).  The library's wake signal gets its handler here if it has none
 * yet (ipc_wake_signal).
 */
int ipc_cancel_init(struct ipc_cancel *c);

/*
 * Close what init opened.  No thread may watch @c any more, and nothing
 * may fire it concurrently.  Safe twice, and on a cancel whose init
 * failed.
 */
void ipc_cancel_fini(struct ipc_cancel *c);

/*
 * Ask the side to stop: set the flag, make the eventfd readable, and start
 * the timer of every watching thread (the wake signal at once, then every
 * 10 ms until that thread stops watching).  Idempotent; thread-safe and
 * async-signal-safe (atomics, write(2) and timer_settime(2) only), so a
 * signal handler may call it.
 */
void ipc_cancel_fire(struct ipc_cancel *c);

/*
 * Make a fired cancel fresh again, for the next use by its owner.  Only
 * when nothing can fire it concurrently and no thread waits on it (the
 * run re-checks its own stop right after, see ipc_run_stop).
 */
void ipc_cancel_reset(struct ipc_cancel *c);

/* Was @c fired?  One relaxed load; NULL: never.  For loops and spins. */
static inline bool ipc_cancelled(const struct ipc_cancel *c)
{
	return c && __atomic_load_n(&c->fired, __ATOMIC_RELAXED);
}

/* The descriptor to wait on (readable once fired), or -1 (NULL @c). */
static inline int ipc_cancel_fd(const struct ipc_cancel *c)
{
	return c ? c->fd : -1;
}

/*
 * The calling thread makes blocking calls for the side of @c: from now on
 * a firing interrupts them (see above), also a firing that already
 * happened.  The wake signal must not be blocked in the thread (helper
 * threads of ipc_thread_start leave it open).  Returns a watch number for
 * ipc_cancel_unwatch, or -errno: -EBUSY when IPC_CANCEL_WATCHERS threads
 * already watch, or timer_create's error.
 */
int ipc_cancel_watch(struct ipc_cancel *c);

/*
 * The thread's blocking calls for @c are over: stop and delete its timer.
 * Call it from the watching thread; @w from ipc_cancel_watch (< 0: no-op).
 */
void ipc_cancel_unwatch(struct ipc_cancel *c, int w);

/*
 * The wake signal: the one signal the library sends, SIGRTMIN + 8, always
 * aimed at one of its own threads (a watcher's timer, the blocking
 * engine's receive watchdog) or at a peer process it forked.  Its handler
 * does nothing and is installed without SA_RESTART, so that the call it
 * lands in returns EINTR.  The library
 * installs that handler once per process, the first time it needs it
 * (this is the one process-wide thing it changes), unless a handler is
 * already there: then init and watch fail with -EBUSY, since a foreign
 * handler might restart the calls it must break.
 */
int ipc_wake_signal(void);

/*
 * A POSIX timer (CLOCK_MONOTONIC) that sends the wake signal to the
 * calling thread, created disarmed into *@t: for a thread that bounds its
 * own blocking calls (the blocking engine's receive watchdog).  Installs
 * the wake signal's handler as ipc_cancel_init does.  Returns 0, or
 * -errno (-EBUSY: a foreign handler holds the signal; timer_create's
 * error).  The caller arms it (timer_settime) and deletes it
 * (timer_delete) from any thread of the process.
 */
int ipc_wake_timer_new(timer_t *t);

/*
 * Start a helper thread of the library (a peer, the link relay, load's
 * client threads, a peer's watcher) with one signal mask, whatever the
 * caller's: every signal blocked but the wake signal and the synchronous
 * faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS).  So the
 * user's Ctrl-C, SIGTERM or SIGCHLD always reach the caller's threads and
 * their handlers; the wake signal reaches a helper only when aimed at it;
 * and a write to a pipe whose reader is gone returns EPIPE to the helper,
 * its SIGPIPE left pending and dropped when the thread ends.  Returns 0
 * or -errno (pthread_create's).
 */
int ipc_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

/*
 * @n bytes from the system's cryptographic random source (libsodium's),
 * for names and tokens another local user must not guess.  Thread-safe.
 */
void ipc_random_bytes(void *buf, size_t n);

/*
 * Output that appears whole or not at all.  open() checks, before anything
 * runs, that @path can be written: a regular file (or a new one) must be
 * writable and not write-protected, and its directory one where a file can
 * be replaced; symbolic links are followed to the file they name.  The
 * report then goes to memory, and commit() writes it to a temporary file
 * next to the target, fsyncs it and renames it over the target (with the
 * old file's permissions less setuid/setgid, or 0666 less the umask); a
 * writable file in a directory that is not is truncated and written
 * instead.  A target that is not a regular file (a device, a FIFO,
 * /dev/stdout) is opened by open(), as the shell would open it, and
 * commit() writes the report into it.  abort() leaves a regular target
 * as it was.  With path "-" or NULL the
 * stream is stdout and commit/abort only flush.  Each returns 0 or -errno
 * (-EISDIR, -ENOENT, -EACCES, -EPERM, ...; -ENOSPC from commit).
 */
struct ipc_outfile {
	FILE *fp;	   /* where the report is written */
	char path[4096];   /* as given */
	char final[4096];  /* the file it names, links followed */
	char *buf;	   /* the report, until commit */
	size_t len;	   /* bytes of buf */
	unsigned mode;	   /* of the new file */
	unsigned uid, gid; /* of the old file, when owned */
	bool owned;	   /* a file was there: keep its owner (root) */
	bool late;	   /* overwrite at commit instead of a rename */
	int fd;		   /* the target, when through */
	bool through;	   /* written into fd, not renamed over */
	bool is_stdout;
};

int ipc_outfile_open(struct ipc_outfile *of, const char *path);
int ipc_outfile_commit(struct ipc_outfile *of);
void ipc_outfile_abort(struct ipc_outfile *of);

#ifdef __cplusplus
}
#endif

#endif

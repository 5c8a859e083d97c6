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

#ifdef __cplusplus
}
#endif

#endif

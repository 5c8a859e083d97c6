/*
 * The base every layer stands on: numbers with units as people type and
 * read them (sizes, counts, times, rates), the monotonic clock, the
 * process's descriptor limit, and reading an input file whole.  Like stats, it is used by all layers and
 * uses none; it is a layer of its own because none of this is statistics,
 * and because link (below pattern) parses times and rates, so units cannot
 * live in cli or report.  docs/architecture.md has the layer order.
 */
#ifndef IPCPERF_BASE_H
#define IPCPERF_BASE_H

#include <stddef.h>
#include <stdint.h>
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

/* CLOCK_MONOTONIC now, in ns. */
static inline uint64_t ipc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

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

#ifdef __cplusplus
}
#endif

#endif

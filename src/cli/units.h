/*
 * Parsing of the numbers people type: sizes with 1024-based suffixes and
 * size lists with ranges, counts with 1000-based suffixes, durations with
 * units.  Every function fills @err with one sentence naming the bad value.
 */
#ifndef IPCPERF_CLI_UNITS_H
#define IPCPERF_CLI_UNITS_H

#include <stddef.h>
#include <stdint.h>

#define UNITS_LIST_MAX 4096	    /* entries in one list */
#define UNITS_SIZE_MAX (1ull << 30) /* largest message size: 1 GiB */

struct u64_list {
	uint64_t *v; /* values, in the order given, duplicates dropped */
	size_t n;
};

void u64_list_free(struct u64_list *l);

/* "64", "4k", "1M", "1G" (k = 1024).  0 or -EINVAL. */
int parse_size(const char *s, uint64_t *out, char *err, size_t err_len);

/*
 * A comma-separated list of sizes and ranges:
 *   0,4,8          the values
 *   0..1024        0, then powers of two up to 1024
 *   64..4096       64, 128, ... 4096 (doubling; the end is always included)
 *   64..4096:x4    64, 256, 1024, 4096 (factor)
 *   0..100:+10     0, 10, ..., 100 (step)
 * Each value at most UNITS_SIZE_MAX.  0 or -EINVAL; @out is allocated.
 */
int parse_size_list(const char *s, struct u64_list *out, char *err,
		    size_t err_len);

/* "1000", "100k", "2M" (k = 1000), at least 1.  0 or -EINVAL. */
int parse_count(const char *s, uint64_t *out, char *err, size_t err_len);

/* A list of counts with the same range syntax as sizes (k = 1000). */
int parse_count_list(const char *s, struct u64_list *out, char *err,
		     size_t err_len);

/*
 * "10" (seconds), "10s", "500ms", "250us", "100ns", "2m", "1.5s"; more
 * than 0 and at most 24 hours.  0 or -EINVAL.
 */
int parse_duration(const char *s, uint64_t *ns, char *err, size_t err_len);

#endif

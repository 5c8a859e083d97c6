/* SPDX-License-Identifier: MIT */
/*
 * Interval reports on made-up samples: an interval closes only once its
 * planned end passed, its counts are the run's differences, a sample
 * longer than an interval skips the ends it overran, the last interval
 * takes what is left so that they add up to the run, full storage grows
 * the last one instead of writing past it, and each interval's
 * percentiles are of its own samples.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pattern/interval.h"

#include "../tap.h"

#define MS 1000000ull

struct fix {
	struct ipc_pctx c;
	struct ipc_ivals iv;
	struct ipc_interval v[8];
	unsigned told;
};

static void told(void *arg, const struct ipc_interval *iv)
{
	struct fix *f = arg;

	(void)iv;
	f->told++;
}

static void fix_init(struct fix *f, size_t cap)
{
	memset(f, 0, sizeof(*f));
	f->iv.len_ns = 100 * MS;
	f->iv.v = f->v;
	f->iv.cap = cap;
	f->iv.seen = ipc_hist_new();
	f->iv.tmp = ipc_hist_new();
	f->iv.on_close = told;
	f->iv.arg = f;
	f->c.ivals = &f->iv;
	f->c.hist = ipc_hist_new();
}

static void fix_fini(struct fix *f)
{
	ipc_hist_free(f->iv.seen);
	ipc_hist_free(f->iv.tmp);
	ipc_hist_free(f->c.hist);
}

/* Sample @n (1-based) of @len_ns ends at @t: 10 messages of 100 bytes. */
static void sample(struct fix *f, uint64_t n, uint64_t len_ns, uint64_t t)
{
	ipc_hist_record(f->c.hist, len_ns);
	ival_tick(&f->c, t, n, n * 10, n * 1000, 0);
}

int main(void)
{
	const uint64_t t0 = 5000 * MS;
	struct fix f;
	uint64_t n = 0, t = t0, sum;

	fix_init(&f, 8);
	ok(f.c.ival_next_ns == 0, "before the measured part: no interval");
	ival_begin(&f.c, t0);
	is_uint(f.c.ival_next_ns, "==", t0 + 100 * MS, "first end planned");
	/* 1 ms samples up to 99 ms: nothing closes. */
	for (n = 1; n <= 99; n++)
		sample(&f, n, 1 * MS, t += MS);
	is_uint(f.iv.n, "==", 0, "nothing closes before the planned end");
	sample(&f, n, 1 * MS, t += MS); /* ends at exactly 100 ms */
	is_uint(f.iv.n, "==", 1, "closes at its planned end");
	is_uint(f.v[0].start_ns, "==", 0, "the first starts at 0");
	is_uint(f.v[0].end_ns, "==", 100 * MS, "... and ends at 100 ms");
	is_uint(f.v[0].iterations, "==", 100, "100 samples in it");
	is_uint(f.v[0].messages, "==", 1000, "their messages");
	is_uint(f.v[0].bytes, "==", 100000, "their bytes");
	is_uint(f.v[0].p50_ns, ">=", 1 * MS * 127 / 128, "p50 of 1 ms samples");
	is_uint(f.v[0].p50_ns, "<=", 1 * MS * 129 / 128, "... within a bucket");
	/* One sample of 250 ms: it overran two ends. */
	n++;
	sample(&f, n, 250 * MS, t += 250 * MS);
	is_uint(f.iv.n, "==", 2, "a long sample closes one interval");
	is_uint(f.v[1].start_ns, "==", 100 * MS,
		"starting where the last ended");
	is_uint(f.v[1].iterations, "==", 1, "holding the one sample");
	is_uint(f.v[1].p99_ns, ">=", 250 * MS * 127 / 128,
		"its percentiles are its own sample's, not the run's");
	is_uint(f.c.ival_next_ns, "==", t0 + 400 * MS,
		"the next end skips the ends it overran");
	/* The run ends at 380 ms with 5 more samples, not yet closed. */
	for (int k = 0; k < 5; k++) {
		n++;
		sample(&f, n, 5 * MS, t += 5 * MS);
	}
	f.c.out.done = n;
	f.c.out.messages = n * 10;
	f.c.out.bytes = n * 1000;
	f.iv.end_ns = t + MS;
	ival_finish(&f.c);
	is_uint(f.iv.n, "==", 3, "the run's end closes the last interval");
	is_uint(f.v[2].end_ns, "==", t + MS - t0, "at the measured part's end");
	sum = 0;
	for (size_t i = 0; i < f.iv.n; i++)
		sum += f.v[i].iterations;
	is_uint(sum, "==", n, "the intervals' samples add up to the run's");
	sum = 0;
	for (size_t i = 0; i < f.iv.n; i++)
		sum += f.v[i].bytes;
	is_uint(sum, "==", n * 1000, "... and their bytes");
	is_uint(f.told, "==", 3, "each close was told once");
	is_uint(f.c.ival_next_ns, "==", 0, "no interval after the run");
	ival_finish(&f.c);
	is_uint(f.iv.n, "==", 3, "finishing twice adds nothing");
	fix_fini(&f);

	/* Storage of 2: the third interval grows the second. */
	fix_init(&f, 2);
	t = t0;
	ival_begin(&f.c, t0);
	for (n = 1; n <= 500; n++)
		sample(&f, n, 1 * MS, t += MS);
	is_uint(f.iv.n, "==", 2, "never more intervals than the storage holds");
	is_uint(f.v[0].iterations + f.v[1].iterations, "==", 500,
		"a grown last interval still adds up");
	is_uint(f.v[1].end_ns, "==", 500 * MS, "and ends at the last close");
	fix_fini(&f);

	/* Nothing without intervals. */
	memset(&f, 0, sizeof(f));
	ival_begin(&f.c, t0);
	ival_tick(&f.c, t0 + 1000 * MS, 1, 1, 1, 0);
	ival_finish(&f.c);
	ok(f.c.ival_next_ns == 0, "a client without -i closes nothing");
	return done_testing();
}

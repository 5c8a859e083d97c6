/* SPDX-License-Identifier: MIT */
/*
 * Interval reports (-i) inside the pattern loops: the loops look at the
 * clock they already read at the end of each sample, and close an
 * interval only when its planned end has passed, so that no message pays
 * for them.  The runner closes the last one with the run's totals.
 */
#ifndef IPCPERF_PATTERN_INTERVAL_H
#define IPCPERF_PATTERN_INTERVAL_H

#include "ipcperf/pattern.h"

/* The measured part starts at @t0: the first interval begins. */
void ival_begin(struct ipc_pctx *c, uint64_t t0);

/*
 * Close the interval that ends at @t1, with the measured part's
 * cumulative counts so far (@iters samples, @msgs messages, @bytes
 * bytes, @lost lost), and plan the next one.  Once the storage is full,
 * the last interval grows instead.
 */
void ival_close(struct ipc_pctx *c, uint64_t t1, uint64_t iters, uint64_t msgs,
		uint64_t bytes, uint64_t lost);

/*
 * After a sample that ended at @t1: close the interval if its end passed.
 * One compare per sample; nothing else unless an interval ends.
 */
static inline void ival_tick(struct ipc_pctx *c, uint64_t t1, uint64_t iters,
			     uint64_t msgs, uint64_t bytes, uint64_t lost)
{
	if (__builtin_expect(c->ival_next_ns && t1 >= c->ival_next_ns, 0))
		ival_close(c, t1, iters, msgs, bytes, lost);
}

/*
 * The run is over (its counts in c->out): close the last interval at the
 * measured part's end with what the run counted beyond the intervals
 * closed so far, so that the intervals add up to the run.  Nothing
 * without intervals.
 */
void ival_finish(struct ipc_pctx *c);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Server-side testing aids (struct ipc_faults) and the sequence-number
 * arithmetic that loss accounting needs.  A message carries the low
 * min(len, 8) bytes of its sequence number, so a receiver that knows which
 * number it expects next recovers the full number from the truncated one:
 * the candidate nearest to what it expected.
 */
#ifndef IPCPERF_PATTERN_FAULT_H
#define IPCPERF_PATTERN_FAULT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "ipcperf/pattern.h"

/*
 * Drop the @i-th request or message (0-based)?  PCT percent of them,
 * spread evenly: the first n include exactly floor(n * PCT / 100) drops,
 * so a test knows the count in advance (50: every second one).
 */
static inline bool fault_drop(const struct ipc_faults *f, uint64_t i)
{
	uint64_t p = f->drop_pct;

	if (!p)
		return false;
	if (p >= 100)
		return true;
	return (i + 1) * p / 100 > i * p / 100;
}

/* Before answering the @i-th request (0-based): stall if it is due. */
static inline void fault_stall(const struct ipc_faults *f, uint64_t i)
{
	struct timespec ts;

	if (!f->stall_every || !f->stall_ns || (i + 1) % f->stall_every)
		return;
	ts.tv_sec = (time_t)(f->stall_ns / 1000000000u);
	ts.tv_nsec = (long)(f->stall_ns % 1000000000u);
	while (nanosleep(&ts, &ts) && ts.tv_sec | ts.tv_nsec)
		;
}

/* The low min(@len, 8) bytes of the sequence number at the start of @buf. */
static inline uint64_t seq_read(const uint8_t *buf, size_t len)
{
	size_t n = len < 8 ? len : 8;
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)buf[i] << (8 * i);
	return v;
}

/*
 * The full number nearest to @expect whose low @bytes bytes are @low
 * (@bytes 1..8); @expect itself when @bytes is 0 (nothing to go by).
 */
static inline uint64_t seq_full(uint64_t low, unsigned bytes, uint64_t expect)
{
	uint64_t mask, diff;

	if (!bytes)
		return expect;
	if (bytes >= 8)
		return low;
	mask = (1ull << (8 * bytes)) - 1;
	diff = (low - expect) & mask;
	if (diff > mask / 2)
		return expect - ((mask + 1) - diff); /* behind @expect */
	return expect + diff;
}

/* Do the low @bytes bytes of @a and @b agree? */
static inline bool seq_same(uint64_t a, uint64_t b, unsigned bytes)
{
	if (bytes >= 8)
		return a == b;
	return !((a ^ b) & ((1ull << (8 * bytes)) - 1));
}

/*
 * A receiver's view of a numbered stream of messages: how many arrived and
 * how many arrived after a later one (reordered), iperf3-style.
 */
struct seqtrack {
	uint64_t next;	    /* the number expected next */
	uint64_t received;  /* messages counted */
	uint64_t reordered; /* messages older than one already seen */
	unsigned bytes;	    /* sequence bytes each message carries, 0..8 */
};

static inline void seq_note(struct seqtrack *t, const uint8_t *buf)
{
	uint64_t s;

	t->received++;
	if (!t->bytes) {
		t->next++;
		return;
	}
	s = seq_full(seq_read(buf, t->bytes), t->bytes, t->next);
	if ((int64_t)(s - t->next) < 0)
		t->reordered++;
	else
		t->next = s + 1;
}

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The schedule of one direction of an emulated link: when each piece that
 * entered the relay must leave it.  A piece waits for the line to be free,
 * takes (bytes + overhead) x bits_per_byte / rate on it, then the one-way
 * delay with its jitter; it never leaves before the piece ahead of it.
 *
 *   arrival ─┬─ wait for the line ─┬─ on the line ─┬─ delay ± jitter ─ due
 *            now             busy_until        busy_until'
 *
 * Worked example: 480 bytes at baud=9600 take 480 x 10 / 9600 = 0.5 s of
 * line time; with delay=5ms they are due 0.505 s after they arrived.
 */
#include "ipcperf/link.h"
#include "ipcperf/stats.h"
#include "link/lib_internal.h"

void ipc_shaper_init(struct ipc_shaper *s, const struct ipc_link *l,
		     uint64_t seed)
{
	s->l = l;
	s->busy_until_ns = 0;
	s->last_due_ns = 0;
	s->frac = 0;
	s->rng = seed;
}

/*
 * Line time of @bytes in ns, carrying the remainder from piece to piece so
 * that many small pieces add up to exactly the time of their total (1-byte
 * writes at 9600 baud are 1041666.67 ns each, not 1041666).
 */
static uint64_t line_ns(struct ipc_shaper *s, size_t bytes)
{
	const struct ipc_link *l = s->l;
	unsigned __int128 num;
	uint64_t ns;

	if (!l->rate_bps)
		return 0;
	num = (unsigned __int128)((uint64_t)bytes + l->overhead) *
		      l->bits_per_byte * 1000000000ull +
	      s->frac;
	ns = (uint64_t)(num / l->rate_bps);
	s->frac = (uint64_t)(num % l->rate_bps);
	return ns;
}

uint64_t ipc_shaper_due(struct ipc_shaper *s, uint64_t now_ns, size_t bytes,
			bool may_drop, bool *drop)
{
	const struct ipc_link *l = s->l;
	uint64_t start, due, delay = l->delay_ns;

	if (now_ns > s->busy_until_ns) {
		/* An idle line starts afresh: no remainder is owed. */
		start = now_ns;
		s->frac = 0;
	} else {
		start = s->busy_until_ns;
	}
	s->busy_until_ns = start + line_ns(s, bytes);
	if (l->jitter_ns) {
		/* Uniform in [delay - jitter, delay + jitter], at least 0. */
		uint64_t span = 2 * l->jitter_ns + 1;
		uint64_t off = ipc_rng_below(&s->rng, span);

		delay = delay + off >= l->jitter_ns ? delay + off - l->jitter_ns
						    : 0;
	}
	due = s->busy_until_ns + delay;
	if (due < s->last_due_ns)
		due = s->last_due_ns; /* never overtake the piece ahead */
	s->last_due_ns = due;
	*drop = false;
	if (may_drop && l->loss_ppm)
		*drop = ipc_rng_below(&s->rng, 1000000u) < l->loss_ppm;
	return due;
}

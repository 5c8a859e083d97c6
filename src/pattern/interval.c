/* SPDX-License-Identifier: MIT */
/*
 * Closing intervals: counts as differences of the run's cumulative ones,
 * and each interval's percentiles from the run's histogram minus what it
 * held when the previous interval closed (one pass over the buckets, once
 * per interval, between two samples).
 */
#include <string.h>

#include "interval.h"
#include "stats/lib_internal.h"

void ival_begin(struct ipc_pctx *c, uint64_t t0)
{
	struct ipc_ivals *iv = c->ivals;

	if (!iv)
		return;
	iv->t0_ns = t0;
	iv->end_ns = 0;
	iv->n = 0;
	iv->jitter_ns = 0;
	memset(&iv->sum, 0, sizeof(iv->sum));
	ipc_hist_reset(iv->seen);
	c->ival_next_ns = t0 + iv->len_ns;
}

/* The samples recorded since the last close into iv->tmp; seen catches up. */
static void take_samples(struct ipc_ivals *iv, const struct ipc_hist *h)
{
	struct ipc_hist *d = iv->tmp, *s = iv->seen;

	ipc_hist_reset(d);
	if (!h)
		return;
	for (size_t i = 0; i < IPC_HIST_BUCKETS; i++) {
		d->counts[i] = h->counts[i] - s->counts[i];
		if (!d->counts[i])
			continue;
		/* The extremes within their buckets' precision. */
		if (!d->total)
			d->min = ipc_hist_bucket_low(i);
		d->max = ipc_hist_bucket_high(i);
		d->total += d->counts[i];
	}
	if (d->total && d->min < h->min)
		d->min = h->min;
	if (d->total && d->max > h->max)
		d->max = h->max;
	d->overflow = h->overflow - s->overflow;
	memcpy(s, h, sizeof(*s));
}

static void fill(struct ipc_ivals *iv, struct ipc_interval *out, uint64_t t1,
		 uint64_t iters, uint64_t msgs, uint64_t bytes, uint64_t lost,
		 const struct ipc_hist *h)
{
	struct ipc_interval *sum = &iv->sum;

	out->end_ns = t1 > iv->t0_ns ? t1 - iv->t0_ns : 0;
	out->iterations += iters - sum->iterations;
	out->messages += msgs - sum->messages;
	out->bytes += bytes - sum->bytes;
	out->lost += lost > sum->lost ? lost - sum->lost : 0;
	sum->iterations = iters;
	sum->messages = msgs;
	sum->bytes = bytes;
	sum->lost = lost > sum->lost ? lost : sum->lost;
	out->jitter_ns = iv->jitter_ns;
	take_samples(iv, h);
	/* A grown last interval keeps the percentiles of its first part. */
	if (iv->tmp->total && !out->p50_ns) {
		out->p50_ns = ipc_hist_value_at(iv->tmp, 0.5);
		out->p99_ns = ipc_hist_value_at(iv->tmp, 0.99);
	}
}

static struct ipc_interval *next_slot(struct ipc_ivals *iv)
{
	struct ipc_interval *e;

	if (iv->n == iv->cap)
		return iv->n ? &iv->v[iv->n - 1] : NULL;
	e = &iv->v[iv->n++];
	memset(e, 0, sizeof(*e));
	e->start_ns = iv->n > 1 ? iv->v[iv->n - 2].end_ns : 0;
	return e;
}

void ival_close(struct ipc_pctx *c, uint64_t t1, uint64_t iters, uint64_t msgs,
		uint64_t bytes, uint64_t lost)
{
	struct ipc_ivals *iv = c->ivals;
	struct ipc_interval *e = next_slot(iv);
	uint64_t next = c->ival_next_ns;

	if (!e)
		return;
	fill(iv, e, t1, iters, msgs, bytes, lost, c->hist);
	/* A sample longer than an interval skips the ends it overran. */
	while (next <= t1)
		next += iv->len_ns;
	c->ival_next_ns = next;
	if (iv->on_close)
		iv->on_close(iv->arg, e);
}

void ival_finish(struct ipc_pctx *c)
{
	struct ipc_ivals *iv = c->ivals;
	const struct ipc_pout *o = &c->out;
	struct ipc_interval *e;
	uint64_t end;

	c->ival_next_ns = 0;
	if (!iv || !iv->t0_ns)
		return;
	end = iv->end_ns ? iv->end_ns : ipc_now_ns();
	/* Nothing since the last close: the intervals already add up. */
	if (iv->n && o->done == iv->sum.iterations &&
	    o->bytes == iv->sum.bytes && o->messages == iv->sum.messages)
		return;
	e = next_slot(iv);
	if (!e)
		return;
	fill(iv, e, end, o->done, o->messages, o->bytes, o->loss.lost, c->hist);
	if (iv->on_close)
		iv->on_close(iv->arg, e);
}

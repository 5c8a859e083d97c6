/* SPDX-License-Identifier: MIT */
/*
 * Parallel streams as one run: what each stream measured on its own
 * channel, summed as iperf3 sums its streams, with their fairness.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run_internal.h"
#include "stats/lib_internal.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The streams' rates: slowest, median, fastest, Jain's index. */
static void fairness(struct ipc_flows *f, const struct ipc_run_stats *const *st,
		     size_t n)
{
	double rates[n ? n : 1];

	memset(f, 0, sizeof(*f));
	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		rates[i] = st[i]->bytes_per_s > 0 ? st[i]->bytes_per_s
						  : st[i]->msgs_per_s;
	f->jain = ipc_jain_index(rates, n);
	qsort(rates, n, sizeof(rates[0]), cmp_double);
	f->flows = n;
	f->rate_min = rates[0];
	f->rate_max = rates[n - 1];
	f->rate_median =
		n % 2 ? rates[n / 2] : (rates[n / 2 - 1] + rates[n / 2]) / 2;
}

void run_loss_add(struct ipc_loss *sum, const struct ipc_loss *l)
{
	if (!l->counted)
		return;
	sum->counted = true;
	sum->reorder_known |= l->reorder_known;
	sum->sent += l->sent;
	sum->received += l->received;
	sum->lost += l->lost;
	sum->late += l->late;
	sum->reordered += l->reordered;
}

/*
 * The streams ran at the same time: the run moved what they all moved in
 * the time the longest took (iperf3's SUM line), which a stream that
 * ended early does not inflate as a sum of rates would.  The cost per
 * message and the socket options are the first stream's: each stream pays
 * its own.  An extra is the streams' mean (a udp stream's jitter), or
 * their sum where @extras flags it IPC_EXTRA_SUM (a count).
 */
void run_streams_sum(struct ipc_run_stats *out, const struct ipc_hist *hist,
		     const struct ipc_run_stats *const *st, size_t n,
		     const struct ipc_extra *extras)
{
	size_t nx = 0;

	double xs[IPC_EXTRA_MAX] = {0};
	unsigned xn[IPC_EXTRA_MAX] = {0};

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	out->timer_ns = st[0]->timer_ns;
	out->sock = st[0]->sock;
	out->client = st[0]->client;
	out->server = st[0]->server;
	out->loop_msgs = st[0]->loop_msgs;
	for (size_t i = 0; i < n; i++) {
		const struct ipc_run_stats *s = st[i];

		out->iterations += s->iterations;
		out->messages += s->messages;
		out->bytes += s->bytes;
		if (s->elapsed_ns > out->elapsed_ns)
			out->elapsed_ns = s->elapsed_ns;
		run_loss_add(&out->loss, &s->loss);
		for (size_t k = 0; k < IPC_EXTRA_MAX; k++)
			if (isfinite(s->extra[k])) {
				xs[k] += s->extra[k];
				xn[k]++;
			}
	}
	if (out->elapsed_ns) {
		out->msgs_per_s = out->messages / (out->elapsed_ns / 1e9);
		out->bytes_per_s = out->bytes / (out->elapsed_ns / 1e9);
	}
	while (extras && extras[nx].key)
		nx++;
	for (size_t k = 0; k < IPC_EXTRA_MAX; k++)
		out->extra[k] = !xn[k] ? NAN
				: k < nx && (extras[k].flags & IPC_EXTRA_SUM)
					? xs[k]
					: xs[k] / xn[k];
	ipc_hist_summary(hist, &out->lat);
	fairness(&out->flows, st, n);
}

static void ival_add(struct ipc_interval *o, const struct ipc_interval *v)
{
	o->iterations += v->iterations;
	o->messages += v->messages;
	o->bytes += v->bytes;
	o->lost += v->lost;
	if (v->end_ns > o->end_ns)
		o->end_ns = v->end_ns;
	/* The worst stream's: a merged percentile needs the samples. */
	if (v->p50_ns > o->p50_ns)
		o->p50_ns = v->p50_ns;
	if (v->p99_ns > o->p99_ns)
		o->p99_ns = v->p99_ns;
	if (v->jitter_ns > o->jitter_ns)
		o->jitter_ns = v->jitter_ns;
}

/*
 * Each stream's intervals are timed from its own measured start, and the
 * streams start within a warm-up of each other: interval k of each is
 * about the same stretch of time.  A stream with more intervals than
 * storage adds the rest to the last one.
 */
void run_streams_ivals(struct ipc_ivals *out_iv,
		       const struct ipc_ivals *const *iv, size_t n)
{
	size_t most = 0, k;

	out_iv->n = 0;
	for (size_t s = 0; s < n; s++)
		if (iv[s]->n > most)
			most = iv[s]->n;
	if (!out_iv->cap)
		return;
	for (k = 0; k < most && k < out_iv->cap; k++)
		memset(&out_iv->v[k], 0, sizeof(out_iv->v[k]));
	for (size_t s = 0; s < n; s++)
		for (k = 0; k < iv[s]->n; k++)
			ival_add(&out_iv->v[k < out_iv->cap ? k
							    : out_iv->cap - 1],
				 &iv[s]->v[k]);
	out_iv->n = most < out_iv->cap ? most : out_iv->cap;
	for (k = 0; k < out_iv->n; k++) {
		out_iv->v[k].start_ns = k ? out_iv->v[k - 1].end_ns : 0;
		if (out_iv->v[k].end_ns < out_iv->v[k].start_ns)
			out_iv->v[k].end_ns = out_iv->v[k].start_ns;
	}
}

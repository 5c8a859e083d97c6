/* SPDX-License-Identifier: MIT */
/*
 * A case an option ran twice, against its twin: found by the case's
 * words without the option, and compared figure by figure.
 */
#include <math.h>
#include <string.h>

#include "figures.h"
#include "twin.h"

/* @cs without the option it ran with. */
static struct ipc_case plain(const struct ipc_case *cs)
{
	struct ipc_case p = *cs;

	p.zerocopy = 0;
	p.under_load = 0;
	return p;
}

bool ipc_twin_is(const struct ipc_result *r, const struct ipc_result *o)
{
	struct ipc_case p = plain(&r->cs);
	char want[160], got[160];

	if (o == r || o->cs.zerocopy || o->cs.under_load ||
	    o->cs.place.cpus != r->cs.place.cpus)
		return false;
	ipc_case_describe(&p, want, sizeof(want));
	return !strcmp(ipc_case_describe(&o->cs, got, sizeof(got)), want);
}

/* The summary's extra called @key, NAN when the pattern has none. */
static double extra(const struct ipc_result *r, const char *key)
{
	const struct ipc_extra *e = r->cs.pat ? r->cs.pat->extras : NULL;

	for (size_t k = 0; e && e[k].key; k++)
		if (!strcmp(e[k].key, key))
			return r->summary.extra[k];
	return NAN;
}

/* The CPU per message of the side(s) that sent. */
static double sender_cpu(const struct ipc_diag *d, enum ipc_twin_sender who)
{
	switch (who) {
	case IPC_TWIN_PEER:
		return ipc_cost_cpu_ns(&d->server);
	case IPC_TWIN_BOTH:
		return ipc_cost_cpu_ns(&d->client) +
		       ipc_cost_cpu_ns(&d->server);
	default:
		return ipc_cost_cpu_ns(&d->client);
	}
}

/*
 * --zerocopy: the sender is the client, except with -R and in bulk (the
 * peer sends, and counts its completions as zc_peer_*); with --bidir both
 * send, so both sides' CPU and both sides' counts are what the option
 * changed.
 */
static void zc_figures(const struct ipc_result *r, const struct ipc_result *o,
		       struct ipc_twin *tw)
{
	double pc = extra(r, "zc_peer_copied"),
	       pd = extra(r, "zc_peer_completed");

	if (r->cs.direction == IPC_DIR_BIDIR)
		tw->sender = IPC_TWIN_BOTH;
	else if (r->cs.direction == IPC_DIR_REVERSE ||
		 (isnan(extra(r, "zc_completed")) && !isnan(pd)))
		tw->sender = IPC_TWIN_PEER;
	else
		tw->sender = IPC_TWIN_CLIENT;
	tw->cpu = sender_cpu(&r->diag, tw->sender);
	tw->cpu_plain = sender_cpu(&o->diag, tw->sender);
	tw->cpu_pct = ipc_pct_over(tw->cpu, tw->cpu_plain);
	tw->copied = extra(r, "zc_copied");
	tw->completed = extra(r, "zc_completed");
	if (tw->sender == IPC_TWIN_PEER) {
		tw->copied = pc;
		tw->completed = pd;
	} else if (tw->sender == IPC_TWIN_BOTH && !isnan(pd)) {
		tw->copied += pc;
		tw->completed += pd;
	}
}

void ipc_twin_figures(const struct ipc_result *r, const struct ipc_result *o,
		      struct ipc_twin *tw)
{
	const struct ipc_lat *a = &r->summary.lat, *b = &o->summary.lat;

	zc_figures(r, o, tw);
	tw->p50 = (double)a->p50;
	tw->p50_plain = (double)b->p50;
	tw->p50_pct = ipc_pct_over(tw->p50, tw->p50_plain);
	tw->p99 = (double)a->p99;
	tw->p99_plain = (double)b->p99;
	tw->p99_pct = ipc_pct_over(tw->p99, tw->p99_plain);
	tw->load_bps = extra(r, "load_bytes_per_s");
}

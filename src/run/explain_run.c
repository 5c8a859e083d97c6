/* SPDX-License-Identifier: MIT */
/*
 * --explain around the runs of a case: the kernel's counters reset and the
 * client's thread watched before a run, the sums read after it (outside
 * the measured part, once a run), the phases computed at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/explain_abi.h"
#include "run_internal.h"
#include "explain/lib_internal.h"

void xrun_case_begin(struct ipc_run *run, struct ipc_result *res)
{
	const char *why;

	if (!res->ro.explain || res->explain)
		return;
	res->explain = ipc_explain_result_new();
	if (res->explain && !run_explain(run, &why))
		ipc_explain_unavailable(res->explain, why);
	else if (res->explain && res->cs.threads > 1)
		/* The program follows one client thread's round trip. */
		ipc_explain_unavailable(res->explain,
					"several client threads (--threads): "
					"explain follows one; --threads 1 is "
					"explained");
}

void xrun_watch_self(void *x)
{
	ipc_explain_rewatch(x, IPC_XCLIENT);
}

struct ipc_explain *xrun_before(struct ipc_run *run, struct ipc_result *res)
{
	struct ipc_explain *x;
	const char *why;
	char buf[160];
	int err;

	if (!res->explain || !res->explain->available)
		return NULL;
	x = run_explain(run, &why);
	if (!x)
		return NULL;
	err = ipc_explain_reset(x);
	if (!err)
		err = ipc_explain_watch(x, 0, IPC_XCLIENT);
	if (err) {
		snprintf(buf, sizeof(buf), "cannot reset the counters: %s",
			 strerror(-err));
		ipc_explain_unavailable(res->explain, buf);
		return NULL;
	}
	return x;
}

/*
 * A remote server's phases into the client's counts: its sums cover the
 * whole run (warm-up too), so the measured share of them is taken, the
 * share of the run's messages the client measured.  What the server
 * spent on the round trip's path (all but its own sleep, waiting for the
 * next request) is what the client waited through off its CPU: it is
 * taken out of the client's waits, blocked first (another host), then
 * its waits for a CPU (the same host: behind the server).  Where the
 * server's time passes the client's waits, the rest overlapped the
 * client's own time (two CPUs) and is left out, the server's phases cut
 * in proportion, so that the phases still add up.  What the client's
 * waits keep is the network and what explain does not see.
 */
static void take_remote(struct ipc_explain_counts *c,
			const struct ipc_run_stats *st,
			const struct ipc_peer *p)
{
	static const unsigned waits[] = {XA_BLOCKED, XA_RUNQ, XA_PREEMPT,
					 XA_IPI, XA_IDLE};
	double frac = st->loop_msgs ? (double)st->messages / st->loop_msgs : 1;
	double path = 0, off = 0, scale;
	uint64_t *w, take;
	size_t i;

	for (unsigned ph = 0; ph < IPC_XPHASES; ph++)
		if (ph != XA_BLOCKED && ph != XA_MIGRATE)
			path += (double)p->remote_xns[ph] * frac;
	for (i = 0; i < sizeof(waits) / sizeof(waits[0]); i++)
		off += (double)c->ns[IPC_XCLIENT][waits[i]];
	if (path <= 0)
		return;
	scale = path > off ? off / path : 1;
	for (unsigned ph = 0; ph < IPC_XPHASES; ph++)
		if (ph != XA_BLOCKED && ph != XA_MIGRATE) {
			c->ns[IPC_XSERVER][ph] +=
				(uint64_t)((double)p->remote_xns[ph] * frac *
					   scale);
			c->p99_ns[IPC_XSERVER][ph] = p->remote_xp99[ph];
		}
	take = (uint64_t)(path * scale);
	for (i = 0; i < sizeof(waits) / sizeof(waits[0]) && take; i++) {
		w = &c->ns[IPC_XCLIENT][waits[i]];
		if (*w >= take) {
			*w -= take;
			take = 0;
		} else {
			take -= *w;
			*w = 0;
		}
	}
}

void xrun_after(struct ipc_explain *x, struct ipc_result *res,
		const struct ipc_run_stats *st, const struct ipc_peer *p)
{
	struct ipc_explain_counts *c;
	char buf[160];
	int err = -ENOMEM;

	if (!x || !st->iterations)
		return;
	c = malloc(sizeof(*c));
	if (c)
		err = ipc_explain_read(x, c);
	if (!err && p && p->remote_xwindow_ns)
		take_remote(c, st, p);
	/* A remote server that could not explain says why: said once. */
	if (!err && p && p->remote_xwhy[0] && !res->explain->server_why[0])
		snprintf(res->explain->server_why,
			 sizeof(res->explain->server_why), "%s",
			 p->remote_xwhy);
	if (!err)
		err = ipc_explain_add(res->explain, c, st->iterations,
				      st->elapsed_ns);
	free(c);
	if (err) {
		snprintf(buf, sizeof(buf), "cannot read the counters: %s",
			 strerror(-err));
		ipc_explain_unavailable(res->explain, buf);
	}
}

void xrun_case_end(struct ipc_result *res)
{
	if (res->explain)
		ipc_explain_finish(res->explain);
}

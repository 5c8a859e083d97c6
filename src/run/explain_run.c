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

void xrun_after(struct ipc_explain *x, struct ipc_result *res,
		const struct ipc_run_stats *st)
{
	struct ipc_explain_counts *c;
	char buf[160];
	int err = -ENOMEM;

	if (!x || !st->iterations)
		return;
	c = malloc(sizeof(*c));
	if (c)
		err = ipc_explain_read(x, c);
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

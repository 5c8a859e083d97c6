/* SPDX-License-Identifier: MIT */
/*
 * --explain's part of the result document: the explanation of one result
 * as the "explain" object of its JSON, written and read back, and the
 * sums of its phases that the formats print.
 */
#ifndef IPCPERF_DOC_EXPLAIN_JSON_H
#define IPCPERF_DOC_EXPLAIN_JSON_H

#include <jansson.h>

#include "ipcperf/run.h"

/* Set "explain" of result object @o from @x; 0 or -ENOMEM. */
int explain_json_put(json_t *o, const struct ipc_explain_result *x);

struct rd;

/*
 * The "explain" object of result object @o (at @at, for errors) into a new
 * *@out, NULL when there is none; the caller frees it with
 * ipc_explain_result_free.  0, or the reader's first failure (named in @r).
 */
int explain_json_get(struct rd *r, json_t *o, const char *at,
		     struct ipc_explain_result **out);

/*
 * What the phases of @x on @like's side and with its name add up to (a
 * chart gives each such pair one part of a case's bar).
 */
double ipc_xphase_total(const struct ipc_explain_result *x,
			const struct ipc_xphase *like);

/*
 * A phase under IPC_XSMALL_SHARE of the mean, either way, is small: a
 * table folds the small phases into one line.  The residue (the last
 * phase) is never small, so that what is left unexplained always shows.
 */
#define IPC_XSMALL_SHARE 0.001
bool ipc_xphase_small(const struct ipc_explain_result *x, size_t i);

/* What @x's small phases add up to; into *@n, how many there are. */
double ipc_xphase_small_sum(const struct ipc_explain_result *x, size_t *n);

#endif

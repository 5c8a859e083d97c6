/* SPDX-License-Identifier: MIT */
/*
 * -i's part of the result document: each run's "intervals" array,
 * written and read back, and the rate of an interval.
 */
#ifndef IPCPERF_DOC_INTERVALS_JSON_H
#define IPCPERF_DOC_INTERVALS_JSON_H

#include <jansson.h>

#include "ipcperf/run.h"

/*
 * Set "intervals" of run object @run (run @k of @res) from res->ivals;
 * nothing when the run has none.  0 or -ENOMEM.
 */
int intervals_json_put(json_t *run, const struct ipc_result *res, size_t k);

struct rd;

/*
 * The "intervals" arrays of the run objects in @runs (of result @at) into
 * res->ivals, each naming its run.  0, or the reader's first failure
 * (named in @r): a field missing or not a count, an interval that ends
 * before it starts or starts before the one before it ended.
 */
int intervals_json_get(struct rd *r, json_t *runs, const char *at,
		       struct ipc_result *res);

/*
 * Are @res's intervals told in bytes per second (some interval moved
 * payload), or in messages per second (a case of size 0)?
 */
bool ival_in_bytes(const struct ipc_result *res);

/*
 * @iv's bytes (@bytes) or messages per second over its length; 0 for an
 * interval of no length.
 */
double ival_rate(const struct ipc_interval *iv, bool bytes);

#endif

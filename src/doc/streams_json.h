/* SPDX-License-Identifier: MIT */
/*
 * -P's and --bidir's part of the result document: each run's "streams"
 * array, written and read back.
 */
#ifndef IPCPERF_DOC_STREAMS_JSON_H
#define IPCPERF_DOC_STREAMS_JSON_H

#include <jansson.h>

#include "ipcperf/run.h"

/*
 * Set "streams" of run object @run (run @k of @res) from res->streams;
 * nothing when the run has none.  0 or -ENOMEM.
 */
int streams_json_put(json_t *run, const struct ipc_result *res, size_t k);

struct rd;

/*
 * The "streams" arrays of the run objects in @runs (of result @at) into
 * res->streams, each naming its run.  0, or the reader's first failure
 * (named in @r): a field missing or not a count, a direction not known.
 */
int streams_json_get(struct rd *r, json_t *runs, const char *at,
		     struct ipc_result *res);

#endif

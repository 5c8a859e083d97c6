/* SPDX-License-Identifier: MIT */
/*
 * --explain's part of the result document: the explanation of one result
 * as the "explain" object of its JSON, written and read back.
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

#endif

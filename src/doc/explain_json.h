/* SPDX-License-Identifier: MIT */
/*
 * --explain's part of the result document: the explanation of one result
 * as the "explain" object of its JSON.
 */
#ifndef IPCPERF_DOC_EXPLAIN_JSON_H
#define IPCPERF_DOC_EXPLAIN_JSON_H

#include <jansson.h>

#include "ipcperf/run.h"

/* Set "explain" of result object @o from @x; 0 or -ENOMEM. */
int explain_json_put(json_t *o, const struct ipc_explain_result *x);

#endif

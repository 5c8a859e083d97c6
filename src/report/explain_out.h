/* SPDX-License-Identifier: MIT */
/*
 * --explain's part of the formats: the explanation of one result as JSON
 * and as a few lines under the table.  They print what the result holds.
 */
#ifndef IPCPERF_REPORT_EXPLAIN_OUT_H
#define IPCPERF_REPORT_EXPLAIN_OUT_H

#include <jansson.h>
#include <stdio.h>

#include "ipcperf/run.h"

/* Set "explain" of result object @o from @x; 0 or -ENOMEM. */
int explain_json_put(json_t *o, const struct ipc_explain_result *x);

#endif

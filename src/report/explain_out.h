/* SPDX-License-Identifier: MIT */
/*
 * --explain's part of the table: the explanation of one result as a few
 * lines under it, printing what the result holds.
 */
#ifndef IPCPERF_REPORT_EXPLAIN_OUT_H
#define IPCPERF_REPORT_EXPLAIN_OUT_H

#include <stdio.h>

#include "ipcperf/run.h"
#include "table.h"

/*
 * A copy of @x for a table that keeps results past the caller's free
 * (without the per-run data); NULL when @x is NULL or memory ran out,
 * which leaves the breakdown out.  Freed by ipc_explain_result_free.
 */
struct ipc_explain_result *explain_keep(const struct ipc_explain_result *x);

/*
 * Under the tables: for each explained row, the phases of its round trip
 * (time, share of the measured mean, p99 per event, whom a run-queue wait
 * was behind), the sum against the measured mean, and the tasks that ran
 * on a measured CPU; where explain could not run, one line saying why
 * (once for rows that share the reason).  Nothing when none asked.
 */
void explain_table_print(struct tab_out *out, const struct trow *rows,
			 size_t n);

#endif

/*
 * The replay section of the human table, private to the report layer:
 * what table.c keeps of each replay result, and the printer that pivots
 * them into the seed report's shape (conversations down, links across).
 */
#ifndef IPCPERF_REPORT_TABLE_REPLAY_H
#define IPCPERF_REPORT_TABLE_REPLAY_H

#include <stdio.h>

#include "ipcperf/report.h"

struct replay_row {
	const struct ipc_case *cs;
	enum ipc_status status;
	const char *error;
	size_t nruns;
	uint64_t run_iters; /* replays in the first run */
	struct ipc_run_stats sum;
	struct ipc_runs_stats metric;
	struct ipc_lat xlat; /* per exchange */
	uint64_t xcount;     /* exchanges timed */
};

/*
 * Print @n replay results: the pivot of median wall times, then one line
 * per case with the conversation's counts, the link's own time and the
 * per-exchange latency.  0 or -ENOMEM.
 */
int table_replay_print(FILE *out, const struct ipc_report_meta *meta,
		       const struct replay_row *rows, size_t n);

#endif

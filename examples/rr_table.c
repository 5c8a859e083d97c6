/* SPDX-License-Identifier: MIT */
/*
 * Round-trip latency of a 64-byte request and reply over a pipe and a Unix
 * socket, printed as a table: the smallest use of libipcperf.
 *
 *   cc -std=c11 rr_table.c $(pkg-config --cflags --libs ipcperf)
 */
#include <stdio.h>
#include <stdlib.h>

#include <ipcperf/ipcperf.h>

static int print_row(void *arg, size_t i, const struct ipc_result *res)
{
	const struct ipc_lat *lat = &res->summary.lat;
	struct ipc_headline h;
	int *failed = arg;

	(void)i;
	if (res->status != IPC_STATUS_OK) {
		fprintf(stderr, "rr_table: %s: %s\n", res->cs.tp->name,
			res->error);
		*failed = 1;
		return 0;
	}
	/* The headline: the median of the runs' p50, the pooled rest. */
	ipc_result_headline(res, &h);
	printf("%-8s %10.0f %10llu %10llu %10zu\n", res->cs.tp->name, h.value,
	       (unsigned long long)lat->p99, (unsigned long long)lat->max,
	       h.runs);
	return 0;
}

int main(void)
{
	const char *const names[] = {"pipe", "unix"};
	struct ipc_case cases[2] = {{0}};
	struct ipc_runopts ros[2];
	int failed = 0;
	struct ipc_plan_hooks hooks = {.arg = &failed, .done = print_row};
	struct ipc_run *run;
	int err;

	for (size_t i = 0; i < 2; i++) {
		cases[i].pat = ipc_pattern_find("rr");
		cases[i].tp = ipc_transport_find(names[i]);
		cases[i].eng = ipc_engine_find("blocking");
		cases[i].req_size = 64;
		cases[i].resp_size = 64;
		if (!cases[i].pat || !cases[i].tp || !cases[i].eng) {
			fprintf(stderr, "rr_table: no %s in this library\n",
				names[i]);
			return 1;
		}
		ipc_runopts_default(&ros[i]);
		ros[i].iterations = 2000;
		ros[i].warmup = 200;
		ros[i].runs = 3;
		ros[i].runs_auto = false;
	}
	err = ipc_run_new(&run);
	if (err) {
		fprintf(stderr, "rr_table: cannot prepare: error %d\n", -err);
		return 1;
	}
	printf("%-8s %10s %10s %10s %10s\n", "channel", "p50_ns", "p99_ns",
	       "max_ns", "runs");
	err = ipc_run_plan(run, cases, ros, 2, &hooks);
	ipc_run_free(run);
	return err || failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

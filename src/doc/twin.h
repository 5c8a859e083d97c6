/* SPDX-License-Identifier: MIT */
/*
 * A case an option ran twice (stream --zerocopy, rr --under-load) set
 * beside its run without the option: which result that is, and the
 * figures that say what the option changed, for the line a table prints
 * under it.
 */
#ifndef IPCPERF_DOC_TWIN_H
#define IPCPERF_DOC_TWIN_H

#include <stdbool.h>

#include "ipcperf/run.h"

/* Is @o the case of @r without the option it ran with, on the same CPUs? */
bool ipc_twin_is(const struct ipc_result *r, const struct ipc_result *o);

/*
 * What the option changed, @r with it against @o without; NaN for what
 * was not measured, and for a change against nothing.
 */
/* --zerocopy: whose sends the option changed. */
enum ipc_twin_sender {
	IPC_TWIN_CLIENT, /* the client sends */
	IPC_TWIN_PEER,	 /* -R, bulk: the peer sends */
	IPC_TWIN_BOTH,	 /* --bidir: both send */
};

struct ipc_twin {
	enum ipc_twin_sender sender;
	/* --zerocopy: the sender's CPU (user + system) per message */
	double cpu, cpu_plain, cpu_pct;
	/* --zerocopy: the sends the kernel copied after all, of those done */
	double copied, completed;
	/* --under-load: the pooled latencies with the load and without */
	double p50, p50_plain, p50_pct;
	double p99, p99_plain, p99_pct;
	double load_bps; /* --under-load: what the streams moved */
};

void ipc_twin_figures(const struct ipc_result *r, const struct ipc_result *o,
		      struct ipc_twin *tw);

#endif

/*
 * What the runner's files share and nothing else needs: the run object's
 * inner parts, host and cost probes, load snapshots.
 */
#ifndef IPCPERF_RUN_INTERNAL_H
#define IPCPERF_RUN_INTERNAL_H

#include <sys/resource.h>

#include "ipcperf/run.h"

/*
 * The client's stop of @run: what its waits and its thread watch.  Fired
 * by ipc_run_stop and by a peer that ends early (struct ipc_peer.client).
 */
struct ipc_cancel *run_client_stop(struct ipc_run *run);

/*
 * Before each measurement: the client's stop made fresh (a peer's end
 * fired it for the last one), fired again at once if the run is stopped.
 */
void run_client_fresh(struct ipc_run *run);

/* A name for the next channel of @run, unique in its directory ("7"). */
void run_chan_name(struct ipc_run *run, char *buf, size_t len);

/* "interrupted by SIGINT", or "interrupted" (stopped by a call).  @buf. */
char *run_stop_words(const struct ipc_run *run, char *buf, size_t len);

/* The rest of the host's fingerprint (host.c), after the basic facts. */
void host_fingerprint(struct ipc_host *h);

/*
 * The CPU cost of one side's loop, read by that side's own thread:
 * cost_begin right before the loop, cost_end right after (neither inside
 * the timed part).  With @perf, cycles and instructions are counted too,
 * where perf events can be opened.  Counts that cannot be had are -1.
 */
struct cost_meter {
	struct rusage ru; /* RUSAGE_THREAD at the start */
	int fd[2];	  /* perf: cycles, instructions, or -1 */
	uint64_t v0[2];	  /* their values at the start */
	int64_t migr;	  /* se.nr_migrations at the start, -1 */
	int cpu;	  /* sched_getcpu() at the start */
};

void cost_begin(struct cost_meter *m, bool perf);
void cost_end(struct cost_meter *m, struct ipc_side_cost *out);

/*
 * What can be counted here, probed once: *hw for cycles and instructions
 * (perf events), *sw for CPU migrations (/proc/thread-self/sched); @note
 * says what is missing and why ("" when nothing is).
 */
void cost_probe(bool *hw, bool *sw, char *note, size_t len);

/* Machine-wide busy CPU time and our own, at one moment. */
struct load_snap {
	bool ok;	  /* /proc/stat was read */
	uint64_t busy_ns; /* user + nice + system of every CPU */
	uint64_t steal_ns;
	uint64_t ours_ns; /* this process and its reaped children */
	uint64_t t_ns;	  /* CLOCK_MONOTONIC */
};

void load_snap(struct load_snap *s);

/* What happened between @a and @b, into the run's load fields. */
void load_diff(const struct load_snap *a, const struct load_snap *b,
	       struct ipc_run_stats *st);

#endif

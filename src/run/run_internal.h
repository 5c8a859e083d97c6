/*
 * What the runner's files share and nothing else needs: the flags the
 * signal handlers set and the peer-process signal set-up.
 */
#ifndef IPCPERF_RUN_INTERNAL_H
#define IPCPERF_RUN_INTERNAL_H

#include <signal.h>
#include <sys/resource.h>

#include "ipcperf/run.h"

/* The client's stop flag: set on SIGINT/SIGTERM/SIGHUP and peer exit. */
extern volatile sig_atomic_t run_stop;

/* A forked peer's stop flag: set when the runner sends SIGUSR1. */
extern volatile sig_atomic_t peer_stop;

/* Stop the timer a stop request armed (see sys.c); after each run. */
void run_nudge_disarm(void);

/* In a freshly forked peer: its own signal dispositions. */
void run_signals_peer_process(void);

/*
 * Around the client's loop: while it runs, a stop (SIGINT, the peer's
 * end) is repeated every 10 ms with SIGALRM until the loop sees it, so
 * that one landing just before a blocking receive is not lost.
 */
void run_wake_begin(void);
void run_wake_end(void);

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

/* SPDX-License-Identifier: MIT */
/*
 * --explain: where the time of a measurement went, measured by the kernel.
 * A BPF program watches the measured threads and the CPUs they run on and
 * sums each phase of their time (user, system calls, asleep, waiting for a
 * CPU, interrupts) in kernel maps; this interface loads it, says which
 * threads to watch, and reads the sums of one run.  Then pure functions
 * turn a case's runs into the phases of one round trip, which add up to
 * the measured mean with what is left over stated as "unexplained".
 * docs/explain.md says what each phase is and what it cannot see.
 */
#ifndef IPCPERF_EXPLAIN_H
#define IPCPERF_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The sides of a measurement, as the kernel side counts them. */
enum ipc_xside { IPC_XCLIENT = 0, IPC_XSERVER = 1, IPC_XSIDES };

/* Phases per side; the order of the BPF program's (src/explain/). */
#define IPC_XPHASES 25
#define IPC_XBUCKETS 160
#define IPC_XOTHERS 8 /* the tasks kept per case, largest first */

/* What one run's window cost, read from the kernel's maps. */
struct ipc_explain_counts {
	uint64_t window_ns;			  /* the measured window */
	uint64_t ns[IPC_XSIDES][IPC_XPHASES];	  /* time per phase */
	uint64_t events[IPC_XSIDES][IPC_XPHASES]; /* events per phase */
	/* Histogram of the events' lengths (log-linear, explain_abi.h). */
	uint64_t bucket[IPC_XSIDES][IPC_XPHASES][IPC_XBUCKETS];
	size_t nothers;
	struct ipc_explain_other {
		char comm[16];
		int pid;
		uint64_t ns;		      /* its time on a measured CPU */
		uint64_t runq_ns[IPC_XSIDES]; /* each side waited behind it */
	} others[IPC_XOTHERS];
	/* A p99 per event known without its histogram (a remote server
	   sends only its run's p99), ns, 0 where none; pooled over runs
	   as the largest, an upper bound of the pooled p99. */
	uint64_t p99_ns[IPC_XSIDES][IPC_XPHASES];
};

/* The loaded program: one per process at most is needed. */
struct ipc_explain;

/*
 * A case's explanation, built from its runs.  The phases are per round
 * trip (or per batch), on the footing of measured_ns: the median over
 * runs of each run's mean, and the phases of the run (or the mean of the
 * two runs) that median comes from, so that they add up to it; the
 * difference is the phase "unexplained".  p99 and others are pooled over
 * every run.
 */
struct ipc_xphase {
	char name[24];	  /* "user", "send", "wake-up: run queue", ... */
	const char *side; /* "client", "server" or "kernel" */
	double ns;	  /* per round trip */
	double share;	  /* of measured_ns */
	double p99_ns;	  /* per event, -1 where it has none */
	char behind[72];  /* run-queue phases: the (at most two) tasks
			       most waited behind, "comm (pid N), comm2
			       (pid M)", "" when none */
};

struct ipc_explain_result {
	bool available;	      /* false: why says why */
	char why[160];	      /* "" when available */
	double measured_ns;   /* the mean it explains */
	double sum_ns;	      /* what the phases other than unexplained add
			       up to */
	double window_ns;     /* the kernel's window per round trip */
	char cause[256];      /* what the slower runs spent their extra time
			       on, in words, when the runs' spread was
			       flagged (run/diagnose.c); "" otherwise */
	unsigned second_pass; /* the runs of a second pass made only to
				 explain a flagged case
				 (ipc_runopts.explain_flagged): these
				 phases are that pass's, not the measured
				 runs'; 0: the measured runs' own */
	char server_why[160]; /* a remote server that could not explain
				 its side: why it said; "" otherwise */
	size_t nphases;	      /* the non-zero ones, unexplained last */
	struct ipc_xphase phases[IPC_XSIDES * IPC_XPHASES + 1];
	uint64_t migrations[IPC_XSIDES]; /* over every run */
	size_t nothers;
	struct ipc_xother {
		char comm[16];
		int pid;
		double ns; /* per round trip */
	} others[IPC_XOTHERS];
	/* The runs so far (ipc_explain_add), for the median. */
	size_t nruns, runs_cap;
	struct ipc_xrun {
		double mean_ns; /* the run's elapsed over its round trips */
		double ns[IPC_XSIDES][IPC_XPHASES]; /* per round trip */
	} * runs;
	struct ipc_explain_counts *pooled; /* every run's counts summed */
	uint64_t pooled_rt;		   /* ... and their round trips */
};

#ifdef __cplusplus
}
#endif

#endif

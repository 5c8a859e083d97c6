/* SPDX-License-Identifier: MIT */
/*
 * The progress line on stderr: which case, run k of at most N, how wide
 * the interval is so far against its target, and how long is left at
 * most, redrawn in place.  Nothing at all when stderr is not a terminal
 * or with -q, so that logs and pipes get only the report.
 */
#ifndef IPCPERF_CLI_PROGRESS_H
#define IPCPERF_CLI_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ipcperf/run.h"

/* What the line says about the run that is starting. */
struct progress_state {
	const char *what; /* the case: "rr tcp req=64 resp=1024" */
	size_t case_no;	  /* 1-based, of ncases */
	size_t ncases;
	size_t run;	       /* 1-based run of this case now starting */
	size_t max_runs;       /* at most this many (-r N: exactly) */
	bool exact;	       /* -r N: max_runs is the number, not a bound */
	double half_pct;       /* the interval's half-width so far, % of the
				estimate; < 0: no interval yet */
	double target_pct;     /* the target of --ci; <= 0: none */
	double eta_s;	       /* seconds left (at most, unless exact); < 0:
				unknown */
	uint64_t case_wall_ns; /* in: the runner's time of this case's
				  runs done so far (ns), 0: unknown */
	size_t pass_runs;      /* > 0: run is of a second pass with explain
				  of this many runs, not of the measured */
};

/* The line's state: where it goes and how the plan has gone so far. */
struct progress {
	FILE *out;
	bool on;	    /* a terminal and not -q: draw */
	bool drawn;	    /* a line is on the screen now */
	size_t ncases;	    /* cases in the plan */
	size_t min_runs;    /* per case, at least: the budget cannot cut
			       below (ipc_sched_floor_runs) */
	size_t max_runs;    /* per case, at most */
	uint64_t budget_ns; /* no new run after this (0: none) */
	uint64_t start_ns;  /* when the plan started */
	size_t started;	    /* runs started so far, all cases */
	size_t *runs;	    /* runs started per case (ncases of them) */
	uint64_t *max_ns;   /* per case: its longest run, start to the next
			       run's start (ns), 0: none done */
	uint64_t *took_ns;  /* per case: its done runs so timed, summed */
	uint64_t *wall_ns;  /* per case: the runner's time of the runs done
			       when it last started one (ns) */
	uint64_t *took_at;  /* per case: took_ns then, to set against it */
	size_t last;	    /* the case whose run started last ... */
	uint64_t last_ns;   /* ... and when */
};

/*
 * Prepare @p for a plan of @ncases cases run by the rules of @ro (what
 * ipc_schedule gets): -r N, exactly N runs each; auto, from the floor the
 * budget never cuts a case below (ipc_sched_floor_runs: 6 at 95%) to
 * ipc_sched_max_runs, with ro->budget_ns for the whole plan (0: none);
 * starting at @now_ns.  The line is drawn only when @out is a terminal and
 * @quiet is false.  Returns 0 or -ENOMEM (then the line stays off).
 */
int progress_init(struct progress *p, FILE *out, bool quiet, size_t ncases,
		  const struct ipc_runopts *ro, uint64_t now_ns);

/*
 * Case @i (0-based) starts a run at @now_ns: count it, estimate the time
 * left into st->eta_s (progress_bound_s, or with -r N the mean run times
 * the runs left) and redraw the line with @st.
 */
void progress_run(struct progress *p, size_t i, struct progress_state *st,
		  uint64_t now_ns);

/*
 * Case @i starts run st->run of its second pass (st->pass_runs runs) at
 * @now_ns, after its measured runs: timed as its other runs are, but not
 * one of them; the time left counts the pass's runs still to come.
 */
void progress_again(struct progress *p, size_t i, struct progress_state *st,
		    uint64_t now_ns);

/* Erase the line (before an error message or the report), if drawn. */
void progress_clear(struct progress *p);

/* Erase the line and free what init allocated. */
void progress_fini(struct progress *p);

/*
 * The line's text (no escape codes) for @st, cut to @cols characters (a
 * line longer than the terminal wraps, and \r no longer goes back to its
 * start).  Returns @buf.  Exposed for tests.
 */
char *progress_format(const struct progress_state *st, size_t cols, char *buf,
		      size_t len);

/*
 * With -r N, about the seconds left: the mean length of the @done runs
 * that took @elapsed_ns times the @left runs still to come.  -1 when no
 * run has finished yet.  Exposed for tests.
 */
double progress_eta_s(size_t done, uint64_t elapsed_ns, size_t left);

/*
 * With --runs auto, the most seconds the plan can still take once case
 * @i's run has started: each case's runs counted at its longest so far:
 * the run starting, plus the
 * runs every case must still have (the floor), plus what is left of the
 * budget (which counts the runner's time of each run: scaled by how much
 * longer the runs took from start to start), plus one run of each case
 * still open (the scheduler lets a run start that its share may not
 * cover), and never more than every case's runs up to the most.  The
 * budget is counted spent only as far as known, which makes the bound
 * larger, not smaller.  -1 until every case has finished a run
 * (interleaved, after the first round; one after another, in the last
 * case): a case not run yet could take any time.  Exposed for tests.
 */
double progress_bound_s(const struct progress *p, size_t i);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * What the other layers of ipcperf (and its tests) use of run and a user
 * of libipcperf does not: not installed, not exported (the public part
 * is ipcperf/run.h; docs/library.md says where the line is and why).
 */
#ifndef IPCPERF_RUN_LIB_INTERNAL_H
#define IPCPERF_RUN_LIB_INTERNAL_H

#include "ipcperf/run.h"

/* A new empty result for @cs, or NULL when out of memory. */
struct ipc_result *ipc_result_new(const struct ipc_case *cs);
void ipc_result_free(struct ipc_result *res);

/*
 * Can @tp (with options @o) and @eng work on this host together?  Asks
 * the transport's and the engine's probes and checks and whether the
 * engine can drive the transport; @eng NULL asks about @tp alone.  0, or
 * -errno with what is refused in @what ("transport shm", "engine io_uring",
 * "blocking on shm") and one sentence in @why.  The plan and the remote
 * server both ask it, so that they refuse the same things.
 */
int ipc_pair_check(const struct ipc_transport_ops *tp,
		   const struct ipc_engine_ops *eng,
		   const struct ipc_tp_opts *o, char *what, size_t what_len,
		   char *why, size_t why_len);

/* Was @run asked to stop? */
bool ipc_run_stopped(const struct ipc_run *run);

/* Its private directory (exists from ipc_run_new to ipc_run_free). */
const char *ipc_run_dir(const struct ipc_run *run);

/*
 * Bytes of payload buffers a case's run (and ipc_serve_begin) allocates
 * and touches, for both sides together: what a budget must count besides
 * what the pattern allocates per flow.
 */
size_t ipc_case_buf_total(const struct ipc_case *cs);

int ipc_serve_begin(const struct ipc_case *cs, const struct ipc_runopts *ro,
		    struct ipc_serve_state **st);
void ipc_serve_once(struct ipc_serve_state *st, struct ipc_chan *ch,
		    const struct ipc_cancel *stop, struct ipc_pout *out,
		    struct ipc_side_cost *cost);
void ipc_serve_end(struct ipc_serve_state *st);

extern const struct ipc_peer_ops ipc_peer_process;
extern const struct ipc_peer_ops ipc_peer_thread;
extern const struct ipc_peer_ops ipc_peer_external;

/* The kind @cs runs with: cs->peer, else the one ro->placement names. */
const struct ipc_peer_ops *ipc_peer_of(const struct ipc_case *cs,
				       const struct ipc_runopts *ro);

int ipc_case_begin(struct ipc_run *run, const struct ipc_case *cs,
		   const struct ipc_runopts *ro, struct ipc_result *res,
		   struct ipc_case_state **st);
int ipc_case_once(struct ipc_case_state *st);
void ipc_case_end(struct ipc_case_state *st, enum ipc_stop stop);

/*
 * Between two runs of a case, while other cases run: free its buffers if
 * they are large (over 16 MiB in all); the next _once allocates them again.
 */
void ipc_case_trim(struct ipc_case_state *st);

/* The per-run value of the metric @res is judged by. */
double ipc_run_metric(const struct ipc_result *res, size_t run);

/* Its name in reports: "p50_ns", "bytes_per_s" or "msgs_per_s". */
const char *ipc_metric_name(const struct ipc_result *res);

/*
 * Word why each flag of @res in @which (1 << IPC_FLAG_* bits) applies,
 * into res->diag.why, by the rules of the diagnosis: ipc_result_diagnose
 * does it for every flag it sets; a reader does it for flags a document
 * recorded without their sentence (one written before they were stored).
 */
void ipc_result_word_flags(struct ipc_result *res, unsigned which);

/*
 * Summary, run-to-run spread and diagnosis of @res from its runs (done by
 * ipc_case_end; exposed for tests): fills summary, metric and diag, with
 * @stop as the reason the runs ended and @loadavg the 1-minute load average
 * (-1: unknown).
 */
void ipc_result_diagnose(struct ipc_result *res, enum ipc_stop stop,
			 double loadavg);

/*
 * Let @res's pattern change what is particular to it in the summary (its
 * summarize hook, through a struct ipc_psum filled from and copied back
 * to res->summary).  Done by ipc_case_end after the diagnosis; exposed for
 * tests that make results up.  Nothing when the pattern has no hook.
 */
void ipc_result_pattern_summary(struct ipc_result *res);

/*
 * Schedule the runs of @n cases by the rules in @ro (runs_auto, runs,
 * min_runs, max_runs, ci_level, ci_pct, budget_ns, interleave), with the
 * shuffle seeded by @seed.  Returns 0, or the first -errno a callback
 * returned (then no further callback is made).
 */
int ipc_schedule(size_t n, const struct ipc_runopts *ro, uint64_t seed,
		 const struct ipc_sched_ops *ops, void *arg);

/*
 * The scheduler's bounds on a case's runs under @ro in auto mode, for
 * whoever reports on them (a progress line, the reason a case stopped) so
 * that they say what the scheduler does.  ipc_sched_max_runs: the most
 * runs a case gets, max_runs (IPC_MAX_RUNS_DEFAULT when 0) but never
 * fewer than min_runs.  ipc_sched_floor_runs: the fewest a budget leaves
 * it, min_runs and at least as many as give an interval at ro->ci_level
 * (6 at 95%), at most ipc_sched_max_runs.  Pure functions of @ro.
 */
unsigned ipc_sched_max_runs(const struct ipc_runopts *ro);
/* The fewest runs (--min-runs or IPC_MIN_RUNS) and the interval's level. */
unsigned ipc_sched_min_runs(const struct ipc_runopts *ro);
double ipc_sched_level(const struct ipc_runopts *ro);
unsigned ipc_sched_floor_runs(const struct ipc_runopts *ro);

/*
 * The half-width, in % of the estimate, that ipc_sched_max_runs(@ro) runs
 * would leave an interval of @half_pct after @nruns runs, taking it to
 * shrink as 1 / sqrt(runs) (a median's interval does, for one group of
 * runs).  A case stops out of reach (IPC_STOP_OUT_OF_REACH) when this is
 * above IPC_REACH_FACTOR times the target from IPC_REACH_RUNS runs on,
 * where several cases share a budget.  -1 when @half_pct < 0 or @nruns is 0.
 */
double ipc_sched_reach_pct(const struct ipc_runopts *ro, size_t nruns,
			   double half_pct);

/*
 * Hold the request @us (microseconds, 0 or more; below 0: off, nothing is
 * opened) through the device @path ("/dev/cpu_dma_latency") until
 * ipc_pmqos_release.  Fills @q whatever happens and returns 0 when held
 * or off, else -errno with @q saying why (not fatal to a measurement:
 * the caller records it and measures with the machine's own policy).
 * The descriptor is close-on-exec; a process forked meanwhile shares the
 * request until it exits too.  The cpuidle driver is read from
 * @driver_file (NULL: IPC_CPUIDLE_DRIVER_FILE) whatever the state.
 */
int ipc_pmqos_hold(struct ipc_pmqos *q, const char *path, int us,
		   const char *driver_file);

/* Withdraw the request of @q (a no-op when it is not held). */
void ipc_pmqos_release(struct ipc_pmqos *q);

/*
 * The host's fingerprint @h into the JSON object @o, in the document's
 * form ("host": null for unknown, with the load averages and the perf
 * counters; pm_qos and started are the document writer's) or the form a
 * server sends of itself (flat scalars, unknown left out, with its side of
 * --pm-qos from h->pm_qos).  0 or -ENOMEM.  ipc_host_fields is the
 * document form's table, which its reader reads back.
 */
enum ipc_host_form {
	IPC_HOST_DOC,
	IPC_HOST_PEER,
};
struct json_t;
struct ipc_ftable;
int ipc_host_put(struct json_t *o, const struct ipc_host *h,
		 enum ipc_host_form form);
extern const struct ipc_ftable ipc_host_fields;
#define IPC_HOST_KEY_LOADAVG "loadavg"
#define IPC_HOST_KEY_PERF "perf"
#define IPC_HOST_KEY_CYCLES "cycles"
#define IPC_HOST_KEY_INS "instructions"
#define IPC_HOST_KEY_MIGR "migrations"
#define IPC_HOST_KEY_NOTE "note"

/* "held", "off", "denied", "absent", "failed"; NULL for unknown. */
const char *ipc_pmqos_state_name(int state);

/*
 * What the CPUs' idle states were while measuring, in one sentence into
 * @buf (held out of deep idle by the request, or the machine's own
 * policy and why); NULL for a document from before it was recorded.
 */
char *ipc_pmqos_words(const struct ipc_pmqos *q, char *buf, size_t len);

/* Room enough for ipc_pmqos_words' longest sentence. */
#define IPC_PMQOS_WORDS 400

/*
 * Two CPUs to place a case's sides on, from those this process may run
 * on: @cpu[0] the first, @cpu[1] the next one on another core (not an SMT
 * sibling of the first) where there is one, else the next at all.
 * Returns how many it found (0, 1 or 2); *smt says whether @cpu[1] shares
 * @cpu[0]'s core (1), does not (0), or the topology is unknown (-1).
 */
int ipc_cpus_pick(int cpu[2], int *smt);

/*
 * Are CPUs @a and @b SMT siblings (one core)?  1, 0, or -1 when the
 * topology cannot be read.
 */
int ipc_cpus_siblings(int a, int b);

/* " cpus=1", " cpus=2" for @pl in a case's words, "" for the scheduler's. */
const char *ipc_place_word(const struct ipc_place *pl);

/* The 1-minute load average now, or -1 when it cannot be read. */
double ipc_loadavg_1m(void);

/* Cost of one clock_gettime(CLOCK_MONOTONIC), the median of many, in ns. */
uint64_t ipc_timer_cost_ns(void);

/* A value of @res's metric in its unit: "5.10 µs", "812 MiB/s", "18 k/s". */
char *ipc_fmt_metric(const struct ipc_result *res, double v, char *buf,
		     size_t len);

/*
 * A figure of the kind @fmt says (IPC_FMT_NS, _BYTES, _RATE, _BPS; others
 * as an integer), "-" when not finite.
 */
char *ipc_fmt_value(enum ipc_fmt fmt, double v, char *buf, size_t len);

/*
 * Is @res what docs/methodology.md, "unix stream rr on two CPUs", calls
 * the kernel's early wake-up of a blocking unix stream reader: rr over
 * unix or socketpair through the blocking engine, the sides on two CPUs
 * (pinned so, or most runs ending so), and a side that blocked more than
 * IPC_EARLY_WAKE_VCSW times per round trip (voluntary context switches;
 * once is the least)?  Its runs then take about three times as long, at
 * random; -e poll measures the socket without it.  The most of the two
 * sides' switches into *@vcsw (may be NULL; -1 when neither counted).
 */
bool ipc_result_early_wake(const struct ipc_result *res, double *vcsw);

/*
 * "round trip", "message" or "chunk": what CPU cost is counted per (the
 * pattern's cost_per).
 */
const char *ipc_cost_unit(const struct ipc_result *res);

/* ipc_result_metric, with @m instead of the pattern's when not NULL. */
const struct ipc_metric *ipc_result_metric_as(const struct ipc_result *res,
					      const struct ipc_metric *m);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Running measurements: cases, the options that shape every run, peers
 * (process or thread), warm-up, repeated runs on fresh endpoints, and
 * cleanup on every exit path.  The result records are what reports print.
 */
#ifndef IPCPERF_RUN_H
#define IPCPERF_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "engine.h"
#include "explain.h"
#include "framing.h"
#include "link.h"
#include "pattern.h"
#include "stats.h"
#include "transport.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How every run of every case is done. */
struct ipc_runopts {
	uint64_t iterations;  /* measured iterations per run */
	uint64_t duration_ns; /* or measure each run this long (0: by count) */
	uint64_t warmup;      /* iterations discarded before each run */
	unsigned runs;	      /* independent runs per case */
	enum ipc_placement placement;
	bool verify;		  /* check every received payload */
	uint64_t timeout_ns;	  /* longest wait for a datagram */
	int pin_client;		  /* CPU for the client, -1: not pinned */
	int pin_server;		  /* CPU for the server, -1: not pinned */
	struct ipc_tp_opts tp;	  /* socket options (dir and max_msg are set
				  by the runner) */
	struct ipc_faults faults; /* testing aids for the server side */
	/* How many runs: see ipc_run_plan and docs/methodology.md. */
	bool runs_auto;	    /* run until the interval meets the target */
	unsigned min_runs;  /* auto: at least this many runs [5] */
	unsigned max_runs;  /* auto: at most this many [30] */
	double ci_level;    /* level of the run-to-run interval [0.95] */
	double ci_pct;	    /* target: half-width <= this % of the estimate */
	uint64_t budget_ns; /* auto: time for the whole plan, 0: none */
	bool interleave;    /* several cases: their runs round-robin */
	bool perf;	    /* count cycles and instructions (--perf); this
			       makes every context switch dearer */
	/*
	 * The CPU latency request held while measuring (ipc_pmqos_hold),
	 * if pm_qos_held: at 0 us idle CPUs only poll, which lets the load
	 * figure take cpuidle's idle times (docs/methodology.md).
	 */
	bool pm_qos_held;
	int pm_qos_us;
	bool explain; /* --explain: the kernel says where the time went */
	/*
	 * --explain-flagged: a case whose runs' spread was flagged is run
	 * again (IPC_EXPLAIN_PASS_RUNS runs) with explain, after its own
	 * runs, where BPF can be loaded; the cause goes into its flags'
	 * words and the pass's phases into its explain (second_pass).
	 */
	bool explain_flagged;
	uint64_t interval_ns; /* -i: an interval report this often, 0: none */
	/*
	 * Told of each interval as it closes, in the client's thread between
	 * two samples (keep it short: a line on a terminal), or NULL.
	 */
	void (*on_interval)(void *arg, const struct ipc_case *cs, unsigned run,
			    const struct ipc_interval *iv);
	void *on_interval_arg;
};

#define IPC_MIN_RUNS 5
#define IPC_EXPLAIN_PASS_RUNS 6 /* the runs of an interval at 95% */
#define IPC_MAX_RUNS_DEFAULT 30

/* Fill @ro with the defaults (documented in --help). */
void ipc_runopts_default(struct ipc_runopts *ro);

enum ipc_status {
	IPC_STATUS_OK = 0,
	IPC_STATUS_ERROR = 1,	/* no run completed */
	IPC_STATUS_PARTIAL = 2, /* some runs or iterations completed */
};

/*
 * What one side (client or server) of one run cost, over its whole pattern
 * loop, warm-up included, and where it ran.  Counters that could not be
 * read are -1.
 */
struct ipc_side_cost {
	bool valid;	      /* the side reported (false: it failed early) */
	uint64_t user_ns;     /* user CPU time of the side's thread */
	uint64_t sys_ns;      /* system CPU time */
	uint64_t vcsw;	      /* voluntary context switches (blocked) */
	uint64_t ivcsw;	      /* involuntary ones (preempted) */
	int64_t cycles;	      /* perf (--perf): CPU cycles, -1 not counted */
	int64_t instructions; /* perf (--perf): instructions, -1 likewise */
	int64_t migrations;   /* moves to another CPU, -1 when unknown */
	int cpu_start;	      /* the CPU it was on when the loop began, -1 */
	int cpu_end;	      /* ... and when it ended */
	char allowed[64];     /* CPUs it may run on (affinity), "0-3,6" */
};

/* Where a run's busy_ns came from (docs/methodology.md, "load"). */
enum ipc_load_src {
	IPC_LOAD_SRC_STAT = 0, /* /proc/stat's ticks: user + nice + system */
	IPC_LOAD_SRC_CPUIDLE,  /* CPUs x wall - cpuidle's idle - steal */
	IPC_LOAD_SRC_CPUACCT,  /* the root cgroup's cpuacct.usage */
	IPC_LOAD_SRC_MIXED,    /* a summary of runs of several (diag only) */
	IPC_LOAD_SRC_CGROUP2,  /* cgroup v2: the root's cgroups' usage */
};

/* What one run measured. */
struct ipc_run_stats {
	uint64_t iterations; /* round trips, batches or transfers */
	uint64_t messages;   /* messages moved one way or both */
	uint64_t bytes;	     /* payload bytes moved */
	uint64_t elapsed_ns; /* time the measured iterations took */
	double msgs_per_s;   /* messages / elapsed (rr: round trips / s) */
	double bytes_per_s;  /* bytes / elapsed */
	struct ipc_lat lat;  /* per-iteration time, ns */
	uint64_t timer_ns;   /* cost of one clock read, measured before */
	struct ipc_sock_info sock; /* the client's socket options as granted */
	struct ipc_loss loss;	   /* lossy transports (loss.counted) */
	struct ipc_flows flows;	   /* load (flows.flows > 0) */
	/* Added with the noise diagnosis; zero in a summary. */
	uint64_t wall_ns;   /* the whole run: set-up to teardown */
	uint64_t loop_msgs; /* messages incl. warm-up (cost divisor) */
	struct ipc_side_cost client, server;
	uint64_t ours_ns;   /* CPU time of ipcperf and its peer */
	uint64_t busy_ns;   /* CPU time busy on the machine (load_src) */
	uint64_t steal_ns;  /* CPU time taken by the hypervisor */
	unsigned load_cpus; /* CPUs busy_ns is summed over; 0: unknown */
	bool have_load;	    /* busy_ns and steal_ns were read */
	enum ipc_load_src load_src; /* how busy_ns was had */
	uint64_t idle_stays;	    /* CPUIDLE: idle stays that ended */
	uint64_t kernel_ns; /* of busy_ns, the kernel's worker threads' */
	/*
	 * The pattern's extra figures (ipc_pattern_ops.extras): per run
	 * those it counts in each run, in the summary their sums and the
	 * ones it computes once per result.  Not finite: not measured.
	 */
	double extra[IPC_EXTRA_MAX];
	bool outlier; /* far from the case's other runs (ipc_runs_outliers),
			 set by the diagnosis; false in a summary */
};

/*
 * One stream of a run of parallel streams (-P, --bidir): what it moved
 * on its own channel.  The run's figures are the sums of its streams'
 * (rates too: they ran at the same time).
 */
struct ipc_stream {
	uint32_t run;	     /* the run it belongs to, 0-based */
	uint32_t index;	     /* its number in the run, 0-based */
	unsigned direction;  /* IPC_DIR_SEND or IPC_DIR_REVERSE */
	bool failed;	     /* it ended with an error (the run is partial) */
	uint64_t iterations; /* its batches or transfers */
	uint64_t messages;
	uint64_t bytes;
	uint64_t elapsed_ns; /* the time its measured iterations took */
	double msgs_per_s;
	double bytes_per_s;
	uint64_t lost; /* lossy transports: messages lost */
};

/* Why a case's runs ended. */
enum ipc_stop {
	IPC_STOP_NONE = 0,     /* not ended (yet) */
	IPC_STOP_RUNS,	       /* the fixed number of runs (-r N) is done */
	IPC_STOP_TARGET,       /* the interval met the target */
	IPC_STOP_MAX_RUNS,     /* --max-runs reached first */
	IPC_STOP_BUDGET,       /* --budget spent first */
	IPC_STOP_FAILED,       /* a run failed */
	IPC_STOP_INTERRUPTED,  /* ipc_run_stop (the CLI: SIGINT, SIGTERM,
				  SIGHUP) */
	IPC_STOP_OUT_OF_REACH, /* so wide that --max-runs would not narrow
				  it to the target: the budget went to the
				  other cases (docs/methodology.md) */
};

/* "target", "max-runs", ... for reports; "" for IPC_STOP_NONE. */
const char *ipc_stop_name(enum ipc_stop stop);

/* Reasons not to trust a result, each with what to do about it. */
enum ipc_flag_kind {
	IPC_FLAG_UNSTABLE = 0, /* the interval did not meet the target */
	IPC_FLAG_BIMODAL,      /* the runs fall into two groups */
	IPC_FLAG_OUTLIERS,     /* some runs lie far from the others */
	IPC_FLAG_LOAD,	       /* other processes used the CPUs meanwhile */
	IPC_FLAG_SHORT,	       /* too short to tell whether others did */
	IPC_FLAG_SHARED,       /* the remote server ran other tests meanwhile */
	IPC_FLAG_REFUSED,      /* another process connected to the channel */
	IPC_FLAG_COUNT
};

/*
 * Names and hints of the flags (diag.flags bits) are in the document
 * layer, which records them: ipc_flag_name() and friends in doc.h.
 */

/* CPU cost per message of one side, over every run; -1: not counted. */
struct ipc_cost {
	bool valid;	/* at least one run reported this side */
	double user_ns; /* user CPU per message */
	double sys_ns;	/* system CPU per message */
	double vcsw;	/* voluntary context switches per message */
	double ivcsw;	/* involuntary context switches per message */
	double cycles;	/* per message, -1 unless every run counted */
	double instructions;
};

/* The longest sentence saying why a flag applies, with its NUL. */
#define IPC_WHY_MAX 384

/* What the diagnosis saw over a case's runs (see ipc_result_diagnose). */
struct ipc_diag {
	enum ipc_stop stop;	/* why the runs ended */
	bool target_met;	/* the interval is within ci_pct */
	double half_pct;	/* its half-width, % of the estimate; -1 */
	double estimate;	/* median of the per-run metric */
	struct ipc_modes modes; /* two groups of runs, if any */
	size_t outliers;	/* runs far from the others */
	size_t same_cpu_runs;	/* runs with both sides on one CPU at end */
	size_t split_cpu_runs;	/* runs with the sides on different CPUs */
	bool have_load;
	double other_cpus;    /* CPUs other processes kept busy, average */
	double steal_cpus;    /* CPUs the hypervisor took, average */
	double load_res_cpus; /* +- of those two (2 sigma), -1: unknown */
	enum ipc_load_src load_src; /* of the runs' busy_ns, if have_load */
	double loadavg_1m;	    /* /proc/loadavg when the case ended, -1 */
	size_t mode_same[2];	    /* runs of the lower [0] and upper [1] */
	size_t mode_split[2];	    /* group on one CPU / on different CPUs */
	struct ipc_cost client, server;
	/* A side blocked this many times a round trip, when more than
	   ipc_result_early_wake allows (the unix stream early wake-up); 0
	   when not seen. */
	double early_wake_vcsw;
	unsigned flags; /* 1 << IPC_FLAG_* for each that applies */
	const struct ipc_metric *metric; /* what the runs were judged by */
	/* Why each flag applies, with its numbers, as diagnosed; "" else. */
	char why[IPC_FLAG_COUNT][IPC_WHY_MAX];
};

/* Everything measured for one case. */
struct ipc_result {
	struct ipc_case cs;
	struct ipc_runopts ro; /* the options the case ran with */
	enum ipc_status status;
	char error[512];	    /* what went wrong, "" when status is ok */
	struct ipc_run_stats *runs; /* nruns completed runs */
	size_t nruns;
	size_t runs_cap;
	struct ipc_hist *hist;	      /* every run's samples merged */
	struct ipc_run_stats summary; /* over all runs */
	struct ipc_runs_stats metric; /* run-to-run spread of the metric */
	struct ipc_diag diag;	      /* stopping, noise, load and cost */
	unsigned runs_begun;	      /* runs started, failed ones too */
	struct ipc_hist *xhist; /* replay: every exchange's time, merged */
	struct ipc_lat xlat;	/* replay: summary of xhist, ns */
	uint64_t xcount;	/* replay: exchanges in xhist */
	uint64_t refused;	/* connections to a local run's port without
				   its token (another process's), closed, over
				   all runs; the refused flag when not 0 */
	/* When the other end ran on another host (the remote peer): */
	char peer_host[1024]; /* its fingerprint, JSON text, "" otherwise */
	uint64_t peer_others; /* most other tests it ran during one run; the
				 shared flag when not 0 */

	/* replay --target: the first reply unlike the trace's, in words. */
	char mismatch[300]; /* "" if none */
	/* http over TLS: the session in words (the first run's). */
	char session[160];		    /* "" if none */
	struct ipc_explain_result *explain; /* --explain: where the time
					       went, NULL when not asked */
	struct ipc_interval *ivals; /* -i: every run's intervals in order,
				       each naming its run */
	size_t nivals;
	size_t ivals_cap;
	struct ipc_stream *streams; /* -P, --bidir: every run's streams in
				       order, each naming its run */
	size_t nstreams;
	size_t streams_cap;
};

/*
 * Describe @cs in words for error messages and progress lines, such as
 * "rr tcp req=64 resp=1024" (engine added when it is not blocking).
 * Returns @buf.
 */
char *ipc_case_describe(const struct ipc_case *cs, char *buf, size_t len);

/*
 * Can @cs run with @ro, its transport and engine being fine (above)?
 * Asks its peer kind's check, its pattern's check (sizes, engine, the
 * placement), whether a trace-playing pattern has its trace, and whether
 * its largest message fits the transport.  0, or -errno and one sentence
 * in @why.
 */
int ipc_case_check(const struct ipc_case *cs, const struct ipc_runopts *ro,
		   char *why, size_t why_len);

/*
 * A run: what a running plan needs, owned by its caller, so that several
 * runs can live in one process (a server running many tests, a test
 * running two plans at once) without sharing anything:
 *
 *   - its stop: ipc_run_stop ends the measurement in progress and every
 *     case after it, whatever thread or signal handler calls it;
 *   - its private directory, $TMPDIR/ipcperf.XXXXXX (mode 0700), for the
 *     FIFOs and socket files of its channels, which it names; locked
 *     (flock) while the run or a peer it forked lives;
 *   - its peers, started and ended run by run (struct ipc_peer_ops).
 *
 * A run drives one measurement at a time: one ipc_run_plan, or the case
 * functions below from one thread.  Two plans at once need two runs.
 * docs/architecture.md draws how a stop reaches every wait.
 */
struct ipc_run;

/*
 * A new run with its directory made and its stop ready (which installs
 * the library's wake signal handler the first time, see
 * ipc_wake_signal).  Directories in $TMPDIR that runs of this user left
 * when SIGKILLed (marked, owned, mode 0700 and not locked) are removed
 * first.  0, or -errno with *@run NULL: mkdtemp's error (a bad TMPDIR),
 * -ENAMETOOLONG when $TMPDIR is too long for socket paths, -EBUSY when
 * another handler holds the wake signal.
 */
int ipc_run_new(struct ipc_run **run);

/*
 * Remove the directory with whatever a failed teardown left in it and
 * free @run.  Nothing may run on it any more, and ipc_run_stop may not be
 * called on it now or later (a signal handler must stop using it first).
 * NULL: no-op.
 */
void ipc_run_free(struct ipc_run *run);

/*
 * Stop @run: the measurement in progress ends at its next wait (its loop
 * sees the stop between two iterations, never inside a timed one, and a
 * blocked call is interrupted), what it measured is kept and marked
 * partial, and every case not finished ends as interrupted.  @sig is the
 * signal that asked, for messages ("interrupted by SIGINT"); 0 when none
 * did ("interrupted").  The first stop's @sig stays.  Async-signal-safe
 * and thread-safe: the CLI's SIGINT, SIGTERM and SIGHUP handlers call it.
 */
void ipc_run_stop(struct ipc_run *run, int sig);

/*
 * The other end of a run.  A peer kind is a const table, like a
 * transport; the runner calls it for every run of a case:
 *
 *   set up the channel ── start ──┬─ client: open, warm up, measure, close
 *                                 └─ the other end serves ...
 *   ... stop (the other end ends, or is ended; its figures come back)
 *   tear the channel down
 *
 *   process   ipcperf's server side in a forked process (--placement
 *             process, the default).  Its stop is its own: a descriptor
 *             and a flag in memory shared with this run only, and the
 *             wake signal sent to its pid; a fresh one every run.
 *   thread    the server side in a helper thread of this process
 *             (--placement thread), stopped by a cancel of its own.
 *   external  nothing is started: the server is already there (an HTTP
 *             server, a gdbserver, an ipcperf server someone started);
 *             the channel is connect-only, toward cs->target, and the
 *             server's cost is unknown.
 *
 * Later kinds fit the same table: remote mode starts the server side on
 * another host over a control connection in start (and may point the
 * client elsewhere by changing ch->addr there), fires the client's stop
 * when that connection dies, and brings the server's figures back in
 * stop.  An HTTP target or a live gdb stub is external.
 */
struct ipc_peer {
	/* Set by the runner before start, constant until stop returns. */
	const struct ipc_case *cs;
	const struct ipc_runopts *ro;
	struct ipc_chan *ch; /* set up; the client opens it after start */
	/*
	 * The client's stop.  A kind fires it (ipc_cancel_fire) when the
	 * other end ended or failed before stop was called, so that a client
	 * blocked waiting for an answer that will never come gets out; the
	 * runner then tells the story.
	 */
	struct ipc_cancel *client;
	/*
	 * ipcperf's own server side of cs, for the kinds that run it here:
	 * pin, open the channel's server side, attach, the pattern's server
	 * loop, close, with the results in out and cost.  Call it in the
	 * thread or process that serves; it returns soon after @stop is fired
	 * (a thread that makes its blocking calls watches @stop, see
	 * ipc_cancel_watch; a process is sent the wake signal).
	 */
	void (*serve)(struct ipc_peer *p, const struct ipc_cancel *stop);
	void *serve_arg; /* the runner's, for serve */
	/* Filled by the kind by the time stop returns. */
	struct ipc_pout out;	   /* the server's loop (zero when none ran);
				out.err is what it returned: nonzero only
				when it failed */
	struct ipc_side_cost cost; /* its CPU cost, valid false: unknown */
	char story[176]; /* how it ended if not well ("peer killed by signal
			    9 (Killed)"), else "" */
	uint64_t remote_others; /* remote: other tests the server ran during
				   the run */
	char remote_host[1024]; /* remote: the server's fingerprint, a JSON
				   object as text; "" when not known */
	void *priv; /* the kind's own state between start and stop */
	/* --explain: the observer serve registers its thread with, NULL:
	   none (serve runs in the serving thread, and a forked process
	   keeps the observer's memory mapped). */
	struct ipc_explain *explain;
	/* remote --explain: the server side's own phases over the run (ns,
	   by phase, its serving thread counted whole), the p99 of one event
	   of each phase where it had events (ns, 0: none) and the window
	   they cut; remote_xwindow_ns 0: none came, remote_xwhy says why if
	   the server said. */
	uint64_t remote_xns[IPC_XPHASES];
	uint64_t remote_xp99[IPC_XPHASES];
	uint64_t remote_xwindow_ns;
	char remote_xwhy[160];
};

/* Bits of struct ipc_peer_ops.flags. */
#define IPC_PEER_ELSEWHERE                                                     \
	(1u << 0) /* the server is not started here: the channel is set up
		     connect-only toward cs->target (transports with
		     IPC_TP_TARGET); no server side is opened here */

struct ipc_peer_ops {
	const char *name; /* "process", "thread", "external" */
	const char *help; /* one line */
	unsigned flags;	  /* IPC_PEER_* */

	/*
	 * Optional: can @cs run with this kind and @ro?  0, or -errno and
	 * one sentence in @why.  ipc_case_begin asks before the first run.
	 */
	int (*check)(const struct ipc_case *cs, const struct ipc_runopts *ro,
		     char *why, size_t why_len);

	/*
	 * Start the other end for one run: after the channel is set up,
	 * before the client opens its side.  0, or -errno with nothing left
	 * running and p->story saying what failed.
	 */
	int (*start)(struct ipc_peer *p);

	/*
	 * The client is done (its endpoint closed, or it failed): make the
	 * other end finish, wait for it, and fill out, cost and story.
	 * Bounded in time (a process that does not end within 2 s is
	 * killed); never fails; afterwards nothing of the peer runs and
	 * nothing it opened in this process is left open.
	 */
	void (*stop)(struct ipc_peer *p);
};

/*
 * The server side of @cs alone, for a server whose client is on another
 * host (ipcperf server): _begin allocates the buffers once; each _once
 * serves one run on @ch, set up by the caller (a listening socket in
 * slot 0, or a connected one in the server's slot), in the calling
 * thread, which must watch @stop (ipc_cancel_watch); it returns soon
 * after @stop is fired, or when the client closes, with the loop's
 * figures in @out and its CPU cost in @cost.  _end frees.  @cs and @ro
 * must outlive the state.  _begin returns 0 or -ENOMEM.
 */
struct ipc_serve_state;

/*
 * One case run by run, for a scheduler that interleaves cases: _begin
 * prepares @res for @cs (which must outlive the state) in @run, each
 * _once does one more run on a fresh channel and peer and appends it to
 * @res, _end summarizes, diagnoses (with @stop as the reason the runs
 * ended), sets res->status and frees the state.  _once returns 0, or
 * -errno after recording the failure in @res (the case should then end).
 * _begin returns 0 or -errno (res->status and res->error say so; call
 * nothing else).  Nothing is left behind: no peer, descriptor or file.
 */
struct ipc_case_state;

/*
 * The metric @res is judged by: diag.metric once diagnosed, else its
 * pattern's (p50 latency for rr, throughput for stream and bulk), with the
 * pattern's throughput in bytes/s turned into messages/s when no run moved
 * a payload byte (size 0); the p50 latency without a pattern.
 */
const struct ipc_metric *ipc_result_metric(const struct ipc_result *res);

/*
 * The headline number of a result: what every format shows as the case's
 * latency or throughput.  It is the estimate (the median of the runs'
 * metric: p50 for rr, throughput for stream) with the interval the runs
 * give for it, never a percentile of every run's samples pooled together:
 * when the runs differ (a peer placed differently from run to run) the
 * pooled p50 can lie outside that interval.  Pooled figures stay in the
 * summary (summary.lat), labelled as pooled where they are printed.
 */
struct ipc_headline {
	const struct ipc_metric *metric; /* what it is a value of */
	bool valid;   /* some run measured it (else nothing to show) */
	double value; /* the estimate: median of the runs' metric */
	size_t runs;  /* the runs it is the median of */
	bool have_ci; /* an interval (6 runs or more at 95%) */
	double level; /* its level, 0.95 */
	double low;   /* its bounds, in the metric's unit */
	double high;
	double half_pct; /* (high - low) / 2 in % of value, -1 without */
};

/* Fill @h with the headline of @res (as diagnosed or read back). */
void ipc_result_headline(const struct ipc_result *res, struct ipc_headline *h);

/*
 * The figure @src of @res in @s, which is res->summary or one of
 * res->runs[] (per-exchange latencies exist only for the whole result):
 * NAN when @res does not have it (loss on a transport that loses
 * nothing, the send lag of a closed loop, an extra not measured).
 */
double ipc_result_value(const struct ipc_result *res,
			const struct ipc_run_stats *s, enum ipc_src src);

/* Thresholds of the load flag, in CPUs kept busy on average. */
#define IPC_LOAD_OTHER_CPUS 0.25
#define IPC_LOAD_STEAL_CPUS 0.10

/*
 * The scheduler, apart from what a run is, so that it can be tested with
 * made-up runs.  It decides which case runs next and when each is done:
 *
 *   fixed (-r N):  every case exactly N runs (fewer if one fails).
 *   auto:          at least min_runs; then a case is done when its
 *                  interval meets the target (ipc_runs_target_met), at
 *                  max_runs, or when the budget cannot fit its next run
 *                  (its mean run time so far); the budget never cuts a case
 *                  below ipc_sched_floor_runs.
 *   interleave:    rounds over the cases not yet done, in an order shuffled
 *                  anew each round (Fisher-Yates, seeded), so that a drift
 *                  in the machine's speed hits every case alike; otherwise
 *                  case after case, each with an equal share of what is
 *                  left of the budget.
 *
 * Any failed run ends its case; an interruption ends every case.
 */
struct ipc_sched_ops {
	/*
	 * One more run of case @i: 0 with its metric in *value and the time
	 * it took in *wall_ns, or -errno (the case ends as failed).
	 */
	int (*run)(void *arg, size_t i, double *value, uint64_t *wall_ns);
	uint64_t (*now_ns)(void *arg);	/* a monotonic clock */
	bool (*interrupted)(void *arg); /* stop everything now? */
	/* Case @i will run no more, because of @stop. 0 or -errno. */
	int (*finish)(void *arg, size_t i, enum ipc_stop stop);
	/*
	 * Called for every case in plan order once it and all before it
	 * finished (so reports keep the plan's order).  0 or -errno.
	 */
	int (*emit)(void *arg, size_t i);
};

#define IPC_REACH_RUNS 15
#define IPC_REACH_FACTOR 2.0

/*
 * Run a whole plan in @run: every case of @cases (@n of them, each with
 * its own options @ros[i]) through ipc_schedule, with the rules of
 * @ros[0].  ipc_run_stop(@run) from any thread or signal handler ends it
 * early.
 * @started (may be NULL) is called before each run, for a progress line,
 * and @again (may be NULL) before each run of a flagged case's second
 * pass with explain (--explain-flagged): run @k, from 1, of @runs;
 * @done once per case in plan order with its finished result, which the
 * callee may keep only during the call.  A case that was interrupted
 * before its first run comes with res->diag.stop IPC_STOP_INTERRUPTED, no
 * runs and res->error "not run: interrupted by SIGINT" (or whatever
 * stopped it).  Returns 0 when every case measured without failure, 1 when one
 * failed (recorded in its result), or -errno when a callback failed or
 * memory ran out.
 */
struct ipc_plan_hooks {
	void *arg;
	void (*started)(void *arg, size_t i, const struct ipc_result *res);
	int (*done)(void *arg, size_t i, const struct ipc_result *res);
	void (*again)(void *arg, size_t i, const struct ipc_result *res,
		      unsigned k, unsigned runs);
};

int ipc_run_plan(struct ipc_run *run, const struct ipc_case *cases,
		 const struct ipc_runopts *ros, size_t n,
		 const struct ipc_plan_hooks *hooks);

/*
 * The CPU latency request (PM QoS) a measurement holds: while a process
 * keeps /dev/cpu_dma_latency open with a 32-bit value written to it, the
 * kernel keeps every CPU in idle states whose exit latency is within that
 * many microseconds (0: cpuidle polls instead of halting); closing it
 * (also by exiting) withdraws the request.  The effective value is the
 * smallest request of all holders.  docs/methodology.md says why
 * ipcperf holds 0 by default.
 */
enum ipc_pmqos_state {
	IPC_PMQOS_UNKNOWN, /* not recorded (a document from before) */
	IPC_PMQOS_HELD,	   /* held at request_us while measuring */
	IPC_PMQOS_OFF,	   /* not asked for (--pm-qos off): nothing opened */
	IPC_PMQOS_DENIED,  /* the device cannot be opened for writing */
	IPC_PMQOS_ABSENT,  /* there is no such device */
	IPC_PMQOS_FAILED,  /* opened, but the request was not taken */
};

struct ipc_pmqos {
	int state;	   /* enum ipc_pmqos_state */
	int request_us;	   /* what was asked, -1 for off */
	int64_t before_us; /* effective value before ours, -1 unknown */
	char error[96];	   /* why it is not held (strerror), or "" */
	int fd;		   /* the open device while held, else -1 */
	/*
	 * The kernel's cpuidle driver, "" when it could not be read.  Only
	 * a driver's governor reads the request: with "none" every idle
	 * CPU runs the kernel's default idle routine, held or not.
	 */
	char idle_driver[32];
};

/* Where the kernel names its cpuidle driver. */
#define IPC_CPUIDLE_DRIVER_FILE "/sys/devices/system/cpu/cpuidle/current_driver"

/* The device of the CPU latency request. */
#define IPC_PMQOS_DEVICE "/dev/cpu_dma_latency"

/* The kernel's default, no constraint: 2000 s in microseconds. */
#define IPC_PMQOS_MAX_US 2000000000

/* Facts about this machine recorded with every result. */
struct ipc_host {
	char kernel[160]; /* uname -sr */
	char machine[72]; /* uname -m */
	char hostname[72];
	char cpu_model[128]; /* from /proc/cpuinfo, "" if unknown */
	int cpus;	     /* online logical CPUs */
	uint64_t timer_ns;   /* cost of one CLOCK_MONOTONIC read */
	/* The rest of the fingerprint: -1 or "" where it cannot be read. */
	int cores;	      /* physical cores (distinct package, core id) */
	int packages;	      /* CPU sockets */
	int smt;	      /* 1: SMT on, 0: off, -1: unknown */
	uint64_t mem_bytes;   /* MemTotal */
	bool hypervisor;      /* the CPU says it runs under a hypervisor */
	char virt[48];	      /* what kind, when known: "kvm", "docker", ... */
	char clocksource[32]; /* the kernel's current clock source */
	char governor[32];    /* cpufreq governor of CPU 0 */
	double loadavg[3];    /* 1, 5, 15 minutes, at the start; -1 unknown */
	char perf[200];	      /* perf counters: "" if all, else what is not */
	bool perf_hw;	      /* cycles and instructions can be counted */
	bool perf_sw;	      /* CPU migrations are known (scheduler stats) */
	char started[32];     /* UTC, ISO 8601, when the probe ran */
	char ended[32];	      /* set by ipc_host_finish */
	uint64_t started_ns;  /* CLOCK_MONOTONIC at the probe */
	uint64_t ended_ns;
	struct ipc_pmqos pm_qos; /* the CPU latency request while measuring */
};

void ipc_host_probe(struct ipc_host *h);

/* Record the end time in @h (after the last case). */
void ipc_host_finish(struct ipc_host *h);

/*
 * Human units for the table (ipc_fmt_ns, ipc_fmt_bytes, ipc_fmt_rate,
 * ipc_fmt_bps) are in base.h, with the parser of the same units.
 */

/*
 * Why @res has flag @kind, with its numbers, in one sentence into @buf:
 * the sentence the diagnosis stored (or the document it was read from
 * held), "" when it has none.  Returns @buf.
 */
char *ipc_flag_why(const struct ipc_result *res, enum ipc_flag_kind kind,
		   char *buf, size_t len);

#define IPC_EARLY_WAKE_VCSW 1.2

#ifdef __cplusplus
}
#endif

#endif

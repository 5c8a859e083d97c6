/* SPDX-License-Identifier: MIT */
/*
 * What the runner's files share and nothing else needs: the run object's
 * inner parts, host and cost probes, load snapshots.
 */
#ifndef IPCPERF_RUN_INTERNAL_H
#define IPCPERF_RUN_INTERNAL_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
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

/*
 * --explain's program of @run, loaded on the first call; NULL with *@why
 * saying why when it cannot be (the reason stays for later calls).
 */
struct ipc_explain *run_explain(struct ipc_run *run, const char **why);

/*
 * The plan's hooks while case @i ends (NULL: none, outside a plan), and
 * the call of their @again before run @k of @runs of its second pass.
 */
void run_hooks_set(struct ipc_run *run, const struct ipc_plan_hooks *hooks,
		   size_t i);
void run_again_hook(const struct ipc_run *run, const struct ipc_result *res,
		    unsigned k, unsigned runs);

/*
 * --explain around the runs of a case (explain_run.c): the case's record
 * made; before a run the counters reset and the client's thread watched
 * (the observer to give the peer, or NULL); after it the run's sums added
 * to the case, with a remote server's own phases where @p has them; at
 * the end the phases computed.  Never fatal: a failure
 * marks the case's explanation unavailable with the reason.
 */
void xrun_case_begin(struct ipc_run *run, struct ipc_result *res);
struct ipc_explain *xrun_before(struct ipc_run *run, struct ipc_result *res);
void xrun_after(struct ipc_explain *x, struct ipc_result *res,
		const struct ipc_run_stats *st, const struct ipc_peer *p);
void xrun_case_end(struct ipc_result *res);
/* ipc_pctx's watch_self for --explain: @x watches the calling thread. */
void xrun_watch_self(void *x);

/*
 * --explain-flagged (diagnose.c): whether @res's runs' spread is flagged;
 * and @pass's explanation (a second pass of the same case, explained)
 * moved into @res, the cause it finds said after @res's spread flags.
 */
bool result_spread_flagged(const struct ipc_result *res);
void result_explained_again(struct ipc_result *res, struct ipc_result *pass);

/*
 * Parallel streams (streams.c): the figures of @n streams that ran at
 * once as one run in @out: counts and losses summed over the longest
 * elapsed time (the rates follow), the latency of @hist (their samples merged), and their
 * rates' fairness in out->flows.  Then their intervals as one series in
 * @out_iv (its storage): interval k of each stream added into interval
 * k, so that the series adds up to the run as each stream's does.
 */
/* Add the loss counts @l of a run or stream (completed or not) to @sum. */
void run_loss_add(struct ipc_loss *sum, const struct ipc_loss *l);

void run_streams_sum(struct ipc_run_stats *out, const struct ipc_hist *hist,
		     const struct ipc_run_stats *const *st, size_t n,
		     const struct ipc_extra *extras);
void run_streams_ivals(struct ipc_ivals *out_iv,
		       const struct ipc_ivals *const *iv, size_t n);

/* A name for the next channel of @run, unique in its directory ("7"). */
void run_chan_name(struct ipc_run *run, char *buf, size_t len);

/* "interrupted by SIGINT", or "interrupted" (stopped by a call).  @buf. */
char *run_stop_words(const struct ipc_run *run, char *buf, size_t len);

/*
 * A run by duration's watchdog (watchdog.c): once the client's pattern has
 * stored the start of its measured part in start_ns (struct
 * ipc_pctx.measuring_ns), it fires @stop at start + duration + grace, when
 * the client should long be done; a client still waiting then waits for a
 * peer that stalled.
 */
struct watchdog {
	uint64_t start_ns; /* atomic, the pattern's; 0 while warming up */
	uint64_t duration_ns, grace_ns;
	uint64_t warm_ns; /* the longest the warm-up may take */
	struct ipc_cancel *stop;
	pthread_t t;
	int fd;	      /* eventfd: watchdog_stop's word to the thread */
	bool running; /* the thread was started */
	bool fired;   /* atomic: it fired @stop */
};

/*
 * The grace of case @cs, whose largest message is @max_msg bytes: 2 s, a
 * quarter of the duration, and four times what one iteration must take on
 * an emulated link or a serial line.
 */
uint64_t watchdog_grace_ns(const struct ipc_case *cs,
			   const struct ipc_runopts *ro, size_t max_msg);

/*
 * The longest the warm-up before the measured part may take: 10 s, the
 * duration and its grace, and four times the warm-up's iterations on an
 * emulated link or a serial line.  A peer stopped before the measured
 * part begins would otherwise keep the client warming up for ever.
 */
uint64_t watchdog_warm_ns(const struct ipc_case *cs,
			  const struct ipc_runopts *ro, size_t max_msg);

/* Start the thread (0 or -errno); stop it: did it fire? */
int watchdog_start(struct watchdog *w, struct ipc_cancel *stop,
		   uint64_t duration_ns, uint64_t grace_ns, uint64_t warm_ns);
bool watchdog_stop(struct watchdog *w);

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
 * Add the CPU of the threads the pattern started (ipc_pout.helpers) to
 * @c, which cost_end filled for the calling thread; nothing if @c is not
 * valid.
 */
void cost_add_helpers(struct ipc_side_cost *c, const struct ipc_thread_cpu *h);

/*
 * What can be counted here, probed once: *hw for cycles and instructions
 * (perf events), *sw for CPU migrations (/proc/thread-self/sched); @note
 * says what is missing and why ("" when nothing is).
 */
void cost_probe(bool *hw, bool *sw, char *note, size_t len);

#define LOAD_PATH_MAX 128

/*
 * The kernel's worker threads, and their runtimes (/proc/PID/schedstat's
 * first field, ns): some transports hand every message to one (pty: the
 * tty layer's flush_to_ldisc), which is no other load.
 */
#define LOAD_KTHREADS_MAX 256
struct load_kthreads {
	unsigned n;
	int pid[LOAD_KTHREADS_MAX];
	uint64_t ns[LOAD_KTHREADS_MAX];
};

/*
 * The workers among @children (kthreadd's "/proc/2/task/2/children", a
 * list of PIDs), by their names under @proc ("kworker/...", but not the
 * rescuers "kworker/R-...", "ksoftirqd/...", "irq/..."), into @k->pid:
 * 0, or -EINVAL if the list is not one of numbers.
 */
int load_kthreads_parse(const char *children, const char *proc,
			struct load_kthreads *k);

/*
 * Where a run's load can be read from here (hostload.c): the root cgroup's
 * cpuacct.usage (cgroup v1), else the cgroups under the root's cpu.stat
 * (cgroup v2), else cpuidle's idle times of the online CPUs, else
 * /proc/stat.
 */
#define LOAD_CG_MAX 32
struct load_probe {
	enum ipc_load_src src;	  /* the best source found */
	char acct[LOAD_PATH_MAX]; /* .../cpuacct.usage (CPUACCT) */
	char cg2[LOAD_PATH_MAX];  /* CGROUP2: the hierarchy's mount */
	char cg[LOAD_CG_MAX][64]; /* ... the cgroups under its root */
	unsigned ncg;
	unsigned ncpus;	  /* CPUIDLE: the online CPUs, in cpus */
	unsigned nstates; /* the most idle states a CPU has */
	cpu_set_t cpus;
	char root[LOAD_PATH_MAX]; /* "/sys/devices/system/cpu" */
	char proc[LOAD_PATH_MAX]; /* "/proc" */
	char why[96];		  /* why not cpuidle, if it was probed */
	struct load_kthreads kt;  /* the kernel's workers (no runtimes) */
};

/* Where load_probe looks; NULL members: the system's own. */
struct load_paths {
	const char *mountinfo; /* "/proc/self/mountinfo" */
	const char *cpu;       /* "/sys/devices/system/cpu" */
	const char *proc;      /* "/proc" */
};

/*
 * Probe the sources, under @paths (NULL: the system's): cpuacct and
 * cgroup v2 from the mount table; cpuidle while a CPU latency request of
 * @qos_us is held (-1: none), usable when every online CPU may enter only
 * polling idle states ("POLL"), the others disabled or above the request.
 * Reads a few files per idle state or cgroup; for cpuacct and cpuidle,
 * lists the kernel's worker threads (a file per kernel thread).  The
 * environment's IPCPERF_LOAD_SOURCE names the best source to try.
 */
void load_probe(struct load_probe *p, const struct load_paths *paths,
		int qos_us);

/*
 * Every idle state's time on every CPU of @p (CPUIDLE), summed, in ns,
 * and how many stays ended: 0 or -errno.
 */
int load_idle_read(const struct load_probe *p, uint64_t *idle_ns,
		   uint64_t *stays);

/* The usage_usec of every cgroup of @p (CGROUP2), summed, in ns. */
int load_cgroup2_sum(const struct load_probe *p, uint64_t *ns);

/* A sysfs number ("12345\n") into *@v: 0 or -EINVAL. */
int load_parse_u64(const char *s, uint64_t *v);

/*
 * The mount point of a /proc/self/mountinfo @line, into @dir, if it is a
 * cgroup hierarchy's root: v1 with the cpuacct controller, or (@v2) v2.
 * 0, -ENOENT if it is not, -EINVAL if the line cannot be parsed.
 */
int load_mountinfo_cgroup(const char *line, bool v2, char *dir, size_t len);

/* Machine-wide busy or idle CPU time and our own, at one moment. */
struct load_snap {
	bool ok;		 /* /proc/stat was read */
	enum ipc_load_src src;	 /* and which other source */
	uint64_t busy_ns;	 /* user + nice + system of every CPU */
	uint64_t steal_ns;	 /* /proc/stat's steal of every CPU */
	uint64_t acct_ns;	 /* CPUACCT: every task's runtime */
	uint64_t idle_ns;	 /* CPUIDLE: every CPU's idle stays' time */
	uint64_t stays;		 /* CPUIDLE: how many stays ended */
	unsigned cpus;		 /* CPUIDLE: the CPUs read */
	uint64_t ours_ns;	 /* this process and its reaped children */
	uint64_t t_ns;		 /* CLOCK_MONOTONIC */
	struct load_kthreads kt; /* at the start: the workers' runtimes */
	uint64_t kthreads_ns;	 /* at the end: what they ran since */
};

/*
 * Read @s from the sources @p (NULL: /proc/stat alone) found: at a run's
 * start with @start NULL, at its end with the start's snapshot.
 */
void load_snap(struct load_snap *s, const struct load_probe *p,
	       const struct load_snap *start);

/*
 * What happened between @a and @b, into the run's load fields: from
 * the source both read, else from /proc/stat.
 */
void load_diff(const struct load_snap *a, const struct load_snap *b,
	       struct ipc_run_stats *st);

#endif

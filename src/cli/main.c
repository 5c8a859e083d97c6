/* SPDX-License-Identifier: MIT */
/*
 * ipcperf: parse the command line, build the plan, run every case and hand
 * each result to the chosen formatter; exit 0, 1 (a measurement failed) or
 * 2 (bad usage).  The program's signal handlers live here, and only here:
 * SIGINT, SIGTERM and SIGHUP stop the run; SIGPIPE is ignored.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"
#include "report/lib_internal.h"
#include "run/lib_internal.h"
#include "stats/lib_internal.h"

/* What the plan's callbacks need: the report, the line and the status. */
struct measuring {
	struct ipc_report *rep;
	struct cli_side side; /* --target's results, for the side-by-side */
	struct progress prog; /* the progress line (off unless a tty) */
	const struct ipc_runopts *ro;
	size_t n;   /* cases */
	int status; /* EXIT_OK or EXIT_MEASURE */
};

/*
 * The interval's half-width so far, in % of the estimate, from the runs
 * @res has (-1 while there are too few for one).  Between runs, never
 * inside one.
 */
static double half_width_pct(const struct ipc_result *res, double level)
{
	struct ipc_runs_stats s;
	double half = -1, *v;
	size_t i;

	if (res->nruns < 2)
		return -1;
	v = malloc(res->nruns * sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < res->nruns; i++)
		v[i] = ipc_run_metric(res, i);
	ipc_runs_summarize(v, res->nruns, level, &s);
	ipc_runs_target_met(&s, 100, &half);
	free(v);
	return half;
}

static void on_started(void *arg, size_t i, const struct ipc_result *res)
{
	struct measuring *m = arg;
	const struct ipc_runopts *ro = m->ro;
	char what[128];
	struct progress_state st = {
		.what = ipc_case_describe(&res->cs, what, sizeof(what)),
		.case_no = i + 1,
		.ncases = m->n,
		.run = res->nruns + 1,
		.max_runs = ro->runs_auto ? ipc_sched_max_runs(ro) : ro->runs,
		.exact = !ro->runs_auto,
		.half_pct = -1,
		.target_pct = ro->runs_auto ? ro->ci_pct : 0,
	};

	if (!m->prog.on)
		return;
	for (size_t k = 0; k < res->nruns; k++)
		st.case_wall_ns += res->runs[k].wall_ns;
	st.half_pct = half_width_pct(res, ro->ci_level);
	progress_run(&m->prog, i, &st, ipc_now_ns());
}

/* A run of a flagged case's second pass with explain is starting. */
static void on_again(void *arg, size_t i, const struct ipc_result *res,
		     unsigned k, unsigned runs)
{
	struct measuring *m = arg;
	char what[128];
	struct progress_state st = {
		.what = ipc_case_describe(&res->cs, what, sizeof(what)),
		.case_no = i + 1,
		.ncases = m->n,
		.run = k,
		.max_runs = runs,
		.exact = !m->ro->runs_auto,
		.half_pct = -1,
		.pass_runs = runs,
	};

	if (m->prog.on)
		progress_again(&m->prog, i, &st, ipc_now_ns());
}

/* A finished case, in plan order: to the report. */
static int on_done(void *arg, size_t i, const struct ipc_result *res)
{
	struct measuring *m = arg;
	char what[128];

	(void)i;
	if (res->diag.stop == IPC_STOP_INTERRUPTED && !res->runs_begun) {
		struct ipc_skip s;

		/* Never started: listed as not run, as before interleaving. */
		ipc_case_describe(&res->cs, s.what, sizeof(s.what));
		snprintf(s.why, sizeof(s.why), "%.*s", (int)sizeof(s.why) - 1,
			 res->error);
		m->status = EXIT_MEASURE;
		return ipc_report_skip(m->rep, &s);
	}
	if (res->status != IPC_STATUS_OK) {
		progress_clear(&m->prog);
		cli_error("%s: %s",
			  ipc_case_describe(&res->cs, what, sizeof(what)),
			  res->error);
		m->status = EXIT_MEASURE;
	}
	if (cli_side_keep(&m->side, res))
		return -ENOMEM;
	return ipc_report_result(m->rep, res);
}

/*
 * A closed interval, as a line on the terminal (stderr, where the
 * progress line is): when it ended in the run, the throughput, messages
 * per second and the interval's own p50 and p99 per sample.
 */
static void on_interval(void *arg, const struct ipc_case *cs, unsigned run,
			const struct ipc_interval *iv)
{
	struct measuring *m = arg;
	double s = (double)(iv->end_ns - iv->start_ns) / 1e9;
	char what[128], bps[32], rate[32], p50[32], p99[32], lost[48] = "";
	char stream[24] = "";

	progress_clear(&m->prog);
	if (cs->tp && (cs->tp->caps & IPC_TP_LOSSY))
		snprintf(lost, sizeof(lost), "  lost %llu",
			 (unsigned long long)iv->lost);
	if (iv->stream)
		snprintf(stream, sizeof(stream), " stream %u", iv->stream);
	fprintf(stderr,
		"%s run %u%s %6.2f-%.2f s %12s %12s  p50 %s  p99 %s%s\n",
		ipc_case_describe(cs, what, sizeof(what)), run + 1, stream,
		(double)iv->start_ns / 1e9, (double)iv->end_ns / 1e9,
		ipc_fmt_bps(s > 0 ? (double)iv->bytes / s : 0, bps,
			    sizeof(bps)),
		ipc_fmt_rate(s > 0 ? (double)iv->messages / s : 0, rate,
			     sizeof(rate)),
		iv->iterations
			? ipc_fmt_ns((double)iv->p50_ns, p50, sizeof(p50))
			: "-",
		iv->iterations
			? ipc_fmt_ns((double)iv->p99_ns, p99, sizeof(p99))
			: "-",
		lost);
}

/*
 * The run the handlers stop.  Set before they are installed and cleared,
 * with them blocked, before the run is freed: the program's other threads
 * (the library's helpers) block these signals, so no handler can still be
 * using it then.
 */
static struct ipc_run *volatile stoppable;

static const int stop_sigs[] = {SIGINT, SIGTERM, SIGHUP};

static void on_stop(int sig)
{
	struct ipc_run *run = stoppable;

	if (run)
		ipc_run_stop(run, sig);
}

/*
 * No SA_RESTART: a call this thread is blocked in returns EINTR (the
 * library also interrupts its own, wherever they block).  SIGPIPE is
 * ignored so that a report written into a closed pipe fails as an error
 * instead of killing the program.  SIGCHLD needs no handler: the library
 * sees its peer processes end by itself (docs/architecture.md).
 */
static int signals_install(struct ipc_run *run)
{
	struct sigaction sa;

	stoppable = run;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop;
	for (size_t i = 0; i < sizeof(stop_sigs) / sizeof(stop_sigs[0]); i++)
		if (sigaction(stop_sigs[i], &sa, NULL) < 0)
			return -errno;
	sa.sa_handler = SIG_IGN;
	return sigaction(SIGPIPE, &sa, NULL) < 0 ? -errno : 0;
}

/* After the plan: the handlers let go of @run, which is then freed. */
static void signals_release(struct ipc_run *run)
{
	sigset_t set, old;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(stop_sigs) / sizeof(stop_sigs[0]); i++)
		sigaddset(&set, stop_sigs[i]);
	sigprocmask(SIG_BLOCK, &set, &old);
	stoppable = NULL;
	ipc_run_free(run);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/*
 * ipc_run_new failed (@err): the private directory it makes in $TMPDIR
 * (a bad TMPDIR is bad input, named), or what the run's stop needs.
 */
static int run_new_error(int err)
{
	const char *tmp = getenv("TMPDIR");

	if (!tmp || !*tmp)
		tmp = "/tmp";
	switch (err) {
	case -ENAMETOOLONG:
		return usage_error("socket files go in a directory under "
				   "TMPDIR and their paths must fit in 108 "
				   "bytes: use a shorter one",
				   "TMPDIR '%s' is too long", tmp);
	case -ENOENT:
	case -ENOTDIR:
	case -EACCES:
	case -EPERM:
	case -EROFS:
	case -ENOSPC:
	case -EDQUOT:
	case -ELOOP:
		return usage_error("set TMPDIR to a writable directory, or "
				   "unset it for /tmp",
				   "TMPDIR '%s': cannot make a directory in "
				   "it: %s",
				   tmp, strerror(-err));
	default:
		cli_error("cannot prepare: %s", strerror(-err));
		return EXIT_MEASURE;
	}
}

static int measure(struct cli_config *cfg, int argc, char **argv)
{
	struct ipc_outfile of;
	struct ipc_report rep = {0};
	struct ipc_report_meta meta = {0};
	struct ipc_host host;
	struct cli_plan plan;
	struct ipc_runopts *ros = NULL;
	struct ipc_run *run = NULL;
	struct measuring m = {.rep = &rep, .ro = &cfg->ro};
	struct ipc_plan_hooks hooks = {.arg = &m,
				       .started = on_started,
				       .done = on_done,
				       .again = on_again};
	int err, status = EXIT_OK;
	uint64_t need;
	size_t i;

	err = cli_plan_build(cfg, &plan);
	if (err)
		return err;
	if (cli_output_open(cfg, &of) != EXIT_OK) {
		cli_plan_free(&plan);
		return EXIT_USAGE;
	}
	err = ipc_run_new(&run);
	if (err) {
		ipc_outfile_abort(&of);
		cli_plan_free(&plan);
		return run_new_error(err);
	}
	err = signals_install(run);
	if (err) {
		signals_release(run);
		ipc_outfile_abort(&of);
		cli_plan_free(&plan);
		cli_error("cannot prepare: %s", strerror(-err));
		return EXIT_MEASURE;
	}
	ipc_host_probe(&host);
	/*
	 * Held for every case, released after the last: not holding it is
	 * recorded (host.pm_qos), never fatal (docs/methodology.md).
	 */
	ipc_pmqos_hold(&host.pm_qos, cli_pmqos_device(), cfg->pm_qos_us,
		       cli_cpuidle_driver_file());
	/*
	 * With it, the load figure may read cpuidle (docs/methodology.md);
	 * not with the tests' stand-in for the device, which holds nothing.
	 */
	cfg->ro.pm_qos_held = host.pm_qos.state == IPC_PMQOS_HELD &&
			      !strcmp(cli_pmqos_device(), IPC_PMQOS_DEVICE);
	cfg->ro.pm_qos_us = host.pm_qos.request_us;
	meta.version = IPCPERF_VERSION;
	meta.command = cfg->cmd_name;
	meta.argc = argc;
	meta.argv = argv;
	meta.host = &host;
	meta.ro = &cfg->ro;
	meta.build = IPCPERF_CFLAGS;
	rep.ops = ipc_report_find(cfg->format);
	rep.out = of.fp;
	rep.tty = of.is_stdout && isatty(1);
	rep.meta = &meta;
	rep.matrix = cfg->size_matrix;
	err = ipc_report_begin(&rep);
	for (i = 0; !err && i < plan.nskips; i++)
		err = ipc_report_skip(&rep, &plan.skips[i]);
	/*
	 * Each case's options: in the suite a pattern says how long its runs
	 * are, by time or by count, and its warm-up (stream: one batch).
	 */
	ros = calloc(plan.ncases, sizeof(*ros));
	if (!err && !ros)
		err = -ENOMEM;
	for (i = 0; !err && i < plan.ncases; i++) {
		const struct ipc_suite_desc *sd = plan.cases[i].pat->suite;

		cli_case_opts(cfg, &plan.cases[i], &ros[i]);
		cli_time_share(cfg, plan.ncases, &ros[i]);
		if (cfg->cmd == CMD_SUITE && sd) {
			if (sd->run_ns) {
				ros[i].duration_ns = sd->run_ns;
				ros[i].iterations = 0;
			} else if (sd->iterations) {
				ros[i].iterations = sd->iterations;
			}
			if (sd->warmup)
				ros[i].warmup = sd->warmup;
		}
	}
	m.n = plan.ncases;
	if (!err && plan.ncases &&
	    cli_time_short(cfg, plan.ncases, &ros[0], &need))
		cli_warn("--time %.3g s: %zu cases need at least %.3g s for "
			 "the runs of an interval each; they will take longer "
			 "or stop short of it",
			 (double)cfg->time_ns / 1e9, plan.ncases,
			 (double)need / 1e9);
	if (!err)
		progress_init(&m.prog, stderr, cfg->quiet, plan.ncases,
			      &cfg->ro, ipc_now_ns());
	/* Interval lines only where the progress line goes: a terminal. */
	for (i = 0; !err && m.prog.on && i < plan.ncases; i++) {
		ros[i].on_interval = on_interval;
		ros[i].on_interval_arg = &m;
	}
	if (!err) {
		err = ipc_run_plan(run, plan.cases, ros, plan.ncases, &hooks);
		if (err > 0) {
			m.status = EXIT_MEASURE;
			err = 0;
		}
	}
	status = m.status;
	signals_release(run);
	free(ros);
	progress_fini(&m.prog);
	ipc_pmqos_release(&host.pm_qos);
	ipc_host_finish(&host);
	if (!err)
		err = ipc_report_end(&rep);
	if (!err)
		err = cli_side_print(&m.side, cfg, &meta, of.fp);
	cli_side_free(&m.side);
	if (cli_output_close(cfg, &of, err) != EXIT_OK)
		status = EXIT_MEASURE;
	cli_plan_free(&plan);
	return status;
}

/*
 * What went to stdout (--help, list, a report) reached it, or the exit
 * status says otherwise: `ipcperf list >/dev/full` must not exit 0.
 */
static int stdout_closed(int rc)
{
	int err;

	errno = 0;
	if (fflush(stdout) != EOF && !ferror(stdout))
		return rc;
	err = errno ? errno : EIO;
	cli_error("cannot write to standard output: %s", strerror(err));
	return rc == EXIT_OK ? EXIT_MEASURE : rc;
}

int main(int argc, char **argv)
{
	struct cli_config cfg;
	int rc;

	rc = cli_parse(argc, argv, &cfg);
	if (rc < 0)
		rc = EXIT_OK; /* --help or --version */
	else if (rc == EXIT_OK && cfg.cmd == CMD_LIST)
		rc = cli_list();
	else if (rc == EXIT_OK && cfg.cmd == CMD_COMPARE)
		rc = cli_compare(&cfg);
	else if (rc == EXIT_OK && cfg.cmd == CMD_REPORT)
		rc = cli_report(&cfg, argc, argv);
	else if (rc == EXIT_OK && cfg.cmd == CMD_HTTP && cfg.serve_only)
		rc = cli_http_serve(&cfg);
	else if (rc == EXIT_OK && cfg.cmd == CMD_SERVER)
		rc = cli_server(&cfg);
	else if (rc == EXIT_OK)
		rc = measure(&cfg, argc, argv);
	cli_config_fini(&cfg);
	return stdout_closed(rc);
}

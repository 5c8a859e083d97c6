/*
 * ipcperf: parse the command line, build the plan, run every case and hand
 * each result to the chosen formatter; exit 0, 1 (a measurement failed) or
 * 2 (bad usage).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static void progress(bool on, size_t i, size_t n, const struct ipc_case *cs,
		     size_t run)
{
	char what[128];

	if (!on)
		return;
	if (!cs) {
		fputs("\r\033[K", stderr);
		return;
	}
	fprintf(stderr, "\r\033[K[%zu/%zu] %s, run %zu", i + 1, n,
		ipc_case_describe(cs, what, sizeof(what)), run);
}

/* What the plan's callbacks need: the report and the exit status. */
struct measuring {
	struct ipc_report *rep;
	bool show;  /* a progress line on stderr */
	size_t n;   /* cases */
	int status; /* EXIT_OK or EXIT_MEASURE */
};

static void on_started(void *arg, size_t i, const struct ipc_result *res)
{
	struct measuring *m = arg;

	progress(m->show, i, m->n, &res->cs, res->nruns + 1);
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
		snprintf(s.why, sizeof(s.why), "not run: interrupted by SIG%s",
			 sigabbrev_np(ipc_interrupted ? ipc_interrupted
						      : SIGINT));
		m->status = EXIT_MEASURE;
		return ipc_report_skip(m->rep, &s);
	}
	if (res->status != IPC_STATUS_OK) {
		progress(m->show, 0, 0, NULL, 0);
		cli_error("%s: %s",
			  ipc_case_describe(&res->cs, what, sizeof(what)),
			  res->error);
		m->status = EXIT_MEASURE;
	}
	return ipc_report_result(m->rep, res);
}

static int measure(struct cli_config *cfg, int argc, char **argv)
{
	struct ipc_outfile of;
	struct ipc_report rep = {0};
	struct ipc_report_meta meta = {0};
	struct ipc_host host;
	struct cli_plan plan;
	struct ipc_runopts *ros = NULL;
	struct measuring m = {.rep = &rep, .show = !cfg->quiet && isatty(2)};
	struct ipc_plan_hooks hooks = {
		.arg = &m, .started = on_started, .done = on_done};
	int err, status = EXIT_OK;
	size_t i;

	err = cli_plan_build(cfg, &plan);
	if (err)
		return err;
	err = cli_outfile_open(&of, cfg->output);
	if (err) {
		cli_plan_free(&plan);
		return err;
	}
	err = ipc_tmpdir_create();
	if (!err)
		err = ipc_signals_install();
	if (err) {
		ipc_outfile_abort(&of);
		cli_plan_free(&plan);
		cli_error("cannot prepare: %s", strerror(-err));
		return EXIT_MEASURE;
	}
	atexit(ipc_tmpdir_remove);
	ipc_host_probe(&host);
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
	err = ipc_report_begin(&rep);
	for (i = 0; !err && i < plan.nskips; i++)
		err = ipc_report_skip(&rep, &plan.skips[i]);
	/*
	 * Each case's options: in the suite a pattern may ask for fewer runs
	 * (stream: fewer, larger batches).
	 */
	ros = calloc(plan.ncases, sizeof(*ros));
	if (!err && !ros)
		err = -ENOMEM;
	for (i = 0; !err && i < plan.ncases; i++) {
		const struct ipc_suite_desc *sd = plan.cases[i].pat->suite;

		ros[i] = cfg->ro;
		if (cfg->cmd == CMD_SUITE && sd && sd->iterations) {
			ros[i].iterations = sd->iterations;
			ros[i].warmup = sd->warmup;
		}
	}
	m.n = plan.ncases;
	if (!err) {
		err = ipc_run_plan(plan.cases, ros, plan.ncases, &hooks);
		if (err > 0) {
			m.status = EXIT_MEASURE;
			err = 0;
		}
	}
	status = m.status;
	free(ros);
	progress(m.show, 0, 0, NULL, 0);
	ipc_host_finish(&host);
	if (!err)
		err = ipc_report_end(&rep);
	if (!err)
		err = ipc_outfile_commit(&of);
	else
		ipc_outfile_abort(&of);
	if (err) {
		cli_error("cannot write the report%s%s: %s",
			  cfg->output ? " to " : "",
			  cfg->output ? cfg->output : "", strerror(-err));
		status = EXIT_MEASURE;
	}
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
	else if (rc == EXIT_OK)
		rc = measure(&cfg, argc, argv);
	cli_config_fini(&cfg);
	return stdout_closed(rc);
}

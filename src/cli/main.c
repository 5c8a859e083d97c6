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

static void progress(bool on, size_t i, size_t n, const struct ipc_case *cs)
{
	char what[128];

	if (!on)
		return;
	if (!cs) {
		fputs("\r\033[K", stderr);
		return;
	}
	fprintf(stderr, "\r\033[K[%zu/%zu] %s", i + 1, n,
		ipc_case_describe(cs, what, sizeof(what)));
}

static int measure(struct cli_config *cfg, int argc, char **argv)
{
	struct ipc_outfile of;
	struct ipc_report rep = { 0 };
	struct ipc_report_meta meta = { 0 };
	struct ipc_host host;
	struct cli_plan plan;
	bool show = !cfg->quiet && isatty(2);
	int err, status = EXIT_OK;
	size_t i;

	err = cli_plan_build(cfg, &plan);
	if (err)
		return err;
	err = ipc_outfile_open(&of, cfg->output);
	if (err) {
		cli_plan_free(&plan);
		return usage_error("check that the directory exists and is "
				   "writable",
				   "--output: cannot write '%s': %s",
				   cfg->output, strerror(-err));
	}
	err = ipc_tmpdir_create();
	if (!err)
		err = ipc_signals_install();
	if (err) {
		ipc_outfile_abort(&of);
		cli_plan_free(&plan);
		error("cannot prepare: %s", strerror(-err));
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
	rep.ops = ipc_report_find(cfg->format);
	rep.out = of.fp;
	rep.tty = of.is_stdout && isatty(1);
	rep.meta = &meta;
	err = ipc_report_begin(&rep);
	for (i = 0; !err && i < plan.nskips; i++)
		err = ipc_report_skip(&rep, &plan.skips[i]);
	for (i = 0; !err && i < plan.ncases; i++) {
		const struct ipc_case *cs = &plan.cases[i];
		struct ipc_runopts ro = cfg->ro;
		struct ipc_result *res;
		char what[128];

		if (ipc_interrupted) {
			struct ipc_skip s;

			ipc_case_describe(cs, s.what, sizeof(s.what));
			snprintf(s.why, sizeof(s.why),
				 "not run: interrupted by SIG%s",
				 sigabbrev_np(ipc_interrupted));
			err = ipc_report_skip(&rep, &s);
			status = EXIT_MEASURE;
			continue;
		}
		if (cfg->cmd == CMD_SUITE && cs->pat == &ipc_pattern_stream) {
			ro.iterations = 5; /* batches of 256 x 64 KiB */
			ro.warmup = 1;
		}
		res = ipc_result_new(cs);
		if (!res) {
			err = -ENOMEM;
			break;
		}
		progress(show, i, plan.ncases, cs);
		if (ipc_run_case(cs, &ro, res)) {
			progress(show, i, plan.ncases, NULL);
			error("%s: %s", ipc_case_describe(cs, what, sizeof(what)),
			      res->error);
			status = EXIT_MEASURE;
		}
		err = ipc_report_result(&rep, res);
		ipc_result_free(res);
	}
	progress(show, 0, 0, NULL);
	if (!err)
		err = ipc_report_end(&rep);
	if (!err)
		err = ipc_outfile_commit(&of);
	else
		ipc_outfile_abort(&of);
	if (err) {
		error("cannot write the report%s%s: %s", cfg->output ? " to " : "",
		      cfg->output ? cfg->output : "", strerror(-err));
		status = EXIT_MEASURE;
	}
	cli_plan_free(&plan);
	return status;
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
	else if (rc == EXIT_OK)
		rc = measure(&cfg, argc, argv);
	cli_config_fini(&cfg);
	return rc;
}

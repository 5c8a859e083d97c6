/*
 * `ipcperf report --matrix METRIC FILE...`: the results of a fleet (many
 * files from many hosts) as one host x host matrix per case.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

static int set_matrix(struct cli_config *c, const char *a)
{
	if (!ipc_mx_metric_find(a, &c->matrix_metric))
		return usage_error("use p50, p99 or throughput",
				   "--matrix: unknown metric '%s'", a);
	c->matrix = true;
	return 0;
}

static int set_names(struct cli_config *c, const char *a)
{
	char err[256], why[256], *text;
	size_t len;
	int rc = ipc_file_read(a, 1u << 20, &text, &len, err, sizeof(err));

	(void)c;
	if (rc)
		return usage_error("give a file of ADDRESS NAME lines",
				   "--names: %s", err);
	rc = ipc_mx_names_parse(text, len, why, sizeof(why));
	free(text);
	if (rc == -ENOMEM) {
		cli_error("out of memory");
		return EXIT_MEASURE;
	}
	if (rc)
		return usage_error("one ADDRESS NAME a line, # for comments",
				   "--names: %s: %s", a, why);
	return 0;
}

static const struct cli_opt matrix_opts[] = {
	{"matrix", 0, "M", CMD_REPORT,
	 "a host x host matrix of M (p50, p99, throughput) per case: the "
	 "measuring host down, its peer across [none]",
	 set_matrix},
	{"names", 0, "FILE", CMD_REPORT,
	 "with --matrix: ADDRESS NAME lines naming hosts by their address "
	 "(a server that never answered) [the results' own names]",
	 set_names},
};

const struct cli_optgroup cli_opts_matrix = {
	.opts = matrix_opts,
	.n = sizeof(matrix_opts) / sizeof(matrix_opts[0]),
};

int cli_report_matrix(const struct cli_config *cfg, struct ipc_doc *const *docs,
		      size_t n, const struct ipc_report_meta *meta)
{
	struct ipc_matrix *m = NULL;
	struct ipc_outfile of;
	int err, rc;

	err = ipc_matrix_build((const struct ipc_doc *const *)docs, n,
			       cfg->matrix_metric, meta, &m);
	if (err == -ENOENT)
		return usage_error("give result files written with -f json",
				   "--matrix: the files hold no result");
	if (err) {
		cli_error("out of memory");
		return EXIT_MEASURE;
	}
	rc = cli_output_open(cfg, &of);
	if (rc == EXIT_OK)
		rc = cli_output_close(cfg, &of,
				      ipc_matrix_write(of.fp, m, cfg->format));
	ipc_matrix_free(m);
	ipc_mx_names_clear();
	return rc;
}

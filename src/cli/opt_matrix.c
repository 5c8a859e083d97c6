/* SPDX-License-Identifier: MIT */
/*
 * `ipcperf report --matrix METRIC FILE...`: the results of a fleet (many
 * files from many hosts) as one host x host matrix per case.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "base/lib_internal.h"
#include "doc/lib_internal.h"
#include "report/lib_internal.h"

static int set_matrix(struct cli_config *c, const char *a)
{
	if (!strcmp(a, "sizes")) {
		c->size_matrix = true;
		return 0;
	}
	if (!ipc_mx_metric_find(a, &c->matrix_metric))
		return usage_error("use p50, p99, throughput or sizes",
				   "--matrix: unknown metric '%s'", a);
	c->matrix = true;
	return 0;
}

static int set_size_matrix(struct cli_config *c, const char *a)
{
	(void)a;
	c->size_matrix = true;
	return 0;
}

static int set_names(struct cli_config *c, const char *a)
{
	char err[256], why[256], *text;
	size_t len;
	int rc = ipc_file_read(a, 1u << 20, &text, &len, err, sizeof(err));

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
	c->matrix_names = true;
	return 0;
}

/* rr's flag first: a command that has neither is told it does not apply. */
static const struct cli_opt matrix_opts[] = {
	{"matrix", 0, NULL, CMD_RR,
	 "grids as LLDB's speed-test prints them: req down, resp across, "
	 "each cell p50 ±half its 95% interval over trans/s",
	 set_size_matrix},
	{"matrix", 0, "M", CMD_REPORT,
	 "a host x host matrix of M (p50, p99, throughput) per case: the "
	 "measuring host down, its peer across; sizes: rr --matrix's grids "
	 "[none]",
	 set_matrix},
	{"names", 0, "FILE", CMD_REPORT,
	 "with --matrix: ADDRESS NAME lines naming hosts by their address "
	 "(a server that never answered) [the results' own names]",
	 set_names},
};

/* --names names the hosts of a matrix; alone it would do nothing. */
static int matrix_validate(struct cli_config *c)
{
	if (c->matrix_names && !c->matrix)
		return usage_error("add --matrix p50|p99|throughput",
				   "--names: only with --matrix");
	if (c->size_matrix && c->format &&
	    (!strcmp(c->format, "json") || !strcmp(c->format, "csv")))
		return usage_error("use -f table, markdown or html",
				   "--matrix: a view of the tables, not of "
				   "-f %s",
				   c->format);
	return 0;
}

const struct cli_optgroup cli_opts_matrix = {
	.opts = matrix_opts,
	.n = sizeof(matrix_opts) / sizeof(matrix_opts[0]),
	.validate = matrix_validate,
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

/* The matrix saved in @path into *d: EXIT_OK, or as cli_doc_error. */
static int load_matrix(const char *path, struct ipc_mx_doc **d)
{
	char err[512], *text;
	size_t len;
	int rc = ipc_file_read(path, IPC_DOC_FILE_MAX, &text, &len, err,
			       sizeof(err));

	if (!rc) {
		rc = ipc_mx_doc_parse(text, len, path, d, err, sizeof(err));
		free(text);
	}
	if (rc == -ENOMEM)
		return cli_error("out of memory");
	if (rc)
		return usage_error("compare two files written by report "
				   "--matrix M -f json",
				   "%s", err);
	return EXIT_OK;
}

int cli_compare_matrix(const struct cli_config *cfg)
{
	const struct ipc_cmp_opts o = {
		.threshold_pct = cfg->cmp_threshold_pct,
		.fail_set = cfg->cmp_fail_set,
		.fail_pct = cfg->cmp_fail_pct,
	};
	struct ipc_mx_doc *a = NULL, *b = NULL;
	struct ipc_outfile of;
	char err[512], *text;
	size_t len, gates = 0;
	bool is;
	int rc;

	if (cfg->cmp_na != 1 || cfg->cmp_nb != 1)
		return -1;
	if (ipc_file_read(cfg->cmp_files[0], IPC_DOC_FILE_MAX, &text, &len, err,
			  sizeof(err)))
		return -1;
	is = ipc_mx_doc_is(text, len);
	free(text);
	if (!is)
		return -1;
	if (strcmp(cfg->format, "table") && strcmp(cfg->format, "json"))
		return usage_error("matrices compare as table or json",
				   "--format: %s is not available for "
				   "matrices",
				   cfg->format);
	rc = load_matrix(cfg->cmp_files[0], &a);
	if (rc == EXIT_OK)
		rc = load_matrix(cfg->cmp_files[1], &b);
	if (rc == EXIT_OK && cfg->cmp_metric)
		rc = usage_error("the metric is the matrices' own",
				 "--metric: not with matrices");
	if (rc == EXIT_OK && strcmp(ipc_mx_doc_metric(a), ipc_mx_doc_metric(b)))
		rc = usage_error("make both with the same --matrix M",
				 "%s is a matrix of %s, %s of %s",
				 cfg->cmp_files[0], ipc_mx_doc_metric(a),
				 cfg->cmp_files[1], ipc_mx_doc_metric(b));
	if (rc == EXIT_OK)
		rc = cli_output_open(cfg, &of);
	if (rc == EXIT_OK)
		rc = cli_output_close(
			cfg, &of,
			ipc_mx_compare(of.fp, a, b, &o, cfg->format, &gates));
	if (rc == EXIT_OK && gates)
		rc = EXIT_MEASURE;
	ipc_mx_doc_free(a);
	ipc_mx_doc_free(b);
	return rc < 0 ? EXIT_MEASURE : rc;
}

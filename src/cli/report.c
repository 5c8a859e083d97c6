/* SPDX-License-Identifier: MIT */
/*
 * `ipcperf report FILE.json...`: saved results rendered again by any
 * formatter, without measuring.  One document keeps its own command line,
 * host and options; several are rendered as one report whose heading is
 * this command line and whose sources list each document's own.  A saved
 * comparison is made again from the files it names.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "base/lib_internal.h"
#include "doc/lib_internal.h"

/* The command every document ran, or "report" when they differ. */
static const char *common_command(struct ipc_doc *const *docs, size_t n)
{
	const char *c = docs[0]->meta.command;

	for (size_t i = 1; i < n; i++)
		if (!c || !docs[i]->meta.command ||
		    strcmp(c, docs[i]->meta.command))
			return "report";
	return c ? c : "report";
}

/* Every document's skips and results, in the order of the files. */
static int render(struct ipc_report *rep, struct ipc_doc *const *docs, size_t n)
{
	int err = ipc_report_begin(rep);
	size_t i, k;

	for (i = 0; !err && i < n; i++) {
		for (k = 0; !err && k < docs[i]->nskips; k++)
			err = ipc_report_skip(rep, &docs[i]->skips[k]);
		for (k = 0; !err && k < docs[i]->nresults; k++)
			err = ipc_report_result(rep, docs[i]->results[k]);
	}
	if (!err)
		err = ipc_report_end(rep);
	return err;
}

/*
 * A saved comparison: made again from its files and options, and printed
 * by the format's compare hook.
 */
static int report_comparison(const struct cli_config *cfg,
			     const struct ipc_cmp_saved *sv)
{
	const struct ipc_report_ops *ops = ipc_report_find(cfg->format);
	struct ipc_cmp_opts o = {
		.metric = sv->metric[0] ? sv->metric : NULL,
		.threshold_pct = sv->threshold_pct,
		.drift_set = sv->drift_set,
		.drift_pct = sv->drift_pct,
		.version = IPCPERF_VERSION,
	};
	size_t n = sv->na + sv->nb;
	struct ipc_doc **docs = NULL;
	struct ipc_comparison *c = NULL;
	struct ipc_outfile of;
	int rc = EXIT_OK, err;

	if (!ops->compare)
		return usage_error("a comparison is written as table, json, "
				   "markdown or html",
				   "--format: %s is not available for a "
				   "comparison",
				   cfg->format);
	rc = cli_docs_load(sv->a, sv->na, sv->b, sv->nb, &docs);
	if (rc != EXIT_OK)
		goto out;
	err = ipc_compare_sets((const struct ipc_doc *const *)docs, sv->na,
			       (const struct ipc_doc *const *)docs + sv->na,
			       sv->nb, &o, &c);
	if (err) {
		if (err == -ENOENT)
			usage_error("compare them again",
				    "%s and %s have no case in common any more",
				    sv->a[0], sv->b[0]);
		else
			cli_error("out of memory");
		rc = err == -ENOENT ? EXIT_USAGE : EXIT_MEASURE;
		goto out;
	}
	rc = cli_output_open(cfg, &of);
	if (rc == EXIT_OK)
		rc = cli_output_close(cfg, &of, ops->compare(of.fp, c));
out:
	ipc_comparison_free(c);
	cli_docs_free(docs, n);
	return rc;
}

/*
 * Read @path once (it may be a pipe): a saved comparison into *sv, with
 * *is_cmp set, or a result document into *doc.  0, or as cli_doc_load.
 */
static int load(const char *path, struct ipc_doc **doc,
		struct ipc_cmp_saved *sv, bool *is_cmp)
{
	char err[512], why[256], *text;
	size_t len;
	int rc = ipc_file_read(path, IPC_DOC_FILE_MAX, &text, &len, err,
			       sizeof(err));

	*doc = NULL;
	*is_cmp = false;
	if (!rc) {
		*is_cmp = !ipc_cmp_saved_parse(text, len, path, sv, why,
					       sizeof(why));
		if (!*is_cmp)
			rc = ipc_doc_parse(text, len, path, doc, err,
					   sizeof(err));
		free(text);
	}
	return cli_doc_error(rc, err);
}

int cli_report(const struct cli_config *cfg, int argc, char **argv)
{
	struct ipc_cmp_saved sv;
	const struct ipc_report_meta **src = NULL;
	struct ipc_report_meta meta;
	struct ipc_report rep = {0};
	struct ipc_doc **docs = NULL;
	struct ipc_outfile of;
	size_t i, n = cfg->nfiles;
	bool is_cmp = false;
	int rc = EXIT_OK;

	if (!n)
		return usage_error("ipcperf report FILE.json... (files written "
				   "with -f json)",
				   "report needs at least one result file");
	docs = calloc(n, sizeof(*docs));
	src = calloc(n, sizeof(*src));
	if (!docs || !src) {
		rc = cli_error("out of memory");
		goto out;
	}
	/* A comparison is made again from the files it compared. */
	for (i = 0; i < n && rc == EXIT_OK && !is_cmp; i++) {
		rc = load(cfg->files[i], &docs[i], &sv, &is_cmp);
		if (rc < 0)
			rc = EXIT_MEASURE;
		else if (docs[i])
			src[i] = &docs[i]->meta;
	}
	if (rc == EXIT_OK && is_cmp)
		rc = n > 1 ? usage_error("report a comparison on its own",
					 "%s is a comparison, not results to "
					 "merge",
					 cfg->files[i - 1])
			   : report_comparison(cfg, &sv);
	if (is_cmp)
		ipc_cmp_saved_fini(&sv);
	if (rc != EXIT_OK || is_cmp)
		goto out;
	meta = docs[0]->meta;
	if (n > 1) {
		meta.command = common_command(docs, n);
		meta.argc = argc;
		meta.argv = argv;
		meta.sources = src;
		meta.nsources = n;
	}
	if (cfg->matrix) {
		rc = cli_report_matrix(cfg, docs, n, &meta);
		goto out;
	}
	rc = cli_output_open(cfg, &of);
	if (rc != EXIT_OK)
		goto out;
	rep.ops = ipc_report_find(cfg->format);
	rep.out = of.fp;
	rep.tty = of.is_stdout && isatty(1);
	rep.meta = &meta;
	rep.matrix = cfg->size_matrix;
	rc = cli_output_close(cfg, &of, render(&rep, docs, n));
out:
	for (i = 0; docs && i < n; i++)
		ipc_doc_free(docs[i]);
	free(docs);
	free(src);
	return rc;
}

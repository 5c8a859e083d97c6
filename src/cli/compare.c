/* SPDX-License-Identifier: MIT */
/*
 * `ipcperf compare A.json B.json` (or A1.json ... -- B1.json ...): the
 * command line's part.  Reading the
 * documents, matching and judging their cases and printing the comparison
 * are the report layer's (ipc_doc_read, ipc_compare, the formatter's
 * compare); here are the messages, the output file and the exit status.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "doc/lib_internal.h"
#include "report/lib_internal.h"

static const char hint_json[] =
	"give files written by ipcperf with -f json (-o FILE)";

int cli_doc_load(const char *path, struct ipc_doc **doc)
{
	char err[512];

	return cli_doc_error(ipc_doc_read(path, doc, err, sizeof(err)), err);
}

int cli_docs_load(char *const *a, size_t na, char *const *b, size_t nb,
		  struct ipc_doc ***docs)
{
	size_t n = na + nb;
	int rc = 0;

	*docs = calloc(n ? n : 1, sizeof(**docs));
	if (!*docs) {
		cli_error("out of memory");
		return EXIT_MEASURE;
	}
	for (size_t i = 0; i < n && !rc; i++)
		rc = cli_doc_load(i < na ? a[i] : b[i - na], &(*docs)[i]);
	return !rc ? EXIT_OK : rc < 0 ? EXIT_MEASURE : EXIT_USAGE;
}

void cli_docs_free(struct ipc_doc **docs, size_t n)
{
	for (size_t i = 0; docs && i < n; i++)
		ipc_doc_free(docs[i]);
	free(docs);
}

int cli_doc_error(int rc, const char *err)
{
	if (rc == -ENOMEM)
		return cli_error("%s", err);
	if (rc)
		return usage_error(rc == -EPROTO
					   ? "use the ipcperf that wrote it"
					   : hint_json,
				   "%s", err);
	return 0;
}

/* Print @c through the formatter of -f, whole into -o or stdout. */
static int print(const struct cli_config *cfg, const struct ipc_comparison *c)
{
	const struct ipc_report_ops *ops = ipc_report_find(cfg->format);
	struct ipc_outfile of;
	int err = cli_output_open(cfg, &of);

	if (err)
		return err;
	err = ops->compare(of.fp, c);
	if (!err && ferror(of.fp))
		err = -EIO;
	if (!err)
		err = ipc_outfile_commit(&of);
	else
		ipc_outfile_abort(&of);
	if (err) {
		cli_error("cannot write the comparison: %s", strerror(-err));
		return EXIT_MEASURE;
	}
	return EXIT_OK;
}

int cli_compare(const struct cli_config *cfg)
{
	const struct ipc_cmp_opts o = {
		.metric = cfg->cmp_metric,
		.threshold_pct = cfg->cmp_threshold_pct,
		.fail_set = cfg->cmp_fail_set,
		.fail_pct = cfg->cmp_fail_pct,
		.drift_set = cfg->cmp_drift_set,
		.drift_pct = cfg->cmp_drift_pct,
		.version = IPCPERF_VERSION,
	};
	size_t n = cfg->cmp_na + cfg->cmp_nb;
	struct ipc_doc **docs = NULL;
	struct ipc_comparison *c = NULL;
	int rc = cli_compare_matrix(cfg), err;

	if (rc >= 0) /* two fleet matrices (report --matrix -f json) */
		return rc;
	rc = cli_docs_load(cfg->cmp_files, cfg->cmp_na,
			   cfg->cmp_files + cfg->cmp_na, cfg->cmp_nb, &docs);
	if (rc != EXIT_OK)
		goto out;
	err = ipc_compare_sets((const struct ipc_doc *const *)docs, cfg->cmp_na,
			       (const struct ipc_doc *const *)docs +
				       cfg->cmp_na,
			       cfg->cmp_nb, &o, &c);
	if (err == -ENOENT) {
		rc = usage_error("compare results of the same cases, or of "
				 "the same cases on two transports (or "
				 "engines) as a whole",
				 "no measured case of %s matches one of %s",
				 docs[0]->path, docs[cfg->cmp_na]->path);
		goto out;
	}
	if (err) {
		cli_error("out of memory");
		rc = EXIT_MEASURE;
		goto out;
	}
	rc = print(cfg, c);
	if (rc == EXIT_OK && ipc_comparison_gates(c))
		rc = EXIT_MEASURE;
out:
	ipc_comparison_free(c);
	cli_docs_free(docs, n);
	return rc;
}

/*
 * `ipcperf report FILE.json...`: saved results rendered again by any
 * formatter, without measuring.  One document keeps its own command line,
 * host and options; several are rendered as one report whose heading is
 * this command line and whose sources list each document's own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

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

int cli_report(const struct cli_config *cfg, int argc, char **argv)
{
	const struct ipc_report_meta **src = NULL;
	struct ipc_report_meta meta;
	struct ipc_report rep = {0};
	struct ipc_doc **docs = NULL;
	struct ipc_outfile of;
	size_t i, n = cfg->nfiles;
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
	for (i = 0; i < n && rc == EXIT_OK; i++) {
		rc = cli_doc_load(cfg->files[i], &docs[i]);
		if (rc < 0)
			rc = EXIT_MEASURE;
		else if (docs[i])
			src[i] = &docs[i]->meta;
	}
	if (rc != EXIT_OK)
		goto out;
	meta = docs[0]->meta;
	if (n > 1) {
		meta.command = common_command(docs, n);
		meta.argc = argc;
		meta.argv = argv;
		meta.sources = src;
		meta.nsources = n;
	}
	rc = cli_output_open(cfg, &of);
	if (rc != EXIT_OK)
		goto out;
	rep.ops = ipc_report_find(cfg->format);
	rep.out = of.fp;
	rep.tty = of.is_stdout && isatty(1);
	rep.meta = &meta;
	rc = cli_output_close(cfg, &of, render(&rep, docs, n));
out:
	for (i = 0; docs && i < n; i++)
		ipc_doc_free(docs[i]);
	free(docs);
	free(src);
	return rc;
}

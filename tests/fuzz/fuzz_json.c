/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for result documents as `ipcperf compare` and the
 * report formatters read them, and for saved comparisons as `ipcperf
 * report` reads them: any bytes go to both readers; a document it
 * takes is rendered by every formatter, compared with itself by each
 * metric and printed by every formatter that prints comparisons, and
 * made into a fleet matrix of each metric in every format; a saved
 * matrix is compared with itself (nothing may be slower).  What
 * the JSON formatter writes from it must read back (the writer and the
 * reader share one schema), and a document that is refused says why.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcperf/report.h"
#include "doc/lib_internal.h"
#include "report/lib_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

static void check(bool cond)
{
	if (!cond)
		abort();
}

/* Every result of @doc through formatter @ops into @out. */
static int render(const struct ipc_doc *doc, const struct ipc_report_ops *ops,
		  FILE *out)
{
	struct ipc_report rep = {
		.ops = ops, .out = out, .tty = false, .meta = &doc->meta};
	int err = ipc_report_begin(&rep);

	for (size_t i = 0; !err && i < doc->nskips; i++)
		err = ipc_report_skip(&rep, &doc->skips[i]);
	for (size_t i = 0; !err && i < doc->nresults; i++)
		err = ipc_report_result(&rep, doc->results[i]);
	if (!err)
		err = ipc_report_end(&rep);
	return err;
}

/* The JSON formatter's output for @doc is a document the reader takes. */
static void json_round_trip(const struct ipc_doc *doc)
{
	struct ipc_doc *again = NULL;
	char *text = NULL, err[512];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int rc;

	if (!f)
		return;
	rc = render(doc, ipc_report_find("json"), f);
	fclose(f);
	if (!rc) {
		rc = ipc_doc_parse(text, len, "again.json", &again, err,
				   sizeof(err));
		if (rc && rc != -ENOMEM) {
			fprintf(stderr, "written but not read back: %s\n", err);
			abort();
		}
		if (!rc)
			check(again->nresults == doc->nresults);
	}
	ipc_doc_free(again);
	free(text);
}

static void compare(const struct ipc_doc *doc, const char *metric)
{
	struct ipc_cmp_opts o = {.metric = metric,
				 .threshold_pct = 1,
				 .fail_set = true,
				 .fail_pct = 5,
				 .version = "fuzz"};
	struct ipc_comparison *c = NULL;
	int rc = ipc_compare(doc, doc, &o, &c);

	if (rc) {
		check(c == NULL);
		check(rc == -ENOENT || rc == -ENOMEM || rc == -EINVAL);
		return;
	}
	for (size_t i = 0; ipc_reports[i]; i++)
		if (ipc_reports[i]->compare)
			ipc_reports[i]->compare(devnull, c);
	ipc_comparison_free(c);
}

/* The document as a fleet matrix of each metric, in every format. */
static void matrix(const struct ipc_doc *doc)
{
	static const char *const formats[] = {"table", "json", "csv",
					      "markdown", "html"};
	struct ipc_matrix *m = NULL;
	enum ipc_mx_metric metric;
	int rc;

	for (int k = IPC_MX_P50; k <= IPC_MX_THROUGHPUT; k++) {
		metric = (enum ipc_mx_metric)k;
		rc = ipc_matrix_build(&doc, 1, metric, &doc->meta, &m);
		if (rc) {
			check(m == NULL && (rc == -ENOENT || rc == -ENOMEM));
			check(rc != -ENOENT || doc->nresults == 0);
			continue;
		}
		for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]);
		     i++)
			ipc_matrix_write(devnull, m, formats[i]);
		ipc_matrix_free(m);
	}
}

/* A saved matrix read back and compared with itself, both formats. */
static void matrix_saved(const char *text, size_t len)
{
	const struct ipc_cmp_opts o = {.fail_set = true, .fail_pct = 5};
	struct ipc_mx_doc *d = NULL;
	char err[256] = "";
	size_t gates = 0;
	int rc;

	if (!ipc_mx_doc_is(text, len))
		return;
	rc = ipc_mx_doc_parse(text, len, "fuzz.json", &d, err, sizeof(err));
	if (rc) {
		check(d == NULL && (rc == -ENOMEM || err[0]));
		return;
	}
	check(ipc_mx_compare(devnull, d, d, &o, "table", &gates) != 0 ||
	      gates == 0);
	ipc_mx_compare(devnull, d, d, &o, "json", &gates);
	ipc_mx_doc_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const metrics[] = {NULL, "p50", "p99", "mean",
					      "throughput"};
	struct ipc_doc *doc = NULL;
	struct ipc_cmp_saved sv;
	char err[512] = "";
	int rc;

	if (size > 1 << 20)
		return 0;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	rc = ipc_cmp_saved_parse((const char *)data, size, "fuzz.json", &sv,
				 err, sizeof(err));
	/* A saved comparison names its two files; anything else says why. */
	check(rc ? (rc == -EINVAL && err[0]) || rc == -ENOMEM
		 : sv.na && sv.nb && sv.a[0][0] && sv.b[0][0]);
	if (!rc)
		ipc_cmp_saved_fini(&sv);
	matrix_saved((const char *)data, size);
	err[0] = '\0';
	rc = ipc_doc_parse((const char *)data, size, "fuzz.json", &doc, err,
			   sizeof(err));
	if (rc) {
		check(doc == NULL);
		check(err[0] != '\0');
		return 0;
	}
	for (size_t i = 0; ipc_reports[i]; i++)
		render(doc, ipc_reports[i], devnull);
	json_round_trip(doc);
	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++)
		compare(doc, metrics[i]);
	matrix(doc);
	ipc_doc_free(doc);
	return 0;
}

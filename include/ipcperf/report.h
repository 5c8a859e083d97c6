/* SPDX-License-Identifier: MIT */
/*
 * Reports: formatters that turn result records into a table for people or
 * JSON and CSV for programs.  A formatter implements begin / skip / result /
 * end; nothing outside this layer asks which format is active.
 */
#ifndef IPCPERF_REPORT_H
#define IPCPERF_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base.h"
#include "doc.h"
#include "run.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ipc_report;

struct ipc_report_ops {
	const char *name; /* as given to -f */
	const char *help;

	/* Called once before any result.  0 or -errno. */
	int (*begin)(struct ipc_report *r);

	/* A case that will not run, and why. */
	int (*skip)(struct ipc_report *r, const struct ipc_skip *s);

	/* One finished case (ok, partial or error). */
	int (*result)(struct ipc_report *r, const struct ipc_result *res);

	/*
	 * Called once after the last result: write what is buffered.  Returns
	 * 0, or -errno when writing failed (a full disk must not go unseen).
	 */
	int (*end)(struct ipc_report *r);

	/*
	 * A comparison of two documents (ipc_compare), whole, to @out.  0 or
	 * -errno.  NULL: this format does not write comparisons.
	 */
	int (*compare)(FILE *out, const struct ipc_comparison *c);
};

struct ipc_report {
	const struct ipc_report_ops *ops;
	FILE *out; /* where the report goes */
	bool tty;  /* out is a terminal */
	const struct ipc_report_meta *meta;
	void *priv; /* formatter state */
	/*
	 * The human formats (table, markdown, html): each section whose
	 * pattern's first two parameters are numbers (rr: req and resp) as
	 * matrices of them instead of one row per case.
	 */
	bool matrix;
};

extern const struct ipc_report_ops *const ipc_reports[];
const struct ipc_report_ops *ipc_report_find(const char *name);

/* Convenience wrappers; each returns 0 or -errno. */
int ipc_report_begin(struct ipc_report *r);
int ipc_report_skip(struct ipc_report *r, const struct ipc_skip *s);
int ipc_report_result(struct ipc_report *r, const struct ipc_result *res);
int ipc_report_end(struct ipc_report *r);

#ifdef __cplusplus
}
#endif

#endif

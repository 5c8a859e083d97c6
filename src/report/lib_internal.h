/* SPDX-License-Identifier: MIT */
/*
 * What the other layers of ipcperf (and its tests) use of report and a user
 * of libipcperf does not: not installed, not exported (the public part
 * is ipcperf/report.h; docs/library.md says where the line is and why).
 */
#ifndef IPCPERF_REPORT_LIB_INTERNAL_H
#define IPCPERF_REPORT_LIB_INTERNAL_H

#include "base/lib_internal.h"
#include "ipcperf/report.h"

struct ipc_mx_doc;

/*
 * Write @m (ipc_matrix_build) to @out as @format: "table", "json", "csv",
 * "markdown" or "html".  0, -EINVAL for another format, or -errno when
 * writing failed.
 */
int ipc_matrix_write(FILE *out, const struct ipc_matrix *m, const char *format);

/*
 * Two saved matrices judged against each other by the document layer
 * (mx_judge and mx_tally, doc/matrix.h), written to @out as "table" or
 * "json"; *gates gets the pairs that trip o->fail_set.  0 or -errno.
 */
int ipc_mx_compare(FILE *out, const struct ipc_mx_doc *a,
		   const struct ipc_mx_doc *b, const struct ipc_cmp_opts *o,
		   const char *format, size_t *gates);

#endif

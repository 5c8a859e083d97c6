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

/*
 * Write @m (ipc_matrix_build) to @out as @format: "table", "json", "csv",
 * "markdown" or "html".  0, -EINVAL for another format, or -errno when
 * writing failed.
 */
int ipc_matrix_write(FILE *out, const struct ipc_matrix *m, const char *format);

/*
 * Two saved matrices judged against each other (ipc_mx_judge in doc.h),
 * written to @out as "table" or "json"; *gates gets the pairs that trip
 * o->fail_set.  0 or -errno.
 */
int ipc_mx_compare(FILE *out, const struct ipc_mx_doc *a,
		   const struct ipc_mx_doc *b, const struct ipc_cmp_opts *o,
		   const char *format, size_t *gates);

/*
 * Output that appears whole or not at all.  open() checks, before anything
 * runs, that @path can be written: a regular file (or a new one) must be
 * writable and not write-protected, and its directory one where a file can
 * be replaced; symbolic links are followed to the file they name.  The
 * report then goes to memory, and commit() writes it to a temporary file
 * next to the target, fsyncs it and renames it over the target (with the
 * old file's permissions less setuid/setgid, or 0666 less the umask); a
 * writable file in a directory that is not is truncated and written
 * instead.  A target that is not a regular file (a device, a FIFO,
 * /dev/stdout) is opened by open(), as the shell would open it, and
 * commit() writes the report into it.  abort() leaves a regular target
 * as it was.  With path "-" or NULL the
 * stream is stdout and commit/abort only flush.  Each returns 0 or -errno
 * (-EISDIR, -ENOENT, -EACCES, -EPERM, ...; -ENOSPC from commit).
 */
struct ipc_outfile {
	FILE *fp;	   /* where the report is written */
	char path[4096];   /* as given */
	char final[4096];  /* the file it names, links followed */
	char *buf;	   /* the report, until commit */
	size_t len;	   /* bytes of buf */
	unsigned mode;	   /* of the new file */
	unsigned uid, gid; /* of the old file, when owned */
	bool owned;	   /* a file was there: keep its owner (root) */
	bool late;	   /* overwrite at commit instead of a rename */
	int fd;		   /* the target, when through */
	bool through;	   /* written into fd, not renamed over */
	bool is_stdout;
};

int ipc_outfile_open(struct ipc_outfile *of, const char *path);
int ipc_outfile_commit(struct ipc_outfile *of);
void ipc_outfile_abort(struct ipc_outfile *of);

#ifdef __cplusplus
}
#endif

#endif

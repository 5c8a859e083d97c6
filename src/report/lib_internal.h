/* SPDX-License-Identifier: MIT */
/*
 * What the other layers of ipcperf (and its tests) use of report and a user
 * of libipcperf does not: not installed, not exported (the public part
 * is ipcperf/report.h; docs/library.md says where the line is and why).
 */
#ifndef IPCPERF_REPORT_LIB_INTERNAL_H
#define IPCPERF_REPORT_LIB_INTERNAL_H

#include "ipcperf/report.h"

struct ipc_mx_doc;

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

#endif

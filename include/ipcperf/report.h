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
#include "run.h"

#ifdef __cplusplus
extern "C" {
#endif

#define IPC_JSON_SCHEMA 1

/* What the whole report is about; set before begin. */
struct ipc_report_meta {
	const char *version; /* ipcperf version (git describe) */
	const char *command; /* "rr", "stream", "bulk", "suite" */
	int argc;	     /* the command line as given */
	char *const *argv;
	const struct ipc_host *host;
	const struct ipc_runopts *ro; /* effective options of every case */
	const char *build; /* how ipcperf was built: compiler flags */
};

/* A case the plan left out, and why (one sentence). */
struct ipc_skip {
	char what[128]; /* "stream udp size=64K" or "transport tcp6" */
	char why[192];	/* "larger than the largest UDP datagram (65507 B)" */
};

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
};

struct ipc_report {
	const struct ipc_report_ops *ops;
	FILE *out; /* where the report goes */
	bool tty;  /* out is a terminal */
	const struct ipc_report_meta *meta;
	void *priv; /* formatter state */
};

extern const struct ipc_report_ops *const ipc_reports[];
const struct ipc_report_ops *ipc_report_find(const char *name);

/* Convenience wrappers; each returns 0 or -errno. */
int ipc_report_begin(struct ipc_report *r);
int ipc_report_skip(struct ipc_report *r, const struct ipc_skip *s);
int ipc_report_result(struct ipc_report *r, const struct ipc_result *res);
int ipc_report_end(struct ipc_report *r);

/*
 * Output that appears whole or not at all: open() creates a temporary file
 * next to @path (so rename is atomic), commit() flushes, fsyncs and renames
 * it over @path, abort() removes it.  With path "-" or NULL the stream is
 * stdout and commit/abort only flush.  Each returns 0 or -errno.
 */
struct ipc_outfile {
	FILE *fp;
	char path[4096];
	char tmp[4096];
	bool is_stdout;
};

int ipc_outfile_open(struct ipc_outfile *of, const char *path);
int ipc_outfile_commit(struct ipc_outfile *of);
void ipc_outfile_abort(struct ipc_outfile *of);

/*
 * Human units for the table (ipc_fmt_ns, ipc_fmt_bytes, ipc_fmt_rate,
 * ipc_fmt_bps) are in base.h, with the parser of the same units.
 */

/* A value of @res's metric in its unit: "5.10 µs", "812 MiB/s", "18 k/s". */
char *ipc_fmt_metric(const struct ipc_result *res, double v, char *buf,
		     size_t len);

/*
 * The flags of a result's diagnosis (diag.flags bits) in words: a name
 * ("unstable", "bimodal", "outliers", "load"), a fixed hint saying what
 * to do, and why this result has it, with its numbers.
 */
const char *ipc_flag_name(enum ipc_flag_kind kind);
const char *ipc_flag_hint(enum ipc_flag_kind kind);
char *ipc_flag_why(const struct ipc_result *res, enum ipc_flag_kind kind,
		   char *buf, size_t len);

/* "round trip", "message" or "chunk": what CPU cost is counted per. */
const char *ipc_cost_unit(const struct ipc_result *res);

#ifdef __cplusplus
}
#endif

#endif

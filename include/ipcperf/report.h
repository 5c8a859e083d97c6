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
	/*
	 * ipcperf report of several documents: each one's own meta (its
	 * command line, host and options), nsources of them; NULL when the
	 * report is of one measurement.
	 */
	const struct ipc_report_meta *const *sources;
	size_t nsources;
};

/* A case the plan left out, and why (one sentence). */
struct ipc_skip {
	char what[128]; /* "stream udp size=64K" or "transport tcp6" */
	char why[192];	/* "larger than the largest UDP datagram (65507 B)" */
};

struct ipc_report;
struct ipc_comparison;

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
};

extern const struct ipc_report_ops *const ipc_reports[];
const struct ipc_report_ops *ipc_report_find(const char *name);

/* Convenience wrappers; each returns 0 or -errno. */
int ipc_report_begin(struct ipc_report *r);
int ipc_report_skip(struct ipc_report *r, const struct ipc_skip *s);
int ipc_report_result(struct ipc_report *r, const struct ipc_result *res);
int ipc_report_end(struct ipc_report *r);

/*
 * A result document read back: what the JSON formatter wrote, as records
 * a formatter takes again (ipc_report_begin with @meta, then each of
 * @results) or that compare and a merge can work on.  Everything the
 * records point to (host, options, strings, links, traces, transports
 * and engines this build does not have) belongs to the document.
 *
 * A document written before some field was added reads without it, as
 * the writer would have left it out; a field that is there but of the
 * wrong type, a figure that every run has (iterations, a percentile) but
 * this one lacks, or a pattern this build does not know is an error that
 * names the file and the field:
 *
 *   "a.json: results[2].runs[0].latency_ns.p50: not an integer"
 */
struct ipc_doc {
	const char *path;	     /* as given (or the parse's name) */
	struct ipc_report_meta meta; /* version, command, argv, host, ro */
	struct ipc_result **results; /* in the document's order */
	size_t nresults;
	struct ipc_skip *skips;
	size_t nskips;
	struct ipc_doc_store *store; /* what the records point into */
};

/*
 * Read the document in @path (ipc_doc_read) or in @text, @len bytes,
 * called @name in messages (ipc_doc_parse).  0 and a new document in
 * *out, or: -ENOENT and the like when the file cannot be read, -EINVAL
 * when it is not JSON or not a result document of schema 1 (or a field is
 * wrong, as above), -EPROTO when it is of another schema, -ENOMEM.  On
 * failure @err gets one sentence that starts with the file's name.
 */
int ipc_doc_read(const char *path, struct ipc_doc **out, char *err,
		 size_t err_len);
int ipc_doc_parse(const char *text, size_t len, const char *name,
		  struct ipc_doc **out, char *err, size_t err_len);

/* The largest result document read (ipc_file_read's bound): 256 MiB. */
#define IPC_DOC_FILE_MAX (256u << 20)

/* Free @doc and everything it holds; NULL is a no-op. */
void ipc_doc_free(struct ipc_doc *doc);

/*
 * Comparing two documents: their cases are matched by their parameters
 * (a parameter that holds one value in all of A and another in all of B,
 * such as the transport, is what is compared and is left out of the
 * match), and for each pair the per-run values of a metric are told apart
 * (ipc_compare_runs): the ratio of the medians B/A with its bootstrap
 * interval, the Mann-Whitney p-value, and a verdict.
 */
struct ipc_cmp_opts {
	const char *metric;   /* "p50", "p99", "mean" or "throughput" (the
				 case's pattern's); NULL: each case's own */
	double threshold_pct; /* smaller changes are no difference */
	bool fail_set;	      /* --fail-if-slower was given ... */
	double fail_pct;      /* ... with this percentage */
	bool drift_set;	      /* --drift was given ... */
	double drift_pct;     /* ... the drift between invocations to
				 allow for where it was not measured (sd, %
				 of the value) */
	const char *version;  /* this ipcperf's, for the document */
};

/* Is @word a metric compare can be asked for? */
bool ipc_compare_metric_ok(const char *word);

/*
 * Compare @a with @b (both must outlive the comparison) into a new *out.
 * 0, -ENOENT when no measured case of A matches one of B (nothing to
 * compare), or -ENOMEM.
 */
int ipc_compare(const struct ipc_doc *a, const struct ipc_doc *b,
		const struct ipc_cmp_opts *o, struct ipc_comparison **out);

/*
 * The same with two levels: @na documents of A, each an invocation of the
 * same command, against @nb of B (the arrays and documents must outlive
 * the comparison).  A case's results in a side's documents are its
 * invocations; with several on both sides the verdict rests on the
 * invocations (their medians against each other), so that the drift of
 * the machine between invocations counts; with one on a side, on the
 * runs, and a difference the drift could explain is "undecided" unless
 * the drift is known (measured on the other side, or o->drift_pct).
 * docs/methodology.md has the rules.
 */
int ipc_compare_sets(const struct ipc_doc *const *a, size_t na,
		     const struct ipc_doc *const *b, size_t nb,
		     const struct ipc_cmp_opts *o, struct ipc_comparison **out);

/*
 * What a saved comparison (compare -f json) says about how it was made:
 * the files it compared (one or several a side) and its options, so that
 * it can be made again from them (ipcperf report of a comparison).  The
 * file names are as compare was given them, or found next to the
 * comparison's own file.  ipc_cmp_saved_fini frees the names.
 */
struct ipc_cmp_saved {
	char **a, **b;	 /* the files of A and of B */
	size_t na, nb;	 /* how many of each */
	char metric[32]; /* "" when each case's own */
	double threshold_pct;
	bool drift_set;	  /* --drift was given: */
	double drift_pct; /* ... its value */
};

/*
 * Read the comparison saved in @path, whose @len bytes of @text have been
 * read (ipc_file_read: a pipe can be read once only), into @out: 0;
 * -EINVAL when it is not a comparison written by compare -f json (a
 * result document, say), with @err saying why; or -ENOMEM.  On success
 * the caller frees @out with ipc_cmp_saved_fini; on failure it holds
 * nothing.
 */
int ipc_cmp_saved_parse(const char *text, size_t len, const char *path,
			struct ipc_cmp_saved *out, char *err, size_t err_len);
void ipc_cmp_saved_fini(struct ipc_cmp_saved *sv);

/*
 * How many cases tripped --fail-if-slower: pairs where B is slower by the
 * percentage or more, and (with the gate set) cases of A that could not be
 * compared: only in A, not measured on a side, or without the metric.
 */
size_t ipc_comparison_gates(const struct ipc_comparison *c);

void ipc_comparison_free(struct ipc_comparison *c);

/*
 * A fleet's results as one host x host matrix per case (ipcperf report
 * --matrix): each result goes to the cell of the host that measured (the
 * document's host) and the host it measured against (the remote peer's
 * fingerprint, or its address; the same host for a local run).  A cell
 * merges every result of its pair: latency percentiles are read from the
 * merged histogram (never averaged), the interval is that of the median
 * of every run's value, flags are those of any result, and a pair whose
 * result failed is a failed cell with the reason.
 */
enum ipc_mx_metric {
	IPC_MX_P50 = 0,
	IPC_MX_P99,
	IPC_MX_THROUGHPUT,
};

/* The metric called @word ("p50", "p99", "throughput"); false if none. */
bool ipc_mx_metric_find(const char *word, enum ipc_mx_metric *out);

struct ipc_matrix;

/*
 * The matrices of @n documents (they must outlive it) by @metric into a
 * new *out: 0, -ENOENT when no result names a pair of hosts (nothing to
 * put in a matrix), or -ENOMEM.
 */
int ipc_matrix_build(const struct ipc_doc *const *docs, size_t n,
		     enum ipc_mx_metric metric,
		     const struct ipc_report_meta *meta,
		     struct ipc_matrix **out);

/*
 * Names for addresses (report --names FILE): @len bytes of @text, one
 * "ADDRESS NAME" a line ('#' starts a comment), so that a server that
 * never answered (no fingerprint) is named like the host it is.  0, or
 * -EINVAL with @err saying which line is wrong, or -ENOMEM.  Call before
 * ipc_matrix_build; the names are kept until the process ends or
 * ipc_mx_names_clear.
 */
int ipc_mx_names_parse(const char *text, size_t len, char *err, size_t err_len);
void ipc_mx_names_clear(void);

/* Cells that failed (wholly or in part). */
size_t ipc_matrix_failed(const struct ipc_matrix *m);

/*
 * Write @m to @out as @format: "table", "json", "csv", "markdown" or
 * "html".  0, -EINVAL for another format, or -errno when writing failed.
 */
int ipc_matrix_write(FILE *out, const struct ipc_matrix *m, const char *format);

void ipc_matrix_free(struct ipc_matrix *m);

/*
 * Two saved matrices (report --matrix -f json) compared: every pair of
 * hosts of every case in both, B against A by the medians of their runs'
 * values (ipc_compare_runs: the ratio B / A with a bootstrap interval),
 * a verdict per pair ("slower" when the interval lies beyond
 * o->threshold_pct on the slow side, "faster", "no significant
 * difference", "undecided" with too few runs, "failed in B"), and the
 * pairs slower or failed listed at the end.  ipc_mx_doc_is tells a
 * matrix from other JSON; _parse returns 0, -EINVAL (with @err) or
 * -ENOMEM.  ipc_mx_compare writes "table" or "json" and sets *gates to
 * the pairs that trip o->fail_set (slower by o->fail_pct or more, or
 * failed in B); 0 or -errno.
 */
struct ipc_mx_doc;
bool ipc_mx_doc_is(const char *text, size_t len);
int ipc_mx_doc_parse(const char *text, size_t len, const char *name,
		     struct ipc_mx_doc **out, char *err, size_t err_len);
void ipc_mx_doc_free(struct ipc_mx_doc *d);
const char *ipc_mx_doc_metric(const struct ipc_mx_doc *d); /* "p50" */
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

/*
 * Human units for the table (ipc_fmt_ns, ipc_fmt_bytes, ipc_fmt_rate,
 * ipc_fmt_bps) are in base.h, with the parser of the same units.
 */

/* A value of @res's metric in its unit: "5.10 µs", "812 MiB/s", "18 k/s". */
char *ipc_fmt_metric(const struct ipc_result *res, double v, char *buf,
		     size_t len);

/*
 * A figure of the kind @fmt says (IPC_FMT_NS, _BYTES, _RATE, _BPS; others
 * as an integer), "-" when not finite.
 */
char *ipc_fmt_value(enum ipc_fmt fmt, double v, char *buf, size_t len);

/*
 * The flags of a result's diagnosis (diag.flags bits) in words: a name
 * ("unstable", "bimodal", "outliers", "load"), a fixed hint saying what
 * to do, and why this result has it, with its numbers.
 */
const char *ipc_flag_name(enum ipc_flag_kind kind);
const char *ipc_flag_hint(enum ipc_flag_kind kind);
char *ipc_flag_why(const struct ipc_result *res, enum ipc_flag_kind kind,
		   char *buf, size_t len);

/*
 * A flag's hint as it fits one result: ipc_flag_hint is the general one
 * (id 0), untrue for some results, which get a variant (id 1, 2, ...):
 * `unstable` after -r N (more runs come from -r, not --max-runs) or
 * stopped out of reach (more runs would not narrow it), `short` in the
 * quick suite (@suite true: its runs' length is not the user's to set).
 * ipc_flag_hint_id says which fits @res; ipc_flag_hint_text gives hint
 * @id of @kind, NULL when there is none, and into *@label (may be NULL)
 * a few words saying when it applies ("out-of-reach"; "" for id 0), for a
 * table that prints several hints of one kind.  ipc_flag_hint_for is the
 * text of the one that fits.  Static strings.
 */
unsigned ipc_flag_hint_id(const struct ipc_result *res, enum ipc_flag_kind kind,
			  bool suite);
const char *ipc_flag_hint_text(enum ipc_flag_kind kind, unsigned id,
			       const char **label);
const char *ipc_flag_hint_for(const struct ipc_result *res,
			      enum ipc_flag_kind kind, bool suite);

/* Hint ids are below this. */
#define IPC_FLAG_HINT_IDS 4

/*
 * Is @res what docs/methodology.md, "unix stream rr on two CPUs", calls
 * the kernel's early wake-up of a blocking unix stream reader: rr over
 * unix or socketpair through the blocking engine, the sides on two CPUs
 * (pinned so, or most runs ending so), and a side that blocked more than
 * IPC_EARLY_WAKE_VCSW times per round trip (voluntary context switches;
 * once is the least)?  Its runs then take about three times as long, at
 * random; -e poll measures the socket without it.  The most of the two
 * sides' switches into *@vcsw (may be NULL; -1 when neither counted).
 */
bool ipc_result_early_wake(const struct ipc_result *res, double *vcsw);

#define IPC_EARLY_WAKE_VCSW 1.2

/*
 * "round trip", "message" or "chunk": what CPU cost is counted per (the
 * pattern's cost_per).
 */
const char *ipc_cost_unit(const struct ipc_result *res);

#ifdef __cplusplus
}
#endif

#endif

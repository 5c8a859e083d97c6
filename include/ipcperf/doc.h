/* SPDX-License-Identifier: MIT */
/*
 * Result documents: what a measurement leaves behind and what every later
 * step works on.  The document's schema, its JSON written and read back,
 * many documents merged into a fleet's host x host matrices, and the one
 * judgement of two sides of documents against each other.  Formatters
 * (report.h) print what these hold; they compute no figure and no verdict.
 */
#ifndef IPCPERF_DOC_H
#define IPCPERF_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base.h"
#include "run.h"
#include "stats.h"

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

/*
 * Writing a result document (JSON, schema IPC_JSON_SCHEMA; docs/json.md):
 * _begin with the document's @meta makes a new writer in *out (0 or
 * -ENOMEM); _skip and _result add a left-out case and a finished one (0,
 * or the first -ENOMEM, kept until the end); _end writes the whole
 * document to @out (NULL: nothing) and frees the writer, returning 0 or
 * -errno when writing failed.  Nothing written is NaN or Inf.
 */
struct ipc_doc_writer;
int ipc_doc_write_begin(const struct ipc_report_meta *meta,
			struct ipc_doc_writer **out);
int ipc_doc_write_skip(struct ipc_doc_writer *w, const struct ipc_skip *s);
int ipc_doc_write_result(struct ipc_doc_writer *w,
			 const struct ipc_result *res);
int ipc_doc_write_end(struct ipc_doc_writer *w,
		      const struct ipc_report_meta *meta, FILE *out);

struct ipc_comparison;

/*
 * A result document read back: what the JSON formatter wrote, as records
 * a formatter takes again (ipc_report_begin with @meta, then each of
 * @results) or that compare and a merge can work on.  Everything the
 * records point to (host, options, strings, links, traces, transports
 * and engines this build does not have) belongs to the document.
 * A record's histogram holds only the buckets up to its largest sample's:
 * read it with the ipc_hist_ functions or merge it into one of
 * ipc_hist_new, never record into it.
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
 * wrong, as above), -EPROTO when it is of another schema, -EFBIG when it
 * is larger than IPC_DOC_FILE_MAX or holds more JSON values or results
 * than the reader takes (docs/json.md says how many), -ENOMEM.  On
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

/*
 * Compare @a with @b (both must outlive the comparison) into a new *out.
 * 0, -ENOENT when no measured case of A matches one of B (nothing to
 * compare), or -ENOMEM.
 */
int ipc_compare(const struct ipc_doc *a, const struct ipc_doc *b,
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

struct ipc_matrix;

/*
 * The flags of a result's diagnosis (diag.flags bits) in the words a
 * document records and a formatter prints: a name ("unstable",
 * "bimodal", "outliers", "load") and a fixed hint saying what to do.  Why
 * a result has a flag is measured with it (ipc_flag_why in run.h).
 */
const char *ipc_flag_name(enum ipc_flag_kind kind);

/* Hint ids are below this. */
#define IPC_FLAG_HINT_IDS 4

#ifdef __cplusplus
}
#endif

#endif

/* SPDX-License-Identifier: MIT */
/*
 * What the other layers of ipcperf (and its tests) use of doc and a user
 * of libipcperf does not: not installed, not exported (the public part
 * is ipcperf/doc.h; docs/library.md says where the line is and why).
 */
#ifndef IPCPERF_DOC_LIB_INTERNAL_H
#define IPCPERF_DOC_LIB_INTERNAL_H

#include "ipcperf/doc.h"

/*
 * What one document read may hold beyond its file's size: a file of tiny
 * values (jansson's tree of nested empty objects costs some 250 bytes a
 * value) or of tiny results (each a whole record read) would cost tens
 * of GB under the 256 MiB cap.  ipcperf's own indented JSON takes some
 * 33 to 42 bytes a value, about 300 values a result of three runs (2,000
 * with 30 runs and intervals): 10,000 results of three runs (3 M values)
 * or 2,000 of thirty (4 M) are inside both, and a file of its own at the
 * file cap is near the value limit, not past it.  docs/json.md says what
 * the worst case costs.
 */
#define IPC_DOC_VALUES_MAX (8u << 20)
#define IPC_DOC_RESULTS_MAX 50000u

/*
 * Before parsing @len bytes of @text called @name: 0, or -EFBIG with
 * @err saying so when it holds more than IPC_DOC_VALUES_MAX values.  A
 * value is counted at each '{', '[' and ',' outside strings, and one
 * for the first: never fewer than jansson would build.
 */
int ipc_doc_values_check(const char *text, size_t len, const char *name,
			 char *err, size_t err_len);

/* Is @word a metric compare can be asked for? */
bool ipc_compare_metric_ok(const char *word);

/*
 * The same with two levels: @na documents of A, each an invocation of the
 * same command, against @nb of B (the arrays and documents must outlive
 * the comparison).  A case's results in a side's documents are its
 * invocations; with several on both sides the verdict rests on the
 * invocations (their medians against each other), so that the drift of
 * the machine between invocations counts; with one on a side, on the
 * runs, their interval widened by the drift measured on the other side,
 * or o->drift_pct, or else the default allowance IPC_DRIFT_DEFAULT_PCT,
 * within which a difference is "undecided".  The verdict is ipc_judge's
 * (stats.h); docs/methodology.md has the rules.
 */
int ipc_compare_sets(const struct ipc_doc *const *a, size_t na,
		     const struct ipc_doc *const *b, size_t nb,
		     const struct ipc_cmp_opts *o, struct ipc_comparison **out);

/*
 * Read the comparison saved in @path, whose @len bytes of @text have been
 * read (ipc_file_read: a pipe can be read once only), into @out: 0;
 * -EINVAL when it is not a comparison written by compare -f json (a
 * result document, say), with @err saying why; -EFBIG when it holds
 * too many values to parse (ipc_doc_values_check); or -ENOMEM.  On success
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

/* The metric called @word ("p50", "p99", "throughput"); false if none. */
bool ipc_mx_metric_find(const char *word, enum ipc_mx_metric *out);

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

void ipc_matrix_free(struct ipc_matrix *m);

/*
 * Two saved matrices (report --matrix -f json) compared: every pair of
 * hosts of every case in both, B against A by the medians of their runs'
 * values (ipc_compare_runs: the ratio B / A with a bootstrap interval),
 * a verdict per pair by the rule compare uses (ipc_judge: one file a
 * side, so the default allowance for drift or o->drift_pct), or "failed
 * in B", and the pairs slower or failed listed at the end (mx_judge,
 * doc/matrix.h; report's ipc_mx_compare prints them).  ipc_mx_doc_is
 * tells a matrix from other JSON; _parse returns 0, -EINVAL or -EFBIG
 * (too many values, ipc_doc_values_check; both with @err) or -ENOMEM.
 */
struct ipc_mx_doc;
bool ipc_mx_doc_is(const char *text, size_t len);
int ipc_mx_doc_parse(const char *text, size_t len, const char *name,
		     struct ipc_mx_doc **out, char *err, size_t err_len);
void ipc_mx_doc_free(struct ipc_mx_doc *d);
const char *ipc_mx_doc_metric(const struct ipc_mx_doc *d); /* "p50" */

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

/* A flag's fixed hint, what to do about it (ipc_flag_name is public). */
const char *ipc_flag_hint(enum ipc_flag_kind kind);

#endif

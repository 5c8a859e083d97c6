/* SPDX-License-Identifier: MIT */
/*
 * The human table, private to the report layer: what it keeps of each
 * result until the end, the cells every layout shares (a figure, a
 * parameter, the interval, the cost and the flags), the heading's words
 * and the notes under a table.  The layouts are the pattern sections
 * (table_section.c), the quick suite (table_suite.c) and the pivot
 * (table_pivot.c); table.c is the formatter that chooses among them;
 * table_common.c and table_tail.c hold what they share.
 */
#ifndef IPCPERF_REPORT_TABLE_H
#define IPCPERF_REPORT_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#include "ipcperf/report.h"
#include "doc/compare.h"
#include "grid.h"

/*
 * What the table keeps of one result: the record without its runs and
 * histograms (the caller frees those), with its metric resolved and its
 * error made printable.
 */
struct trow {
	struct ipc_result res;
	uint64_t run_iters; /* samples of the first run */
};

/*
 * Where the layouts write, and in which style: lines (a heading, notes)
 * and grids, each written as it is finished.
 */
enum tab_style {
	TAB_TEXT = 0, /* aligned columns for a terminal */
	TAB_MARKDOWN, /* GitHub-flavoured Markdown */
	TAB_HTML,     /* headings, paragraphs and tables of a page */
};

struct tab_out {
	FILE *f;
	enum tab_style style;
	char *line; /* the line being written, up to its newline */
	size_t len, cap;
	bool heading; /* the line being written is a heading */
	bool para;    /* Markdown: text since the last blank line */
	int err;      /* -ENOMEM once a line could not be held */
};

void tab_out_init(struct tab_out *o, FILE *f, enum tab_style style);

/* Flush a line without its newline and free; returns the first error. */
int tab_out_fini(struct tab_out *o);

/* Text; each newline ends a line, written in the style. */
__attribute__((format(printf, 2, 3))) void tab_printf(struct tab_out *o,
						      const char *fmt, ...);
void tab_puts(struct tab_out *o, const char *s);

/* The next line is a heading (Markdown ###, HTML h3). */
void tab_heading(struct tab_out *o);

/* A grid as the style's table. */
void tab_grid(struct tab_out *o, struct grid *g);

/* Every result and skip of a report, in the order they came. */
struct tab {
	enum tab_style style;
	struct trow *rows;
	size_t nrows, rows_cap;
	struct ipc_skip *skips;
	size_t nskips, skips_cap;
	bool matrix; /* sections as matrices where they fit (--matrix) */
};

/* Keep a result (its record, not its runs) or a skip; 0 or -errno. */
int tab_keep(struct tab *t, const struct ipc_result *res);
int tab_keep_skip(struct tab *t, const struct ipc_skip *s);

/* Called after each pattern's section with its rows (HTML's charts). */
struct tab_hook {
	int (*section)(void *arg, const struct trow *const *rows, size_t n);
	void *arg;
};

/*
 * Print every kept result and skip: the quick suite's table or one
 * section per pattern, the skips and the clock's cost.  0 or -errno.
 */
int tab_print(struct tab_out *out, const struct ipc_report_meta *meta,
	      struct tab *t, const struct tab_hook *hook);

/* Free @t and what it keeps; NULL is a no-op. */
void tab_free(struct tab *t);

/* Grow @*p (of @size-byte items) so that it holds @n + 1 of them. */
int tab_grow(void **p, size_t *cap, size_t n, size_t size);

/* Did this case measure anything?  Never show zeros that were not. */
bool tab_measured(const struct trow *t);

const char *tab_pat_name(const struct trow *t);
const char *tab_tp_name(const struct trow *t);
const char *tab_eng_name(const struct trow *t);
const char *tab_link_name(const struct trow *t); /* "none" without */

/* The engine (link) all rows share, or NULL when they differ. */
const char *tab_one_engine(const struct trow *const *rows, size_t n);
const char *tab_one_link(const struct trow *const *rows, size_t n);

/* Did any of @rows run with its sides pinned (a "cpus" column)? */
bool tab_any_placed(const struct trow *const *rows, size_t n);

/* "1 (CPU 0)", "2 (CPUs 0,1)", "2 (CPUs 0,1 SMT)" or "any". */
void tab_place_cell(struct grid *g, char **cell, const struct ipc_place *pl);

/* Under a table with a cpus column: what it means. */
void tab_place_note(struct tab_out *out, const struct trow *const *rows,
		    size_t n);

/* A size 0 travelling as a 1-byte token: the footnote applies. */
bool tab_zero_on_stream(const struct trow *t);
extern const char tab_zero_note[];

/* Append to the string in @buf, truncating at @len. */
__attribute__((format(printf, 3, 4))) void tab_appendf(char *buf, size_t len,
						       const char *fmt, ...);

/*
 * How many runs of how many samples: "3 runs × 10000 round trips", "3 runs
 * of 2.00 s each", or --runs auto's rule with what the command took
 * (@took_ns, 0: not said); @one and @many are the sample's words.
 */
void tab_how_many(char *buf, size_t len, const struct ipc_runopts *ro,
		  size_t runs, uint64_t iters, const char *one,
		  const char *many, uint64_t took_ns);

/*
 * "peer in a separate process, server on CPU 2"; "peer remote at
 * host:5301" when @cs (NULL: none) runs against another host.
 */
void tab_where(char *buf, size_t len, const struct ipc_runopts *ro,
	       const struct ipc_case *cs);

/*
 * The same for @rows, whose other end may be a server already running
 * (an external peer: a gdbserver, a web server): "peer external at
 * HOST:PORT" when all rows have that one, "the other end already
 * running, client on CPU 1" when they have several, or "peer in a
 * separate process or already running, client on CPU 0, server on CPU 1"
 * when only some do (the server's CPU is that of ipcperf's own peers).
 */
void tab_where_rows(char *buf, size_t len, const struct ipc_runopts *ro,
		    const struct trow *const *rows, size_t n);

/*
 * @tmpl with each "{key}" replaced by that parameter of @pat as @rows
 * share it ("1000", "4 MiB"), or its vary word when they differ.  Returns
 * true when every value substituted printed the same.
 */
bool tab_words(char *buf, size_t len, const char *tmpl,
	       const struct ipc_pattern_ops *pat,
	       const struct trow *const *rows, size_t n);

/* Is @p's column of words (left-aligned) rather than of numbers? */
bool tab_param_left(const struct ipc_param *p);

/* A parameter's value for people: "64 B", "1000", "open, 1.00 k/s". */
void tab_param_cell(struct grid *g, char **cell, const struct ipc_case *cs,
		    const struct ipc_param *p);

/* A column's figure of a result: "5.10 µs", "38 (9.5%)", "-". */
void tab_col_cell(struct grid *g, char **cell, const struct ipc_column *c,
		  const struct ipc_result *res);

/* Does the result have the column's figure (IPC_COL_IF_ANY)? */
bool tab_col_has(const struct ipc_column *c, const struct ipc_result *res);

/*
 * The columns every layout shares, and their cells: the headline (the
 * estimate, the median of the runs' metric) with its interval, placed
 * before the pattern's pooled figures; and at the end the runs, cv, CPU
 * cost, flags and status.
 */
struct tab_tail {
	bool ci, cost, cycles; /* columns shown */
	unsigned flags;	       /* flags of the measured rows */
	int hcol;	       /* the pattern's column the headline replaces
				  (its metric, pooled), -1: none */
	char head[32];	       /* the headline's head: "p50", "bandwidth" */
	char ci_head[24];      /* "95% CI" */
	char cpu_head[24];     /* "cpu/rt" */
	char csw_head[24];
	char cyc_head[24];
	char ins_head[24];
	int col[10]; /* grid column of each, -1 when not shown */
};

/* Look at @rows to decide which tail columns are shown. */
void tab_tail_init(struct tab_tail *tt, const struct ipc_pattern_ops *pat,
		   const struct trow *const *rows, size_t n);

/* Add the headline and its interval to @g. */
void tab_head_cols(struct tab_tail *tt, struct grid *g);

/*
 * The headline of @res in a cell: "5.10 µs", with " ±0.8%" when @half and
 * the result has an interval.  Returns whether it printed that half-width.
 */
bool tab_head_cell(struct grid *g, char **cell, const struct ipc_result *res,
		   bool half);

/* Add the tail's columns to @g (in order: runs, cv, cost, flags...). */
void tab_tail_cols(struct tab_tail *tt, struct grid *g, bool cost_cols,
		   bool flags_col);

/*
 * Under a table: which figure is the headline and which are pooled over
 * every sample of every run.  @cols are the pattern's columns, @ccol
 * their grid columns (-1: not shown), @samples what a sample is.
 */
void tab_pooled_note(struct tab_out *out, const struct tab_tail *tt,
		     const struct ipc_column *cols, const int *ccol,
		     const char *samples);

/* Fill the tail's cells of line @l for @t (measured rows). */
void tab_tail_cells(const struct tab_tail *tt, struct grid *g,
		    struct grid_line *l, const struct trow *t);

/*
 * A case's cells after its identifying ones: its parameters in the
 * columns @pcol gives (one per parameter, -1: not shown), then its
 * figures @cols in the columns @ccol gives and the tail; or, when it
 * measured nothing, a span that says why.
 */
void tab_case_cells(struct grid *g, struct grid_line *l, const struct trow *t,
		    const int *pcol, const struct ipc_column *cols,
		    const int *ccol, const struct tab_tail *tt);

/* "error: ..." or "partial: ..." or "nothing was measured" over the line. */
void tab_span_failed(struct grid *g, struct grid_line *l, const struct trow *t);

/* The cost columns' meaning, and where cycles and instructions went. */
void tab_cost_note(struct tab_out *out, const struct ipc_report_meta *meta,
		   const struct tab_tail *tt, const char *unit);

/*
 * The hints of the flags in @flags over @rows: one line per kind, or one
 * per variant of a kind's hint the rows need, labelled then ("hint for
 * unstable (out-of-reach): ..."); @suite: the rows are the quick suite's.
 */
void tab_flag_hints(struct tab_out *out, const struct trow *const *rows,
		    size_t n, unsigned flags, bool suite);

/*
 * One note naming the rows whose runs show a blocking unix stream reader
 * woken early (ipc_result_early_wake), its cause and what measures the
 * socket without it; nothing when none does.
 */
void tab_wake_note(struct tab_out *out, const struct trow *const *rows,
		   size_t n);

/* Each case's first reply unlike its trace's (replay --target), if any. */
/*
 * For each row of a case an option ran twice (--zerocopy, --under-load),
 * a line setting it beside the row without the option (table_twin.c).
 */
void tab_twin_notes(struct tab_out *out, const struct trow *const *rows,
		    size_t n);

void tab_mismatch_notes(struct tab_out *out, const struct trow *const *rows,
			size_t n);

/* Why each flagged case has its flags, then one hint per kind. */
void tab_flag_notes(struct tab_out *out, const struct trow *const *rows,
		    size_t n, unsigned flags);

/*
 * The layouts: one pattern's rows (all of one pattern), 0 or -errno;
 * @matrix: its cases as matrices (table_matrix_print) where they fit.
 */
int table_section_print(struct tab_out *out, const struct ipc_report_meta *meta,
			const struct trow *const *rows, size_t n, bool matrix);

/*
 * @rows (all of one pattern) as matrices: one per group of cases that
 * differ only in the pattern's first two parameters, rows the first,
 * columns the second, each cell the headline with its half-width and the
 * pattern's rate under it.  0, -ENOTSUP when those two parameters are
 * not numbers, or -errno.
 */
int table_matrix_print(struct tab_out *out, const struct trow *const *rows,
		       size_t n);
int table_pivot_print(struct tab_out *out, const struct ipc_report_meta *meta,
		      const struct trow *const *rows, size_t n);

/*
 * The quick suite's table of the rows whose pattern takes part in it;
 * the others go to @rest (*nrest of them) for the usual sections.  Sets
 * *printed when anything was printed.
 */
int table_suite_print(struct tab_out *out, const struct ipc_report_meta *meta,
		      const struct tab *t, const struct trow **rest,
		      size_t *nrest, bool *printed);

/*
 * The formatters' compare hooks (struct ipc_report_ops.compare), written
 * in compare_print.c and html.c.
 */
int cmp_print_table(FILE *out, const struct ipc_comparison *c);
int cmp_print_markdown(FILE *out, const struct ipc_comparison *c);
int cmp_print_html(FILE *out, const struct ipc_comparison *c);

/* The comparison's heading, table and notes, in @out's style. */
int cmp_print_styled(struct tab_out *out, const struct ipc_comparison *c);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * One grid for every table the report layer prints (the pattern sections,
 * the quick suite, the replay pivot, compare, the fleet matrix), as text,
 * Markdown or HTML: columns with a head and an alignment, lines of cells,
 * widths measured in terminal columns.  A line may carry one text across
 * every column after the identifying ones (an error in place of numbers).
 */
#ifndef IPCPERF_REPORT_GRID_H
#define IPCPERF_REPORT_GRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define GRID_MAXCOLS 64

struct grid_line {
	char **cell; /* ncols cells, NULL prints as empty */
	char *span;  /* text over the columns from nid on, or NULL */
};

struct grid {
	const char *head[GRID_MAXCOLS]; /* borrowed: must outlive the grid */
	bool left[GRID_MAXCOLS];	/* words left-aligned, numbers right */
	size_t width[GRID_MAXCOLS];
	size_t ncols;
	size_t nid; /* identifying columns, left of a span */
	struct grid_line *lines;
	size_t nlines, cap;
	int err; /* -ENOMEM once anything failed; later calls do nothing */
	const char *caption; /* HTML: the table's caption (borrowed), or NULL */
};

/*
 * Add a column with the heading @head (borrowed) before the first line;
 * returns its index, or -1 when the grid is full or has lines.
 */
int grid_col(struct grid *g, const char *head, bool left);

/* Mark the columns added so far as the identifying ones. */
void grid_ids(struct grid *g);

/* A new line of empty cells, or NULL (g->err says why). */
struct grid_line *grid_line(struct grid *g);

/* printf into @cell (replacing what it held); on failure g->err is set. */
__attribute__((format(printf, 3, 4))) void grid_set(struct grid *g, char **cell,
						    const char *fmt, ...);

/*
 * Print the heads and every line: widths from the content, two spaces
 * between columns, nothing after the last cell that holds something.  A
 * span wider than the columns it covers widens the last one, so that the
 * columns stay aligned.
 */
void grid_print(struct grid *g, FILE *out);

/*
 * The grid as a GitHub-flavoured Markdown table, or an HTML table (every
 * cell escaped); a line's span goes in its first column after the
 * identifying ones.  0 or -errno.
 */
int grid_print_md(struct grid *g, FILE *out);
int grid_print_html(struct grid *g, FILE *out);

void grid_free(struct grid *g);

/*
 * Columns a UTF-8 string takes on a terminal ("µs" is two): the one
 * display width of the report layer (tables and chart labels).
 */
size_t grid_dwidth(const char *s);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The report layer's one table printer: columns, lines, widths in terminal
 * columns, alignment, and errors carried over whole rows.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"

size_t grid_dwidth(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

int grid_col(struct grid *g, const char *head, bool left)
{
	if (g->err || g->nlines || g->ncols >= GRID_MAXCOLS)
		return -1;
	g->head[g->ncols] = head;
	g->left[g->ncols] = left;
	return (int)g->ncols++;
}

void grid_ids(struct grid *g)
{
	g->nid = g->ncols;
}

struct grid_line *grid_line(struct grid *g)
{
	struct grid_line *l;

	if (g->err)
		return NULL;
	if (g->nlines == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 16;
		struct grid_line *p = reallocarray(g->lines, cap, sizeof(*p));

		if (!p) {
			g->err = -ENOMEM;
			return NULL;
		}
		g->lines = p;
		g->cap = cap;
	}
	l = &g->lines[g->nlines];
	l->span = NULL;
	l->cell = calloc(g->ncols ? g->ncols : 1, sizeof(*l->cell));
	if (!l->cell) {
		g->err = -ENOMEM;
		return NULL;
	}
	g->nlines++;
	return l;
}

void grid_set(struct grid *g, char **cell, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (!cell)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0) {
		g->err = -ENOMEM;
		s = NULL;
	}
	va_end(ap);
	free(*cell);
	*cell = s;
}

/* Width of the columns from @from to the last, separators included. */
static size_t width_from(const struct grid *g, size_t from)
{
	size_t w = 0, i;

	for (i = from; i < g->ncols; i++)
		w += g->width[i] + (i > from ? 2 : 0);
	return w;
}

static void measure(struct grid *g)
{
	size_t i, c, w, avail;

	for (c = 0; c < g->ncols; c++)
		g->width[c] = grid_dwidth(g->head[c]);
	for (i = 0; i < g->nlines; i++) {
		const struct grid_line *l = &g->lines[i];

		for (c = 0; c < g->ncols; c++) {
			if (l->span && c >= g->nid)
				break;
			w = grid_dwidth(l->cell[c]);
			if (w > g->width[c])
				g->width[c] = w;
		}
	}
	for (i = 0; i < g->nlines; i++) {
		if (!g->lines[i].span || g->nid >= g->ncols)
			continue;
		w = grid_dwidth(g->lines[i].span);
		avail = width_from(g, g->nid);
		if (w > avail)
			g->width[g->ncols - 1] += w - avail;
	}
}

static void pad(FILE *out, size_t n)
{
	while (n--)
		fputc(' ', out);
}

/* A cell; the last one of a line gets no padding after it. */
static void cell(FILE *out, const char *s, size_t width, bool left, bool last)
{
	size_t w = grid_dwidth(s);
	size_t gap = width > w ? width - w : 0;

	if (!left)
		pad(out, gap);
	fputs(s ? s : "", out);
	if (left && !last)
		pad(out, gap);
}

/* One line: @cells (ncols of them), or the ids then @span. */
static void print_line(const struct grid *g, FILE *out, const char *const *c,
		       const char *span)
{
	size_t end = g->ncols, i;

	if (span && g->nid < g->ncols)
		end = g->nid;
	else
		span = NULL;
	/* Nothing to align after the last cell that holds something. */
	while (!span && end > 1 && (!c[end - 1] || !*c[end - 1]))
		end--;
	for (i = 0; i < end; i++) {
		if (i)
			fputs("  ", out);
		cell(out, c[i], g->width[i], g->left[i], !span && i + 1 == end);
	}
	if (span) {
		if (end)
			fputs("  ", out);
		cell(out, span, width_from(g, end), true, true);
	}
	fputc('\n', out);
}

void grid_print(struct grid *g, FILE *out)
{
	measure(g);
	print_line(g, out, g->head, NULL);
	for (size_t i = 0; i < g->nlines; i++)
		print_line(g, out, (const char *const *)g->lines[i].cell,
			   g->lines[i].span);
}

void grid_free(struct grid *g)
{
	for (size_t i = 0; i < g->nlines; i++) {
		for (size_t c = 0; c < g->ncols; c++)
			free(g->lines[i].cell[c]);
		free(g->lines[i].cell);
		free(g->lines[i].span);
	}
	free(g->lines);
	memset(g, 0, sizeof(*g));
}

/* SPDX-License-Identifier: MIT */
/*
 * The grid as GitHub-flavoured Markdown and as an HTML table: the same
 * columns, heads and alignment as the text, a line's span (an error in
 * place of numbers) in its first column after the identifying ones.
 */
#include <errno.h>
#include <stdlib.h>

#include "grid.h"
#include "html_page.h"
#include "mdtable.h"

/* The grid's cells as one array, spans moved into their first column. */
static int flatten(const struct grid *g, const char ***cells,
		   enum md_align *align)
{
	size_t i, c;

	*cells = calloc(g->nlines * g->ncols + 1, sizeof(**cells));
	if (!*cells)
		return -ENOMEM;
	for (c = 0; c < g->ncols; c++)
		align[c] = g->left[c] ? MD_LEFT : MD_RIGHT;
	for (i = 0; i < g->nlines; i++) {
		const struct grid_line *l = &g->lines[i];

		for (c = 0; c < g->ncols; c++) {
			if (l->span && c >= g->nid)
				break;
			(*cells)[i * g->ncols + c] = l->cell[c];
		}
		if (l->span && g->nid < g->ncols)
			(*cells)[i * g->ncols + g->nid] = l->span;
	}
	return 0;
}

/* The grid as Markdown (@html false) or as an HTML table. */
static int print_with(struct grid *g, FILE *out, bool html)
{
	enum md_align align[GRID_MAXCOLS];
	const char **cells;
	int err;

	if (g->err || !g->ncols)
		return g->err ? g->err : -EINVAL;
	err = flatten(g, &cells, align);
	if (!err)
		err = html ? html_table(out, g->caption, g->ncols, g->head,
					align, cells, g->nlines)
			   : md_table(out, g->ncols, g->head, align, cells,
				      g->nlines);
	free(cells);
	return err;
}

int grid_print_md(struct grid *g, FILE *out)
{
	return print_with(g, out, false);
}

int grid_print_html(struct grid *g, FILE *out)
{
	return print_with(g, out, true);
}

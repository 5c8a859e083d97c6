/* SPDX-License-Identifier: MIT */
/*
 * The matrix view of a section (--matrix), the shape of LLDB's packet
 * speed-test: for each group of cases that differ only in the pattern's
 * first two parameters (rr: req and resp), a grid with one row per value
 * of the first, one column per value of the second, each cell the
 * headline with the half-width of its interval as the main table shows
 * it, and under it the pattern's rate.  A case not measured prints "-".
 * Every figure is the result's own; nothing is computed here.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"
#include "pattern/lib_internal.h"

#define MX_AXIS (GRID_MAXCOLS - 1) /* values across: one column is the id */

/*
 * What identifies a case's group: everything but the two axes
 * ("pipe, cpus 1 (CPU 0)", then the engine, link, framing and the
 * pattern's other parameters when they are not the defaults).
 */
static void group_key(const struct trow *t, char *buf, size_t len)
{
	const struct ipc_case *cs = &t->res.cs;
	const struct ipc_param *p = cs->pat->params;
	char w[96], pl[64] = "";
	struct grid g = {0};
	char *cell = NULL;

	snprintf(buf, len, "%s", tab_tp_name(t));
	if (strcmp(tab_eng_name(t), "blocking"))
		tab_appendf(buf, len, ", engine %s", tab_eng_name(t));
	if (strcmp(tab_link_name(t), "none"))
		tab_appendf(buf, len, ", link %s", tab_link_name(t));
	if (cs->framing && cs->framing->encode)
		tab_appendf(buf, len, ", framing %s", cs->framing->name);
	for (p += 2; p->key; p++) {
		if (!ipc_param_in_words(cs, p))
			continue;
		ipc_param_word(cs, p, w, sizeof(w));
		tab_appendf(buf, len, ", %s%s%s", p->word,
			    p->word[0] ? "=" : "", w);
	}
	tab_place_cell(&g, &cell, &cs->place);
	if (cell)
		snprintf(pl, sizeof(pl), "%s", cell);
	free(cell);
	tab_appendf(buf, len, ", cpus %s", pl[0] ? pl : "?");
}

/* Can @pat's sections be shown as matrices?  Two numbers first. */
static bool matrix_fits(const struct ipc_pattern_ops *pat)
{
	const struct ipc_param *p = pat->params;

	return p && p[0].key && p[1].key && ipc_param_is_number(&p[0]) &&
	       ipc_param_is_number(&p[1]);
}

/* Add @v to the sorted set @vals (*n of them, at most @max); false: full. */
static bool add_value(uint64_t *vals, size_t *n, size_t max, uint64_t v)
{
	size_t i = 0;

	while (i < *n && vals[i] < v)
		i++;
	if (i < *n && vals[i] == v)
		return true;
	if (*n >= max)
		return false;
	memmove(&vals[i + 1], &vals[i], (*n - i) * sizeof(*vals));
	vals[i] = v;
	(*n)++;
	return true;
}

static size_t index_of(const uint64_t *vals, size_t n, uint64_t v)
{
	size_t i = 0;

	while (i < n && vals[i] != v)
		i++;
	return i;
}

/* The pattern's rate column (rr: trans/s), or NULL when it has none. */
static const struct ipc_column *rate_col(const struct ipc_pattern_ops *pat)
{
	for (const struct ipc_column *c = pat->cols; c && c->head; c++)
		if (c->src == IPC_SRC_MSGS_PER_S)
			return c;
	return NULL;
}

/* A case in row @k of the grid, or in column @k when @across. */
static const struct trow *some_row(const struct trow **cell, size_t nx,
				   size_t ny, size_t k, bool across)
{
	for (size_t m = 0; m < (across ? nx : ny); m++) {
		const struct trow *t =
			across ? cell[m * ny + k] : cell[k * ny + m];

		if (t)
			return t;
	}
	return NULL;
}

/* One group's @n rows: its heading, grid and failures. */
static int print_group(struct tab_out *out, const char *key,
		       const struct trow *const *rows, size_t n)
{
	const struct ipc_pattern_ops *pat = rows[0]->res.cs.pat;
	const struct ipc_param *px = &pat->params[0], *py = &pat->params[1];
	const struct ipc_column *rate = rate_col(pat);
	const struct trow **cell = NULL;
	uint64_t *xs = NULL, ys[MX_AXIS];
	char yhead[MX_AXIS][32], idhead[80], w[96];
	size_t nx = 0, ny = 0, i, j, dropped = 0, repeats = 0;
	struct grid g = {0};
	int err = 0;

	xs = calloc(n, sizeof(*xs));
	if (!xs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		uint64_t x = ipc_param_u64(&rows[i]->res.cs, px),
			 y = ipc_param_u64(&rows[i]->res.cs, py);

		if (add_value(ys, &ny, MX_AXIS, y))
			add_value(xs, &nx, n, x);
		else
			dropped++;
	}
	cell = calloc(nx * ny, sizeof(*cell));
	if (!cell) {
		free(xs);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		size_t x = index_of(xs, nx,
				    ipc_param_u64(&rows[i]->res.cs, px)),
		       y = index_of(ys, ny,
				    ipc_param_u64(&rows[i]->res.cs, py));

		if (x >= nx || y >= ny)
			continue; /* dropped */
		if (!cell[x * ny + y])
			cell[x * ny + y] = rows[i];
		else
			repeats++;
	}
	snprintf(idhead, sizeof(idhead), "%s \\ %s", px->head ? px->head : "?",
		 py->head ? py->head : "?");
	grid_col(&g, idhead, true);
	grid_ids(&g);
	/* Each value as the case's own words say it ("4k"). */
	for (j = 0; j < ny; j++) {
		ipc_param_word(&some_row(cell, nx, ny, j, true)->res.cs, py,
			       yhead[j], sizeof(yhead[j]));
		grid_col(&g, yhead[j], false);
	}
	for (i = 0; i < nx; i++) {
		struct grid_line *l = grid_line(&g), *r = NULL;

		if (!l)
			break;
		grid_set(&g, &l->cell[0], "%s",
			 ipc_param_word(
				 &some_row(cell, nx, ny, i, false)->res.cs, px,
				 w, sizeof(w)));
		if (rate && !(r = grid_line(&g)))
			break;
		if (r)
			grid_set(&g, &r->cell[0], "  %s", rate->head);
		for (j = 0; j < ny; j++) {
			const struct trow *t = cell[i * ny + j];

			if (!t)
				grid_set(&g, &l->cell[1 + j], "-");
			else if (!tab_measured(t))
				grid_set(&g, &l->cell[1 + j], "%s",
					 t->res.status == IPC_STATUS_ERROR
						 ? "error"
						 : "-");
			else
				tab_head_cell(&g, &l->cell[1 + j], &t->res,
					      true);
			if (r && t && tab_measured(t))
				tab_col_cell(&g, &r->cell[1 + j], rate,
					     &t->res);
		}
	}
	err = g.err;
	if (!err) {
		tab_printf(out, "\n%s:\n", key);
		tab_grid(out, &g);
		for (i = 0; i < n; i++) {
			const struct trow *t = rows[i];
			char a[64], b[64];

			if (t->res.status == IPC_STATUS_OK)
				continue;
			ipc_param_word(&t->res.cs, px, a, sizeof(a));
			ipc_param_word(&t->res.cs, py, b, sizeof(b));
			tab_printf(out, "%s=%s %s=%s: %s: %s\n", px->word, a,
				   py->word, b,
				   t->res.status == IPC_STATUS_PARTIAL
					   ? "partial"
					   : "error",
				   t->res.error[0] ? t->res.error
						   : "unknown error");
		}
		if (repeats)
			tab_printf(out,
				   "%zu cases measured a cell again (several "
				   "files): the first is shown\n",
				   repeats);
		if (dropped)
			tab_printf(out,
				   "%zu cases not shown: more than %d values "
				   "of %s\n",
				   dropped, MX_AXIS, py->word);
	}
	grid_free(&g);
	free(cell);
	free(xs);
	return err;
}

/* What a cell holds, under the matrices. */
static void note(struct tab_out *out, const struct trow *const *rows, size_t n)
{
	const struct ipc_pattern_ops *pat = rows[0]->res.cs.pat;
	const struct ipc_column *rate = rate_col(pat);
	const char *m = pat->metric ? pat->metric->word : "headline";
	double level = 0;

	for (size_t i = 0; i < n && !level; i++)
		if (rows[i]->res.metric.have_ci &&
		    isfinite(rows[i]->res.metric.ci_level))
			level = rows[i]->res.metric.ci_level * 100;
	tab_printf(out, "each cell: %s, the median of the runs' %s", m, m);
	if (level)
		tab_printf(out, ", ±half the width of its %.0f%% interval",
			   level);
	if (rate)
		tab_printf(out, "; under it %s over every %s", rate->head,
			   pat->sample ? pat->sample : "sample");
	tab_puts(out, "; -: not measured\n");
}

int table_matrix_print(struct tab_out *out, const struct trow *const *rows,
		       size_t n)
{
	const struct trow **grp;
	char(*key)[256];
	bool *done;
	size_t i, j, k;
	int err = 0;

	if (!n || !matrix_fits(rows[0]->res.cs.pat))
		return -ENOTSUP;
	grp = calloc(n, sizeof(*grp));
	done = calloc(n, sizeof(*done));
	key = calloc(n, sizeof(*key));
	if (!grp || !done || !key) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++)
		group_key(rows[i], key[i], sizeof(key[i]));
	/* Groups in the order they first appear, as the plan ran them. */
	for (i = 0; i < n && !err; i++) {
		if (done[i])
			continue;
		for (j = i, k = 0; j < n; j++) {
			if (done[j] || strcmp(key[j], key[i]))
				continue;
			grp[k++] = rows[j];
			done[j] = true;
		}
		err = print_group(out, key[i], grp, k);
	}
	if (!err)
		note(out, rows, n);
out:
	free(key);
	free(done);
	free(grp);
	return err;
}

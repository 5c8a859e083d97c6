/* SPDX-License-Identifier: MIT */
/*
 * The pivot: the seed report's shape for replay.  First one row per case
 * named by its parameters (a recorded conversation), one column per link,
 * the headline in each cell (the median over the runs of each run's wall
 * time of one replay).  Then one
 * line per case with what explains the cell: the parameters the pattern
 * shows as columns (the conversation's exchanges and bytes) and its
 * figures (the time the emulated link alone accounts for, how far the
 * replay was above it, the per-exchange latency).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"
#include "pattern/lib_internal.h"
#include "run/lib_internal.h"

#define MAXLINKS 48

/*
 * "gdbserver-true max-packet=256 cpus=1": a case's parameters and
 * placement in words.
 */
static void label(const struct ipc_case *cs, char *buf, size_t len)
{
	char w[96];

	buf[0] = '\0';
	for (const struct ipc_param *p = cs->pat->params; p && p->key; p++) {
		if (!ipc_param_in_words(cs, p))
			continue;
		ipc_param_word(cs, p, w, sizeof(w));
		tab_appendf(buf, len, "%s%s%s%s", buf[0] ? " " : "", p->word,
			    p->word[0] ? "=" : "", w);
	}
	if (!buf[0])
		snprintf(buf, len, "?");
	tab_appendf(buf, len, "%s", ipc_place_word(&cs->place));
}

/* The head of the label column: the first parameter in words with one. */
static const char *label_head(const struct ipc_pattern_ops *pat)
{
	for (const struct ipc_param *p = pat->params; p && p->key; p++)
		if (p->word && p->head)
			return p->head;
	return "case";
}

static const char *link_name(const struct trow *t)
{
	return t->res.cs.link ? t->res.cs.link->name : "no link";
}

/* Do two rows belong to the same pivot row (label, transport, engine)? */
static bool same_row(const struct trow *a, const struct trow *b)
{
	char x[128], y[128];

	label(&a->res.cs, x, sizeof(x));
	label(&b->res.cs, y, sizeof(y));
	return !strcmp(x, y) && !strcmp(tab_tp_name(a), tab_tp_name(b)) &&
	       !strcmp(tab_eng_name(a), tab_eng_name(b));
}

static bool varies_tp(const struct trow *const *rows, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (strcmp(tab_tp_name(rows[i]), tab_tp_name(rows[0])))
			return true;
	return false;
}

/*
 * "replay: wall time of one replay, the median — 3 runs × 1 replay, over
 * tcp, peer in a separate process": the runs of the first case that
 * completed one, since the rows are the same kind of thing.
 */
static void heading(struct tab_out *out, const struct ipc_report_meta *meta,
		    const struct ipc_pattern_ops *pat,
		    const struct trow *const *rows, size_t n)
{
	const struct ipc_runopts *ro = meta ? meta->ro : NULL;
	const struct trow *ref = NULL;
	const char *eng = tab_one_engine(rows, n);
	char how[256] = "", title[256];
	struct ipc_runopts timed;

	for (size_t i = 0; i < n && !ref; i++)
		if (rows[i]->res.nruns)
			ref = rows[i];
	if (ref) {
		/* The runs done, by time or by count, even with --runs auto. */
		if (ro && ro->duration_ns) {
			timed = *ro;
			timed.runs_auto = false;
		}
		tab_appendf(how, sizeof(how), " — ");
		tab_how_many(how, sizeof(how),
			     ro && ro->duration_ns ? &timed : NULL,
			     ref->res.nruns, ref->run_iters, pat->sample,
			     pat->samples, 0);
	}
	if (ro && ro->warmup)
		tab_appendf(how, sizeof(how), " after %llu warm-up",
			    (unsigned long long)ro->warmup);
	if (!varies_tp(rows, n))
		tab_appendf(how, sizeof(how), ", over %s",
			    tab_tp_name(rows[0]));
	if (eng && strcmp(eng, "blocking"))
		tab_appendf(how, sizeof(how), ", engine %s", eng);
	if (ro) {
		tab_appendf(how, sizeof(how), ", ");
		tab_where_rows(how, sizeof(how), ro, rows, n);
	}
	tab_words(title, sizeof(title), pat->title ? pat->title : "", pat, rows,
		  n);
	tab_heading(out);
	tab_printf(out, "%s: %s%s\n", pat->name, title, how);
}

/* The pivot: cases down, links across. */
static int print_pivot(struct tab_out *out, const struct trow *const *rows,
		       size_t n)
{
	const char *links[MAXLINKS];
	size_t nl = 0, i, j, k, c0;
	bool tp = varies_tp(rows, n), eng = !tab_one_engine(rows, n);
	struct grid g = {0};
	bool *done = calloc(n ? n : 1, sizeof(*done));
	struct grid_line *l;
	char lab[128];
	int err;

	if (!done)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		for (k = 0; k < nl; k++)
			if (!strcmp(links[k], link_name(rows[i])))
				break;
		if (k == nl && nl < MAXLINKS)
			links[nl++] = link_name(rows[i]);
	}
	grid_col(&g, label_head(rows[0]->res.cs.pat), true);
	if (tp)
		grid_col(&g, "transport", true);
	if (eng)
		grid_col(&g, "engine", true);
	c0 = g.ncols;
	for (k = 0; k < nl; k++)
		grid_col(&g, links[k], false);
	grid_ids(&g);
	for (i = 0; i < n && !g.err; i++) {
		if (done[i] || !(l = grid_line(&g)))
			continue;
		label(&rows[i]->res.cs, lab, sizeof(lab));
		grid_set(&g, &l->cell[0], "%s", lab);
		if (tp)
			grid_set(&g, &l->cell[1], "%s", tab_tp_name(rows[i]));
		if (eng)
			grid_set(&g, &l->cell[1 + tp], "%s",
				 tab_eng_name(rows[i]));
		for (j = i; j < n; j++) {
			const struct ipc_result *r = &rows[j]->res;
			char **cell;

			if (done[j] || !same_row(rows[j], rows[i]))
				continue;
			done[j] = true;
			for (k = 0; k < nl; k++)
				if (!strcmp(links[k], link_name(rows[j])))
					break;
			if (k == nl || l->cell[c0 + k])
				continue;
			cell = &l->cell[c0 + k];
			if (!tab_measured(rows[j])) {
				grid_set(&g, cell, "error");
				continue;
			}
			tab_head_cell(&g, cell, r, false);
			if (r->status != IPC_STATUS_OK && *cell)
				grid_set(&g, cell, "%s*", *cell);
		}
		for (k = 0; k < nl; k++)
			if (!l->cell[c0 + k])
				grid_set(&g, &l->cell[c0 + k], "-");
	}
	if (!g.err)
		tab_grid(out, &g);
	err = g.err;
	grid_free(&g);
	free(done);
	return err;
}

/* One line per case: the parameters and figures behind each cell. */
static int print_details(struct tab_out *out, const struct trow *const *rows,
			 size_t n)
{
	const struct ipc_pattern_ops *pat = rows[0]->res.cs.pat;
	const struct ipc_param *p;
	bool tp = varies_tp(rows, n), eng = !tab_one_engine(rows, n);
	int pcol[GRID_MAXCOLS], ccol[GRID_MAXCOLS], link, tpc = -1, engc = -1;
	struct tab_tail tt;
	struct grid g = {0};
	char lab[128];
	size_t i, k;
	int err;

	tab_tail_init(&tt, pat, rows, n);
	grid_col(&g, label_head(pat), true);
	link = grid_col(&g, "link", true);
	if (tp)
		tpc = grid_col(&g, "transport", true);
	if (eng)
		engc = grid_col(&g, "engine", true);
	for (k = 0, p = pat->params; p && p->key; p++, k++)
		pcol[k] = p->head && !p->word
				  ? grid_col(&g, p->head, tab_param_left(p))
				  : -1;
	grid_ids(&g);
	tab_head_cols(&tt, &g);
	for (k = 0; pat->cols && pat->cols[k].head; k++)
		ccol[k] = (int)k == tt.hcol
				  ? -1
				  : grid_col(&g, pat->cols[k].head, false);
	tab_tail_cols(&tt, &g, false, false);
	for (i = 0; i < n; i++) {
		const struct ipc_result *r = &rows[i]->res;
		struct grid_line *l = grid_line(&g);

		if (!l)
			break;
		label(&r->cs, lab, sizeof(lab));
		grid_set(&g, &l->cell[0], "%s", lab);
		grid_set(&g, &l->cell[link], "%s", link_name(rows[i]));
		if (tpc >= 0)
			grid_set(&g, &l->cell[tpc], "%s", tab_tp_name(rows[i]));
		if (engc >= 0)
			grid_set(&g, &l->cell[engc], "%s",
				 tab_eng_name(rows[i]));
		tab_case_cells(&g, l, rows[i], pcol, pat->cols, ccol, &tt);
	}
	if (!g.err) {
		tab_grid(out, &g);
		tab_pooled_note(out, &tt, pat->cols, ccol,
				pat->sample ? pat->sample : "sample");
	}
	err = g.err;
	grid_free(&g);
	return err;
}

int table_pivot_print(struct tab_out *out, const struct ipc_report_meta *meta,
		      const struct trow *const *rows, size_t n)
{
	const struct ipc_pattern_ops *pat = rows[0]->res.cs.pat;
	bool partial = false;
	int err;

	heading(out, meta, pat, rows, n);
	err = print_pivot(out, rows, n);
	for (size_t i = 0; i < n; i++)
		partial |= rows[i]->res.status == IPC_STATUS_PARTIAL &&
			   tab_measured(rows[i]);
	if (!err && partial)
		tab_puts(out, "* partial: some runs failed, see below\n");
	if (!err) {
		tab_puts(out, "\n");
		if (pat->note)
			tab_printf(out, "%s\n", pat->note);
		tab_mismatch_notes(out, rows, n);
		err = print_details(out, rows, n);
	}
	return err;
}

/* SPDX-License-Identifier: MIT */
/*
 * A pattern's section of the human table: a heading that says what was
 * measured and how, one row per case with the pattern's parameters and
 * figures as its description lists them, then the notes: footnotes, what
 * the cost columns mean, why a case is flagged.
 */
#include <errno.h>
#include <string.h>

#include "table.h"

/* What a section shows when its pattern lists no columns of its own. */
static const struct ipc_column default_cols[] = {
	{.head = "p50", .src = IPC_SRC_P50, .fmt = IPC_FMT_NS},
	{.head = "p99", .src = IPC_SRC_P99, .fmt = IPC_FMT_NS},
	{.head = "msgs/s", .src = IPC_SRC_MSGS_PER_S, .fmt = IPC_FMT_RATE},
	{.head = "bandwidth", .src = IPC_SRC_BYTES_PER_S, .fmt = IPC_FMT_BPS},
	{0},
};

/*
 * "rr: request/response round trips — 3 runs × 10000 round trips after
 * 1000 warm-up, peer in a separate process", then the direction of a
 * stream that is not the client's sending, and the engine, link and
 * framing when every row shares one.
 */
static void heading(struct tab_out *out, const struct ipc_report_meta *meta,
		    const struct ipc_pattern_ops *pat,
		    const struct trow *const *rows, size_t n)
{
	const struct ipc_runopts *ro = meta ? meta->ro : NULL;
	const char *eng = tab_one_engine(rows, n),
		   *link = tab_one_link(rows, n);
	const struct ipc_case *cs = &rows[0]->res.cs;
	char how[256] = "", title[256];

	if (ro) {
		tab_appendf(how, sizeof(how), " — ");
		tab_how_many(how, sizeof(how), ro, ro->runs, ro->iterations,
			     pat->sample ? pat->sample : "iteration",
			     pat->samples ? pat->samples : "iterations",
			     meta->host && meta->host->ended_ns >
						     meta->host->started_ns
				     ? meta->host->ended_ns -
					       meta->host->started_ns
				     : 0);
		if (ro->warmup)
			tab_appendf(how, sizeof(how), " after %llu warm-up",
				    (unsigned long long)ro->warmup);
		tab_appendf(how, sizeof(how), ", ");
		tab_where_rows(how, sizeof(how), ro, rows, n);
	}
	tab_heading(out);
	if (pat->title) {
		tab_words(title, sizeof(title), pat->title, pat, rows, n);
		tab_printf(out, "%s: %s%s", pat->name, title, how);
	} else {
		tab_printf(out, "%s%s", pat->name, how);
	}
	/* One direction a command line: the first row's is every row's. */
	if (cs->direction == IPC_DIR_REVERSE)
		tab_puts(out, ", the peer sending (-R)");
	else if (cs->direction == IPC_DIR_BIDIR)
		tab_puts(out, ", both ways at once (--bidir)");
	if (eng && strcmp(eng, "blocking"))
		tab_printf(out, ", engine %s", eng);
	if (link && strcmp(link, "none"))
		tab_printf(out, ", link %s", link);
	if (cs->framing && cs->framing->encode)
		tab_printf(out, ", framing %s%s", cs->framing->name,
			   !cs->framing->acks  ? ""
			   : cs->framing_noack ? " without acks"
					       : " with acks");
	tab_puts(out, "\n");
}

int table_section_print(struct tab_out *out, const struct ipc_report_meta *meta,
			const struct trow *const *rows, size_t n, bool matrix)
{
	const struct ipc_pattern_ops *pat = rows[0]->res.cs.pat;
	const struct ipc_column *cols = pat->cols ? pat->cols : default_cols;
	const struct ipc_param *p;
	int pcol[GRID_MAXCOLS], ccol[GRID_MAXCOLS], tp, eng = -1, link = -1,
							cpus = -1;
	bool zero = false, loss = false;
	struct tab_tail tt;
	struct grid g = {0};
	size_t i, k;
	int err = 0;

	tab_tail_init(&tt, pat, rows, n);
	for (i = 0; i < n; i++) {
		zero |= tab_zero_on_stream(rows[i]);
		loss |= rows[i]->res.summary.loss.counted;
	}
	tp = grid_col(&g, "transport", true);
	if (!tab_one_engine(rows, n))
		eng = grid_col(&g, "engine", true);
	if (!tab_one_link(rows, n))
		link = grid_col(&g, "link", true);
	if (tab_any_placed(rows, n))
		cpus = grid_col(&g, "cpus", true);
	for (k = 0, p = pat->params; p && p->key; p++, k++)
		pcol[k] =
			p->head ? grid_col(&g, p->head, tab_param_left(p)) : -1;
	grid_ids(&g);
	tab_head_cols(&tt, &g);
	for (k = 0; cols[k].head; k++) {
		bool any =
			!(cols[k].flags & IPC_COL_IF_ANY) && (int)k != tt.hcol;

		for (i = 0; !any && (int)k != tt.hcol && i < n; i++)
			any = tab_col_has(&cols[k], &rows[i]->res);
		ccol[k] = any ? grid_col(&g, cols[k].head, false) : -1;
	}
	tab_tail_cols(&tt, &g, true, true);

	for (i = 0; i < n; i++) {
		struct grid_line *l = grid_line(&g);

		if (!l)
			break;
		grid_set(&g, &l->cell[tp], "%s", tab_tp_name(rows[i]));
		if (eng >= 0)
			grid_set(&g, &l->cell[eng], "%s",
				 tab_eng_name(rows[i]));
		if (link >= 0)
			grid_set(&g, &l->cell[link], "%s",
				 tab_link_name(rows[i]));
		if (cpus >= 0)
			tab_place_cell(&g, &l->cell[cpus],
				       &rows[i]->res.cs.place);
		tab_case_cells(&g, l, rows[i], pcol, cols, ccol, &tt);
	}
	if (!g.err) {
		heading(out, meta, pat, rows, n);
		err = matrix ? table_matrix_print(out, rows, n) : -ENOTSUP;
		matrix = err != -ENOTSUP;
		if (!matrix) {
			tab_grid(out, &g);
			tab_pooled_note(out, &tt, cols, ccol,
					pat->sample ? pat->sample : "sample");
			err = 0;
		}
		if (cpus >= 0)
			tab_place_note(out, rows, n);
		if (pat->note)
			tab_printf(out, "%s\n", pat->note);
		if (zero)
			tab_printf(out, "%s\n", tab_zero_note);
		if (loss && pat->loss_note)
			tab_printf(out, "note: %s\n", pat->loss_note);
		if (tt.cost && !matrix) /* a matrix has no cost columns */
			tab_cost_note(out, meta, &tt,
				      pat->cost_per ? pat->cost_per
						    : "message");
		tab_twin_notes(out, rows, n);
		tab_wake_note(out, rows, n);
		tab_flag_notes(out, rows, n, tt.flags);
		tab_mismatch_notes(out, rows, n);
	}
	if (!err)
		err = g.err;
	grid_free(&g);
	return err;
}

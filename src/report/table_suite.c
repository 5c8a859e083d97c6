/* SPDX-License-Identifier: MIT */
/*
 * The quick suite's table: one row per transport (and engine) with each
 * suite pattern's columns side by side, the skips and failures in a notes
 * column, under a heading that says what each pattern measured there.
 * Which patterns take part, with which columns and words, is in their
 * descriptions (ipc_pattern_ops.suite).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

#define MAXPAT 8 /* suite patterns */

/* One row: a transport (and engine) and its notes. */
struct srow {
	char tp[64];
	const char *eng;	       /* NULL for a row made by a skip */
	const struct ipc_place *pl;    /* likewise */
	const struct trow *by[MAXPAT]; /* each pattern's first result */
	char *notes; /* "rr failed: ...; stream skipped: ..." */
};

struct suite {
	const struct ipc_pattern_ops *pat[MAXPAT]; /* registry order */
	size_t npat;
	struct srow *rows;
	size_t n, cap;
	double half_level; /* of the intervals printed as ±, 0: none was */
	int err;
};

/* Which suite pattern @p is, or -1. */
static int pat_index(const struct suite *s, const struct ipc_pattern_ops *p)
{
	for (size_t i = 0; i < s->npat; i++)
		if (s->pat[i] == p)
			return (int)i;
	return -1;
}

/* Do placements @a and @b (NULL: a skip's row, any) share a row? */
static bool same_place(const struct ipc_place *a, const struct ipc_place *b)
{
	return !a || !b || a->cpus == b->cpus;
}

/* The row of @tp, @eng and @pl (NULL for a skip: the first of @tp). */
static struct srow *suite_row(struct suite *s, const char *tp, const char *eng,
			      const struct ipc_place *pl)
{
	struct srow *r;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->rows[i].tp, tp) &&
		    (!eng || !s->rows[i].eng || !strcmp(s->rows[i].eng, eng)) &&
		    same_place(pl, s->rows[i].pl)) {
			if (!s->rows[i].eng)
				s->rows[i].eng = eng;
			if (!s->rows[i].pl)
				s->rows[i].pl = pl;
			return &s->rows[i];
		}
	if (tab_grow((void **)&s->rows, &s->cap, s->n, sizeof(*r))) {
		s->err = -ENOMEM;
		return NULL;
	}
	r = &s->rows[s->n++];
	memset(r, 0, sizeof(*r));
	snprintf(r->tp, sizeof(r->tp), "%s", tp);
	r->eng = eng;
	r->pl = pl;
	return r;
}

__attribute__((format(printf, 3, 4))) static void
add_note(struct suite *s, struct srow *r, const char *fmt, ...)
{
	va_list ap;
	char *note, *all;

	va_start(ap, fmt);
	if (vasprintf(&note, fmt, ap) < 0) {
		va_end(ap);
		s->err = -ENOMEM;
		return;
	}
	va_end(ap);
	if (!r->notes) {
		r->notes = note;
		return;
	}
	if (asprintf(&all, "%s; %s", r->notes, note) < 0) {
		s->err = -ENOMEM;
		free(note);
		return;
	}
	free(note);
	free(r->notes);
	r->notes = all;
}

static void note_status(struct suite *s, struct srow *r, const struct trow *t)
{
	const struct ipc_result *res = &t->res;

	if (res->status == IPC_STATUS_OK)
		return;
	add_note(s, r, "%s %s: %s", tab_pat_name(t),
		 res->status == IPC_STATUS_PARTIAL ? "partial" : "failed",
		 res->error[0] ? res->error : "unknown error");
}

/*
 * "rr unstable, bimodal": a measured test's flags in the row's notes,
 * "unstable (out-of-reach)" for a case that stopped so, whose hint
 * differs.
 */
static void note_flags(struct suite *s, struct srow *r, const struct trow *t)
{
	/* No why line under the suite: the stop that changes a hint, here. */
	bool reach = t->res.diag.stop == IPC_STOP_OUT_OF_REACH;
	char names[128] = "";
	size_t n = 0;
	int k;

	if (!tab_measured(t) || !t->res.diag.flags)
		return;
	for (k = 0; k < IPC_FLAG_COUNT && n < sizeof(names); k++)
		if (t->res.diag.flags & (1u << k))
			n += (size_t)snprintf(names + n, sizeof(names) - n,
					      "%s%s%s", n ? ", " : "",
					      ipc_flag_name(k),
					      k == IPC_FLAG_UNSTABLE && reach
						      ? " (out-of-reach)"
						      : "");
	add_note(s, r, "%s %s", tab_pat_name(t), names);
}

/*
 * The transport a skip is about, from its words: "transport tcp6", "epoll
 * on fifo", or a case ("stream udp size=64K").  On success @label says
 * what was skipped ("skipped", "epoll skipped", "stream skipped").
 * Returns false for skips of no one transport ("engine io_uring").
 */
static bool skip_transport(const char *what, char *tp, size_t tplen,
			   char *label, size_t labellen)
{
	const char *w[3];
	int n[3], i;

	for (i = 0; i < 3; i++) {
		what += strspn(what, " ");
		w[i] = what;
		n[i] = (int)strcspn(what, " ");
		what += n[i];
	}
	if (!n[0] || !n[1])
		return false;
	if (n[0] == 6 && !strncmp(w[0], "engine", 6))
		return false;
	if (n[0] == 9 && !strncmp(w[0], "transport", 9)) {
		snprintf(label, labellen, "skipped");
		snprintf(tp, tplen, "%.*s", n[1], w[1]);
		return true;
	}
	snprintf(label, labellen, "%.*s skipped", n[0], w[0]);
	if (n[1] == 2 && !strncmp(w[1], "on", 2)) {
		if (!n[2])
			return false;
		snprintf(tp, tplen, "%.*s", n[2], w[2]);
	} else {
		snprintf(tp, tplen, "%.*s", n[1], w[1]);
	}
	return true;
}

/*
 * The first result of suite pattern @k that completed a run (it says how
 * many runs of how many samples), else the first at all.
 */
static const struct trow *suite_ref(const struct suite *s, size_t k)
{
	const struct trow *any = NULL, *t;

	for (size_t i = 0; i < s->n; i++) {
		t = s->rows[i].by[k];
		if (t && t->res.nruns)
			return t;
		if (t && !any)
			any = t;
	}
	return any;
}

/*
 * The suite's heading: where the peer ran, then one line per pattern
 * saying what it measures and how many runs of how many samples (or of
 * how long) it took.  Those come from the results, because each suite
 * pattern sizes its runs its own way (rr 10 ms, stream 20 ms).
 */
static void suite_heading(struct tab_out *out,
			  const struct ipc_report_meta *meta,
			  const struct suite *s, const char *eng)
{
	const struct ipc_runopts *ro = meta ? meta->ro : NULL;
	char buf[256], words[256];
	int w = 0;

	buf[0] = '\0';
	if (ro) {
		tab_appendf(buf, sizeof(buf), " — ");
		tab_where(buf, sizeof(buf), ro, NULL);
	}
	if (eng && strcmp(eng, "blocking"))
		tab_appendf(buf, sizeof(buf), ", engine %s", eng);
	tab_heading(out);
	tab_printf(out, "quick suite%s\n", buf);
	for (size_t k = 0; k < s->npat; k++)
		if ((int)strlen(s->pat[k]->name) > w)
			w = (int)strlen(s->pat[k]->name);
	for (size_t k = 0; k < s->npat; k++) {
		const struct ipc_pattern_ops *p = s->pat[k];
		const struct trow *ref = suite_ref(s, k);

		if (!ref)
			continue;
		buf[0] = '\0';
		if (ref->res.nruns) {
			struct ipc_runopts rro;

			if (ro) {
				rro = *ro;
				rro.duration_ns = ref->res.ro.duration_ns;
			}
			tab_appendf(buf, sizeof(buf), " — ");
			tab_how_many(buf, sizeof(buf), ro ? &rro : NULL,
				     ref->res.nruns, ref->run_iters, p->sample,
				     p->samples, 0);
		}
		/* "1 B request, 1 B response" says less as "1 B each way". */
		if (tab_words(words, sizeof(words), p->suite->words, p, &ref,
			      1) &&
		    p->suite->words_same)
			tab_words(words, sizeof(words), p->suite->words_same, p,
				  &ref, 1);
		tab_printf(out, "  %s:%*s %s%s\n", p->name,
			   w - (int)strlen(p->name), "", words, buf);
	}
}

/*
 * Does @col show @res's metric?  Then the cell is the headline, the
 * median of the runs' values with its interval, instead of the pooled one.
 */
static bool is_headline(const struct ipc_column *col,
			const struct ipc_result *res)
{
	return !col->per_off && col->src == ipc_result_metric(res)->src;
}

/*
 * Which columns hold a headline and which pooled figures: "rr p50, stream
 * bandwidth: the median over the runs ...; pooled over all runs: ...".
 * The ± is explained only when some row printed one (a case needs 6 runs
 * at 95% for an interval).
 */
static void suite_legend(struct tab_out *out, const struct suite *s)
{
	const struct ipc_column *col;
	bool first = true;

	for (size_t k = 0; k < s->npat; k++)
		for (col = s->pat[k]->suite->cols; col->head; col++)
			if (!col->per_off && s->pat[k]->metric &&
			    col->src == s->pat[k]->metric->src) {
				tab_printf(out, "%s%s", first ? "" : ", ",
					   col->head);
				first = false;
			}
	if (first)
		return;
	tab_printf(out, ": the median over the runs of each run's figure");
	if (s->half_level > 0)
		tab_printf(out, ", ± the half-width of its %g%% interval",
			   s->half_level * 100);
	first = true;
	for (size_t k = 0; k < s->npat; k++)
		for (col = s->pat[k]->suite->cols; col->head; col++)
			if (col->per_off || !s->pat[k]->metric ||
			    col->src != s->pat[k]->metric->src) {
				tab_printf(out, "%s%s",
					   first ? "; pooled over all runs: "
						 : ", ",
					   col->head);
				first = false;
			}
	tab_printf(out, "\n");
}

/* A row's headline printed its half-width (@printed): remember the level. */
static void note_half(struct suite *s, bool printed,
		      const struct ipc_result *res)
{
	struct ipc_headline h;

	if (!printed || s->half_level > 0)
		return;
	ipc_result_headline(res, &h);
	s->half_level = h.level;
}

static void suite_line(struct grid *g, struct suite *s, const struct srow *r,
		       bool multi, bool placed)
{
	struct grid_line *l = grid_line(g);
	const struct ipc_place any = {.cpus = IPC_CPUS_ANY};
	size_t c = 0;

	if (!l)
		return;
	grid_set(g, &l->cell[c++], "%s", r->tp);
	if (multi)
		grid_set(g, &l->cell[c++], "%s", r->eng ? r->eng : "-");
	if (placed && r->pl)
		tab_place_cell(g, &l->cell[c++], r->pl);
	else if (placed)
		tab_place_cell(g, &l->cell[c++], &any);
	for (size_t k = 0; k < s->npat; k++) {
		const struct trow *t = r->by[k];

		for (const struct ipc_column *col = s->pat[k]->suite->cols;
		     col->head; col++, c++) {
			if (!t || !tab_measured(t))
				grid_set(g, &l->cell[c], "-");
			else if (is_headline(col, &t->res))
				note_half(s,
					  tab_head_cell(g, &l->cell[c], &t->res,
							true),
					  &t->res);
			else
				tab_col_cell(g, &l->cell[c], col, &t->res);
		}
	}
	grid_set(g, &l->cell[c], "%s", r->notes ? r->notes : "");
}

/* Gather the suite's rows from the results and skips of @t. */
static void gather(struct suite *s, const struct tab *t,
		   const struct trow **rest, size_t *nrest, bool *multi,
		   bool *zero, unsigned *flags, const char **eng0)
{
	char tp[64], label[64];
	size_t i;

	for (i = 0; i < t->nrows && !s->err; i++) {
		const struct trow *tr = &t->rows[i];
		int k = pat_index(s, tr->res.cs.pat);
		struct srow *r;

		if (k < 0) {
			rest[(*nrest)++] = tr;
			continue;
		}
		if (!*eng0)
			*eng0 = tab_eng_name(tr);
		*multi |= !!strcmp(*eng0, tab_eng_name(tr));
		r = suite_row(s, tab_tp_name(tr), tab_eng_name(tr),
			      &tr->res.cs.place);
		if (!r)
			break;
		if (!r->by[k])
			r->by[k] = tr;
		note_status(s, r, tr);
		note_flags(s, r, tr);
		if (tab_measured(tr))
			*flags |= tr->res.diag.flags;
		*zero |= tab_zero_on_stream(tr);
	}
	for (i = 0; i < t->nskips && !s->err; i++) {
		const struct ipc_skip *sk = &t->skips[i];
		struct srow *r;

		if (!skip_transport(sk->what, tp, sizeof(tp), label,
				    sizeof(label)))
			continue;
		r = suite_row(s, tp, NULL, NULL);
		if (!r)
			break;
		add_note(s, r, "%s: %s", label, sk->why);
	}
}

int table_suite_print(struct tab_out *out, const struct ipc_report_meta *meta,
		      const struct tab *t, const struct trow **rest,
		      size_t *nrest, bool *printed)
{
	struct suite s = {0};
	struct grid g = {0};
	char tp[64], label[64];
	bool multi = false, zero = false, placed = false;
	unsigned flags = 0;
	const char *eng0 = NULL;
	const struct trow **measured = NULL;
	size_t i, n;
	int err;

	*nrest = 0;
	for (i = 0; ipc_patterns[i] && s.npat < MAXPAT; i++)
		if (ipc_patterns[i]->suite)
			s.pat[s.npat++] = ipc_patterns[i];
	gather(&s, t, rest, nrest, &multi, &zero, &flags, &eng0);

	for (i = 0; i < t->nrows; i++)
		placed |= t->rows[i].res.cs.place.cpus != IPC_CPUS_ANY &&
			  pat_index(&s, t->rows[i].res.cs.pat) >= 0;
	grid_col(&g, "transport", true);
	if (multi)
		grid_col(&g, "engine", true);
	if (placed)
		grid_col(&g, "cpus", true);
	for (size_t k = 0; k < s.npat; k++)
		for (const struct ipc_column *c = s.pat[k]->suite->cols;
		     c->head; c++)
			grid_col(&g, c->head, false);
	grid_col(&g, "notes", true);
	grid_ids(&g);
	for (i = 0; i < s.n; i++)
		suite_line(&g, &s, &s.rows[i], multi, placed);

	err = s.err ? s.err : g.err;
	*printed = false;
	if (!err && s.n) {
		suite_heading(out, meta, &s, multi ? NULL : eng0);
		tab_grid(out, &g);
		suite_legend(out, &s);
		measured = calloc(t->nrows + 1, sizeof(*measured));
		if (!measured)
			err = -ENOMEM;
		for (i = 0; measured && i < t->nrows; i++)
			measured[i] = &t->rows[i];
		if (measured && placed && t->nrows)
			tab_place_note(out, measured, t->nrows);
		if (zero)
			tab_printf(out, "%s\n", tab_zero_note);
		/* The suite's own rows: the rest have their own tables. */
		for (i = 0, n = 0; measured && i < t->nrows; i++)
			if (pat_index(&s, t->rows[i].res.cs.pat) >= 0)
				measured[n++] = &t->rows[i];
		if (measured) {
			tab_wake_note(out, measured, n);
			tab_flag_hints(out, measured, n, flags, true);
		}
		free(measured);
		*printed = true;
	}
	for (i = 0; i < t->nskips && !err; i++) {
		if (skip_transport(t->skips[i].what, tp, sizeof(tp), label,
				   sizeof(label)))
			continue;
		tab_printf(out, "skipped: %s: %s\n", t->skips[i].what,
			   t->skips[i].why);
		*printed = true;
	}
	for (i = 0; i < s.n; i++)
		free(s.rows[i].notes);
	free(s.rows);
	grid_free(&g);
	return err;
}

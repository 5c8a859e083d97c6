/* SPDX-License-Identifier: MIT */
/*
 * The columns every table ends with, and what is written under a table:
 * the runs, their spread and the interval of the metric (its half-width
 * from the diagnosis), the CPU cost of both sides, the flags and the
 * status; a case that measured nothing says why across its line; the
 * cost columns' meaning and the flags' reasons and hints below.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "doc/figures.h"
#include "table.h"
#include "doc/lib_internal.h"
#include "run/lib_internal.h"

/*
 * The pattern's column that shows its metric pooled (rr's "p50", stream's
 * "bandwidth"): the headline takes its place and its name.  -1: none.
 */
static int metric_col(const struct ipc_pattern_ops *pat)
{
	for (int k = 0; pat && pat->metric && pat->cols && pat->cols[k].head;
	     k++)
		if (pat->cols[k].src == pat->metric->src &&
		    !pat->cols[k].per_off)
			return k;
	return -1;
}

void tab_tail_init(struct tab_tail *tt, const struct ipc_pattern_ops *pat,
		   const struct trow *const *rows, size_t n)
{
	const char *u = pat && pat->cost_abbr ? pat->cost_abbr : "msg";
	bool mixed = false;

	memset(tt, 0, sizeof(*tt));
	tt->hcol = metric_col(pat);
	for (size_t i = 0; i < n; i++) {
		const struct ipc_result *r = &rows[i]->res;

		if (!tab_measured(rows[i]))
			continue;
		/* Size 0 is judged by messages/s where others by bytes/s. */
		mixed |= pat && ipc_result_metric(r) != pat->metric;
		tt->flags |= r->diag.flags;
		tt->cost |= r->diag.client.valid && r->diag.server.valid;
		tt->cycles |= r->diag.client.cycles >= 0 &&
			      r->diag.server.cycles >= 0;
		/* The column is named after the first interval's level. */
		if (!tt->ci && r->metric.have_ci && r->nruns >= 2) {
			tt->ci = true;
			snprintf(tt->ci_head, sizeof(tt->ci_head), "%.0f%% CI",
				 isfinite(r->metric.ci_level)
					 ? r->metric.ci_level * 100
					 : 0.0);
		}
	}
	if (tt->hcol >= 0 && !mixed)
		snprintf(tt->head, sizeof(tt->head), "%s",
			 pat->cols[tt->hcol].head);
	else
		snprintf(tt->head, sizeof(tt->head), "%s",
			 pat && pat->metric ? pat->metric->word : "metric");
	/* "cpu/rt": per round trip, per message, per chunk. */
	snprintf(tt->cpu_head, sizeof(tt->cpu_head), "cpu/%s", u);
	snprintf(tt->csw_head, sizeof(tt->csw_head), "csw/%s", u);
	snprintf(tt->cyc_head, sizeof(tt->cyc_head), "cycles/%s", u);
	snprintf(tt->ins_head, sizeof(tt->ins_head), "instr/%s", u);
	for (size_t k = 0; k < sizeof(tt->col) / sizeof(tt->col[0]); k++)
		tt->col[k] = -1;
}

enum {
	T_HEAD,
	T_CI,
	T_RUNS,
	T_CV,
	T_CPU,
	T_CSW,
	T_CYC,
	T_INS,
	T_FLAGS,
	T_STATUS
};

void tab_head_cols(struct tab_tail *tt, struct grid *g)
{
	tt->col[T_HEAD] = grid_col(g, tt->head, false);
	if (tt->ci)
		tt->col[T_CI] = grid_col(g, tt->ci_head, false);
}

void tab_tail_cols(struct tab_tail *tt, struct grid *g, bool cost_cols,
		   bool flags_col)
{
	tt->col[T_RUNS] = grid_col(g, "runs", false);
	tt->col[T_CV] = grid_col(g, "cv", false);
	if (cost_cols && tt->cost) {
		tt->col[T_CPU] = grid_col(g, tt->cpu_head, false);
		tt->col[T_CSW] = grid_col(g, tt->csw_head, false);
		if (tt->cycles) {
			tt->col[T_CYC] = grid_col(g, tt->cyc_head, false);
			tt->col[T_INS] = grid_col(g, tt->ins_head, false);
		}
	}
	if (flags_col && tt->flags)
		tt->col[T_FLAGS] = grid_col(g, "flags", true);
	tt->col[T_STATUS] = grid_col(g, "status", true);
}

/* The cell of tail column @k of line @l, or NULL when not shown. */
static char **tcell(const struct tab_tail *tt, struct grid_line *l, int k)
{
	return tt->col[k] >= 0 ? &l->cell[tt->col[k]] : NULL;
}

/* A count people can read at a glance: 812, 12.1k, 3.40M. */
static void count_word(double v, char *buf, size_t len)
{
	if (v < 999.5)
		snprintf(buf, len, "%.0f", v);
	else if (v < 999500)
		snprintf(buf, len, "%.3gk", v / 1e3);
	else
		snprintf(buf, len, "%.3gM", v / 1e6);
}

/* "12.1k+11.8k", or "-" when a side did not count it. */
static void cell_counts(struct grid *g, char **dst, double a, double b)
{
	char x[24], y[24];

	if (a < 0 || b < 0) {
		grid_set(g, dst, "-");
		return;
	}
	count_word(a, x, sizeof(x));
	count_word(b, y, sizeof(y));
	grid_set(g, dst, "%s+%s", x, y);
}

typedef char *(*fmt_fn)(double v, char *buf, size_t len);

/*
 * "4.80–5.02 µs" when both ends share a unit, else "980 ns–1.02 µs"; "a+b"
 * likewise with @sep "+".  The unit is what follows the last space.
 */
static void pair(struct grid *g, char **dst, fmt_fn fmt, double lo, double hi,
		 const char *sep)
{
	char a[32], b[32];
	const char *ua, *ub;

	fmt(lo, a, sizeof(a));
	fmt(hi, b, sizeof(b));
	ua = strrchr(a, ' ');
	ub = strrchr(b, ' ');
	if (ua && ub && !strcmp(ua, ub))
		grid_set(g, dst, "%.*s%s%s", (int)(ua - a), a, sep, b);
	else
		grid_set(g, dst, "%s%s%s", a, sep, b);
}

/* "2.10+1.95 µs": client + server CPU (user + system) per message. */
static void cost_cells(const struct tab_tail *tt, struct grid *g,
		       struct grid_line *l, const struct ipc_diag *d)
{
	const struct ipc_cost *cl = &d->client, *sv = &d->server;

	if (!cl->valid || !sv->valid) {
		grid_set(g, tcell(tt, l, T_CPU), "-");
		grid_set(g, tcell(tt, l, T_CSW), "-");
		grid_set(g, tcell(tt, l, T_CYC), "-");
		grid_set(g, tcell(tt, l, T_INS), "-");
		return;
	}
	if (tt->col[T_CPU] >= 0)
		pair(g, tcell(tt, l, T_CPU), ipc_fmt_ns, ipc_cost_cpu_ns(cl),
		     ipc_cost_cpu_ns(sv), "+");
	grid_set(g, tcell(tt, l, T_CSW), "%.2g+%.2g", ipc_cost_csw(cl),
		 ipc_cost_csw(sv));
	if (tt->col[T_CYC] >= 0) {
		cell_counts(g, tcell(tt, l, T_CYC), cl->cycles, sv->cycles);
		cell_counts(g, tcell(tt, l, T_INS), cl->instructions,
			    sv->instructions);
	}
}

/* A figure in the unit of metric @m, as a cell's text. */
static fmt_fn metric_fmt(const struct ipc_metric *m)
{
	return m->fmt == IPC_FMT_RATE  ? ipc_fmt_rate
	       : m->fmt == IPC_FMT_BPS ? ipc_fmt_bps
				       : ipc_fmt_ns;
}

/* "±2.3%", "±0.84%", "±12%": a half-width in percent of the estimate. */
static void half_text(double half, char *buf, size_t len)
{
	snprintf(buf, len, "±%.*f%%", half < 10 ? 2 - (half >= 1) : 0, half);
}

bool tab_head_cell(struct grid *g, char **cell, const struct ipc_result *res,
		   bool half)
{
	struct ipc_headline h;
	char v[32], pm[24];

	if (!cell)
		return false;
	ipc_result_headline(res, &h);
	if (!h.valid) {
		grid_set(g, cell, "-");
		return false;
	}
	metric_fmt(h.metric)(h.value, v, sizeof(v));
	if (half && h.have_ci && h.half_pct >= 0) {
		half_text(h.half_pct, pm, sizeof(pm));
		grid_set(g, cell, "%s %s", v, pm);
		return true;
	}
	grid_set(g, cell, "%s", v);
	return false;
}

/* The interval of the headline with its half-width: "4.80–5.02 µs ±2.3%". */
static void ci_cell(struct grid *g, char **cell, const struct trow *t)
{
	struct ipc_headline h;
	char pm[24];

	if (!cell)
		return;
	ipc_result_headline(&t->res, &h);
	if (!h.have_ci) {
		grid_set(g, cell, "-");
		return;
	}
	pair(g, cell, metric_fmt(h.metric), h.low, h.high, "–");
	if (h.half_pct >= 0 && *cell) {
		half_text(h.half_pct, pm, sizeof(pm));
		grid_set(g, cell, "%s %s", *cell, pm);
	}
}

void tab_pooled_note(struct tab_out *out, const struct tab_tail *tt,
		     const struct ipc_column *cols, const int *ccol,
		     const char *samples)
{
	bool first = true;

	tab_printf(out, "%s%s%s: the median over the runs of each run's %s",
		   tt->head, tt->ci ? " and its " : "",
		   tt->ci ? tt->ci_head : "", tt->head);
	for (size_t k = 0; cols && cols[k].head; k++) {
		if (ccol[k] < 0 || (int)k == tt->hcol)
			continue;
		if (first)
			tab_printf(out,
				   "; pooled over every %s of all runs: %s",
				   samples, cols[k].head);
		else
			tab_printf(out, ", %s", cols[k].head);
		first = false;
	}
	tab_printf(out, "\n");
}

void tab_tail_cells(const struct tab_tail *tt, struct grid *g,
		    struct grid_line *l, const struct trow *t)
{
	const struct ipc_result *r = &t->res;
	char **flags = tcell(tt, l, T_FLAGS);
	size_t n = 0;

	tab_head_cell(g, tcell(tt, l, T_HEAD), r, false);
	ci_cell(g, tcell(tt, l, T_CI), t);
	grid_set(g, tcell(tt, l, T_RUNS), "%zu", r->nruns);
	if (r->nruns >= 2 && isfinite(r->metric.cv) && r->metric.cv >= 0)
		grid_set(g, tcell(tt, l, T_CV), "%.1f%%", r->metric.cv * 100);
	else
		grid_set(g, tcell(tt, l, T_CV), "-");
	cost_cells(tt, g, l, &r->diag);
	grid_set(g, flags, "%s", "");
	for (int k = 0; flags && k < IPC_FLAG_COUNT; k++) {
		if (!(r->diag.flags & (1u << k)) || !*flags)
			continue;
		grid_set(g, flags, "%s%s%s", *flags, n ? "," : "",
			 ipc_flag_name(k));
		n++;
	}
	if (r->status == IPC_STATUS_OK)
		grid_set(g, tcell(tt, l, T_STATUS), "ok");
	else
		grid_set(g, tcell(tt, l, T_STATUS), "%s: %s",
			 r->status == IPC_STATUS_PARTIAL ? "partial" : "error",
			 r->error[0] ? r->error : "unknown error");
}

void tab_case_cells(struct grid *g, struct grid_line *l, const struct trow *t,
		    const int *pcol, const struct ipc_column *cols,
		    const int *ccol, const struct tab_tail *tt)
{
	const struct ipc_result *r = &t->res;
	size_t k = 0;

	for (const struct ipc_param *p = r->cs.pat->params; p && p->key;
	     p++, k++)
		if (pcol[k] >= 0)
			tab_param_cell(g, &l->cell[pcol[k]], &r->cs, p);
	if (!tab_measured(t)) {
		tab_span_failed(g, l, t);
		return;
	}
	for (k = 0; cols && cols[k].head; k++)
		if (ccol[k] >= 0 && (int)k != tt->hcol)
			tab_col_cell(g, &l->cell[ccol[k]], &cols[k], r);
	tab_tail_cells(tt, g, l, t);
}

void tab_span_failed(struct grid *g, struct grid_line *l, const struct trow *t)
{
	const struct ipc_result *r = &t->res;

	if (r->status == IPC_STATUS_OK)
		grid_set(g, &l->span, "nothing was measured");
	else
		grid_set(g, &l->span, "%s: %s",
			 r->status == IPC_STATUS_PARTIAL ? "partial" : "error",
			 r->error[0] ? r->error : "unknown error");
}

void tab_cost_note(struct tab_out *out, const struct ipc_report_meta *meta,
		   const struct tab_tail *tt, const char *unit)
{
	const struct ipc_host *h = meta ? meta->host : NULL;
	bool asked = meta && meta->ro && meta->ro->perf;

	tab_printf(out,
		   "%s: CPU time (user + system) per %s, client+server; "
		   "%s: their context switches",
		   tt->cpu_head, unit, tt->csw_head);
	if (tt->cycles)
		tab_printf(out, "; %s, %s: perf counts", tt->cyc_head,
			   tt->ins_head);
	else if (!asked)
		tab_printf(out, "; --perf adds cycles and instructions");
	tab_puts(out, "\n");
	if (!tt->cycles && asked)
		tab_printf(out, "%s\n",
			   h && h->perf[0]
				   ? h->perf
				   : "cycles and instructions: not counted");
}

void tab_mismatch_notes(struct tab_out *out, const struct trow *const *rows,
			size_t n)
{
	char what[128];

	for (size_t i = 0; i < n; i++)
		if (rows[i]->res.mismatch[0])
			tab_printf(out, "%s: first mismatch: %s\n",
				   ipc_case_describe(&rows[i]->res.cs, what,
						     sizeof(what)),
				   rows[i]->res.mismatch);
	for (size_t i = 0; i < n; i++)
		if (rows[i]->res.session[0])
			tab_printf(out, "%s: %s\n",
				   ipc_case_describe(&rows[i]->res.cs, what,
						     sizeof(what)),
				   rows[i]->res.session);
}

/* At most this many "case: flag: why" lines under a table. */
#define MAX_WHY_LINES 12

void tab_flag_notes(struct tab_out *out, const struct trow *const *rows,
		    size_t n, unsigned flags)
{
	char what[128], why[IPC_WHY_MAX];
	size_t i, lines = 0, more = 0;
	int k;

	if (!flags)
		return;
	for (i = 0; i < n; i++) {
		if (!tab_measured(rows[i]))
			continue;
		for (k = 0; k < IPC_FLAG_COUNT; k++) {
			if (!(rows[i]->res.diag.flags & (1u << k)))
				continue;
			if (lines++ >= MAX_WHY_LINES) {
				more++;
				continue;
			}
			tab_printf(out, "%s: %s: %s\n",
				   ipc_case_describe(&rows[i]->res.cs, what,
						     sizeof(what)),
				   ipc_flag_name(k),
				   ipc_flag_why(&rows[i]->res, k, why,
						sizeof(why)));
		}
	}
	if (more)
		tab_printf(out, "... and %zu more (-f json has them all)\n",
			   more);
	tab_flag_hints(out, rows, n, flags, false);
}

void tab_flag_hints(struct tab_out *out, const struct trow *const *rows,
		    size_t n, unsigned flags, bool suite)
{
	unsigned used, id, kinds;
	const char *hint, *label;
	size_t i;
	int k;

	for (k = 0; k < IPC_FLAG_COUNT; k++) {
		if (!(flags & (1u << k)))
			continue;
		used = 0;
		for (i = 0; i < n; i++)
			if (tab_measured(rows[i]) &&
			    (rows[i]->res.diag.flags & (1u << k)))
				used |= 1u << ipc_flag_hint_id(&rows[i]->res, k,
							       suite);
		if (!used)
			used = 1; /* flags said so: the general hint */
		kinds = (unsigned)__builtin_popcount(used);
		for (id = 0; id < IPC_FLAG_HINT_IDS; id++) {
			if (!(used & (1u << id)))
				continue;
			hint = ipc_flag_hint_text(k, id, &label);
			if (!hint)
				hint = ipc_flag_hint(k);
			if (kinds > 1 && label[0])
				tab_printf(out, "hint for %s (%s): %s\n",
					   ipc_flag_name(k), label, hint);
			else
				tab_printf(out, "hint for %s: %s\n",
					   ipc_flag_name(k), hint);
		}
	}
}

void tab_wake_note(struct tab_out *out, const struct trow *const *rows,
		   size_t n)
{
	char what[128], cases[256] = "";
	struct ipc_wake_tally w = {0};

	for (size_t i = 0; i < n; i++) {
		if (!tab_measured(rows[i]) ||
		    !ipc_wake_tally_add(&w, &rows[i]->res) || w.cases > 3)
			continue;
		tab_appendf(cases, sizeof(cases), "%s%s",
			    w.cases > 1 ? ", " : "",
			    ipc_case_describe(&rows[i]->res.cs, what,
					      sizeof(what)));
	}
	if (!w.cases)
		return;
	if (w.cases > 3)
		tab_appendf(cases, sizeof(cases), " and %zu more", w.cases - 3);
	tab_printf(out,
		   "note: %s: a side blocked up to %.2f times a round trip, "
		   "not once: the kernel wakes a blocking unix stream reader "
		   "before its data (unix_write_space), which slows runs at "
		   "random; -e poll measures the socket without it "
		   "(docs/methodology.md, \"unix stream rr on two CPUs\")\n",
		   cases, w.most);
}

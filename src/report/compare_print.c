/* SPDX-License-Identifier: MIT */
/*
 * A comparison printed for people, through the report layer's one grid
 * (its JSON document is the document layer's: doc/compare_json.c).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "doc/compare.h"
#include "doc/figures.h"
#include "grid.h"
#include "table.h"
#include "doc/lib_internal.h"
#include "pattern/lib_internal.h"
#include "run/lib_internal.h"

/* "the command of the document, when it started, its host", for a heading. */
static void about(const struct ipc_doc *d, char *buf, size_t len)
{
	const struct ipc_host *h = d->meta.host;
	const char *cmd = d->meta.command;
	const char *start = h && h->started[0] ? h->started : NULL;
	const char *name = h && h->hostname[0] ? h->hostname : NULL;

	snprintf(buf, len, "%s%s%s%s%s", cmd ? cmd : "?", start ? ", " : "",
		 start ? start : "", name ? ", host " : "", name ? name : "");
}

/* A value of @p's metric for people. */
static char *fmt_val(const struct cpair *p, double v, char *buf, size_t len)
{
	return ipc_fmt_value(p->metric->fmt, v, buf, len);
}

/*
 * "A: a.json (rr, 2024-..., host h)", or with several files "A: 5 files:
 * a1.json a2.json ... (the first: rr, ...)".
 */
static void side_heading(struct tab_out *out, const char *lead,
			 const struct cside *s)
{
	char buf[256];

	about(s->docs[0], buf, sizeof(buf));
	if (s->ndocs == 1) {
		tab_printf(out, "%s%s (%s)\n", lead, s->docs[0]->path, buf);
		return;
	}
	tab_printf(out, "%s%zu files:", lead, s->ndocs);
	for (size_t d = 0; d < s->ndocs; d++)
		tab_printf(out, " %s", s->docs[d]->path);
	tab_printf(out, " (the first: %s)\n", buf);
}

/* The same with its sign: "+1.20 µs", "-310 ns". */
static char *signed_val(const struct cpair *p, double v, char *buf, size_t len)
{
	char x[24];

	fmt_val(p, fabs(v), x, sizeof(x));
	snprintf(buf, len, "%s%s", v < 0 ? "-" : "+", x);
	return buf;
}

static void heading(struct tab_out *out, const struct ipc_comparison *c)
{
	const struct cpair *p0 = &c->pairs[0];
	bool any_skip = false;
	size_t i;

	side_heading(out, "compare  A: ", &c->a);
	side_heading(out, "         B: ", &c->b);
	for (size_t k = 0; k < c->nkeys; k++) {
		if (!c->skip[k])
			continue;
		tab_printf(out, "%s %s: %s in A, %s in B\n",
			   any_skip ? "        " : "A and B differ in",
			   c->keys[k], c->a.cases[0].key[k],
			   c->b.cases[0].key[k]);
		any_skip = true;
	}
	/* Throughput is one word, in bytes/s or messages/s by pattern. */
	for (i = 1; i < c->npairs; i++)
		if (c->pairs[i].metric != p0->metric &&
		    !(c->pairs[i].metric->higher_better &&
		      p0->metric->higher_better))
			break;
	if (i == c->npairs)
		tab_printf(out,
			   "B/A: ratio of the medians of the per-run %s (%s is "
			   "better), B-A: their difference, each with a 95%% "
			   "bootstrap interval; p: two-sided Mann-Whitney U\n",
			   p0->metric->word,
			   p0->metric->higher_better ? "higher" : "lower");
	else
		tab_printf(out,
			   "B/A: ratio of the medians of the per-run metric "
			   "(lower p50, higher throughput is better), B-A: "
			   "their difference, each with a 95%% bootstrap "
			   "interval; p: two-sided Mann-Whitney U\n");
	if (c->a.ndocs > 1 || c->b.ndocs > 1)
		tab_printf(out,
			   "two levels: each file is an invocation, its value "
			   "the median of its runs; with several files a side, "
			   "p compares the invocations and the intervals "
			   "resample them, so drift between invocations "
			   "counts\n");
}

/*
 * The difference B - A of the medians, per sample or per message, and its
 * interval, in cells @cell[@at] and @cell[@at + 1] (the interval's ends
 * with the difference's unit, or "-").
 */
static void diff_cells(struct grid *g, char **cell, size_t at,
		       const struct cpair *p, bool per_message)
{
	struct cmp_diff d = cmp_pair_diff(p, per_message);
	char x[40], y[40];

	if (!d.have) {
		grid_set(g, &cell[at], "-");
		grid_set(g, &cell[at + 1], "-");
		return;
	}
	signed_val(p, d.diff, x, sizeof(x));
	grid_set(g, &cell[at], "%s", x);
	if (!d.have_ci) {
		grid_set(g, &cell[at + 1], "-");
		return;
	}
	signed_val(p, d.lo, x, sizeof(x));
	signed_val(p, d.hi, y, sizeof(y));
	grid_set(g, &cell[at + 1], "%s – %s", x, y);
}

/*
 * The pair's line of the table; @files: the column of files A/B; @per:
 * the per-message columns too.
 */
static void pair_line(struct grid *g, const struct ipc_comparison *c,
		      const struct cpair *p, bool files, bool per)
{
	struct grid_line *l = grid_line(g);
	char buf[256], x[32];
	char **cell;

	if (!l)
		return;
	cell = l->cell + files;
	cmp_label(c, p->a, true, buf, sizeof(buf));
	if (p->metric != &ipc_metric_p50)
		grid_set(g, &l->cell[0], "%s (%s)", buf, p->metric->word);
	else
		grid_set(g, &l->cell[0], "%s", buf);
	if (files)
		grid_set(g, &l->cell[1], "%zu/%zu", p->cmp.ka, p->cmp.kb);
	grid_set(g, &cell[1], "%zu/%zu", p->cmp.na, p->cmp.nb);
	if (p->cmp.na && p->cmp.nb) {
		grid_set(g, &cell[2], "%s",
			 fmt_val(p, p->cmp.median_a, x, sizeof(x)));
		grid_set(g, &cell[3], "%s",
			 fmt_val(p, p->cmp.median_b, x, sizeof(x)));
	} else {
		grid_set(g, &cell[2], "-");
		grid_set(g, &cell[3], "-");
	}
	if (p->cmp.have_ratio)
		grid_set(g, &cell[4], "%.3f", p->cmp.ratio);
	else
		grid_set(g, &cell[4], "-");
	if (p->v.have_ci)
		grid_set(g, &cell[5], "%.3f–%.3f", p->v.lo, p->v.hi);
	else
		grid_set(g, &cell[5], "-");
	diff_cells(g, cell, 6, p, false);
	if (p->v.p < 0.0001)
		grid_set(g, &cell[8], "<0.0001");
	else
		grid_set(g, &cell[8], "%.2g", p->v.p);
	if (p->v.verdict != IPC_VERDICT_SAME)
		grid_set(g, &cell[9], "%s (%+.1f%%)",
			 ipc_verdict_name(p->v.verdict), p->v.change_pct);
	else
		grid_set(g, &cell[9], "%s", ipc_verdict_name(p->v.verdict));
	if (per && p->per)
		diff_cells(g, cell, 10, p, true);
	else if (per)
		grid_set(g, &cell[10], "-");
}

/* The cases of one side that found no match, or no measurement. */
static void unmatched(struct tab_out *out, const struct ipc_comparison *c,
		      const struct cside *s, const char *side)
{
	char buf[256];

	for (size_t i = 0; i < s->n; i++) {
		cmp_label(c, &s->cases[i], false, buf, sizeof(buf));
		if (!s->cases[i].used)
			tab_printf(out, "only in %s: %s\n", side, buf);
		else if (!s->cases[i].measured)
			tab_printf(out, "not measured in %s: %s\n", side, buf);
	}
}

/* A time that may be negative, with its sign always. */
static char *signed_ns(double v, char *buf, size_t len)
{
	char t[32];

	snprintf(buf, len, "%s%s", v < 0 ? "-" : "+",
		 ipc_fmt_ns(v < 0 ? -v : v, t, sizeof(t)));
	return buf;
}

/* --explain on both sides: each pair's phases, A, B and B - A. */
static void phase_tables(struct tab_out *out, const struct ipc_comparison *c)
{
	char what[256], t[32];

	for (size_t i = 0; i < c->npairs; i++) {
		const struct cpair *p = &c->pairs[i];
		struct grid g = {.caption = "B - A per phase"};
		struct grid_line *l;

		if (!p->nphases && !p->phase_note[0])
			continue;
		cmp_label(c, p->a, true, what, sizeof(what));
		tab_printf(out, "\nphases of %s, per round trip:\n", what);
		grid_col(&g, "phase", true);
		grid_col(&g, "A", false);
		grid_col(&g, "B", false);
		grid_col(&g, "B-A", false);
		grid_col(&g, "verdict", true);
		for (size_t k = 0; k < p->nphases && (l = grid_line(&g)); k++) {
			const struct cphase *ph = &p->phases[k];

			grid_set(&g, &l->cell[0], "%s", ph->name);
			grid_set(&g, &l->cell[1], "%s",
				 ipc_fmt_ns(ph->a_ns, t, sizeof(t)));
			grid_set(&g, &l->cell[2], "%s",
				 ipc_fmt_ns(ph->b_ns, t, sizeof(t)));
			grid_set(&g, &l->cell[3], "%s",
				 signed_ns(cmp_phase_diff(ph), t, sizeof(t)));
			grid_set(&g, &l->cell[4], "%s",
				 ph->judged ? ipc_verdict_name(ph->v.verdict)
					    : "not judged");
		}
		if (p->nphases)
			tab_grid(out, &g);
		grid_free(&g);
		if (p->phase_note[0])
			tab_printf(out, "note: %s\n", p->phase_note);
	}
}

int cmp_print_styled(struct tab_out *out, const struct ipc_comparison *c)
{
	static const char *const heads[] = {"case", "runs A/B", "A",   "B",
					    "B/A",  "95% CI",	"B-A", "95% CI",
					    "p",    "verdict"};
	bool files = c->a.ndocs > 1 || c->b.ndocs > 1;
	const char *per_word = NULL;
	struct grid g = {0};
	char buf[256], head[48];
	bool few = false;
	double allowed = -1, drift = 0;
	size_t i;
	int err;

	for (i = 0; i < c->npairs; i++)
		if (c->pairs[i].per && !per_word)
			per_word = c->pairs[i].per_word;
	for (i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
		grid_col(&g, heads[i], i == 0 || i == 9);
		if (i == 0 && files)
			grid_col(&g, "files A/B", false);
	}
	if (per_word) {
		snprintf(head, sizeof(head), "B-A per %s", per_word);
		grid_col(&g, head, false);
		grid_col(&g, "95% CI", false);
	}
	grid_ids(&g);
	for (i = 0; i < c->npairs; i++) {
		const struct cpair *p = &c->pairs[i];

		pair_line(&g, c, p, files, per_word != NULL);
		few |= p->v.basis != IPC_BASIS_INVOCATIONS && p->v.few;
		if (p->v.basis == IPC_BASIS_ALLOWED)
			allowed = p->v.allow_pct, drift = p->v.drift;
	}
	err = g.err;
	if (!err) {
		tab_heading(out);
		heading(out, c);
		tab_grid(out, &g);
	}
	grid_free(&g);
	if (err)
		return err;
	for (i = 0; i < c->npairs; i++)
		if (c->pairs[i].note[0]) {
			cmp_label(c, c->pairs[i].a, true, buf, sizeof(buf));
			tab_printf(out, "note: %s: %s\n", buf,
				   c->pairs[i].note);
		}
	if (few)
		tab_printf(out,
			   "hint: measure with --runs auto (the default) or "
			   "-r 5 or more to tell results apart\n");
	if (allowed >= 0)
		tab_printf(out,
			   "drift: with one file a side the drift between "
			   "invocations was not measured: allowing ±%.0f%% for "
			   "drift between invocations (%.1f%% an invocation, "
			   "as measured on a shared VM), so a difference the "
			   "allowance could explain is \"undecided\"; compare "
			   "several files a side (A1 A2 ... -- B1 B2 ...) or "
			   "say how much to allow with --drift PCT\n",
			   allowed, ipc_drift_pct(drift));
	phase_tables(out, c);
	unmatched(out, c, &c->a, "A");
	unmatched(out, c, &c->b, "B");
	if (c->opts.fail_set && c->uncompared)
		tab_printf(
			out,
			"gate: %zu case%s of A could not be compared (above: "
			"only in A, not measured, or no %s): failed\n",
			c->uncompared, c->uncompared == 1 ? "" : "s",
			c->opts.metric ? c->opts.metric : "figure");
	if (c->opts.fail_set) {
		if (c->gates)
			tab_printf(out,
				   "gate: %zu case%s of B slower than A by "
				   "%g%% or more: failed\n",
				   c->gates, c->gates == 1 ? "" : "s",
				   c->opts.fail_pct);
		else
			tab_printf(out,
				   "gate: no case of B slower than A by %g%% "
				   "or more%s\n",
				   c->opts.fail_pct,
				   c->uncompared ? "" : ": passed");
	}
	return out->err ? out->err : ferror(out->f) ? -EIO : 0;
}

static int print_in(FILE *out, const struct ipc_comparison *c,
		    enum tab_style style)
{
	struct tab_out o;
	int err, err2;

	tab_out_init(&o, out, style);
	err = cmp_print_styled(&o, c);
	err2 = tab_out_fini(&o);
	return err ? err : err2;
}

int cmp_print_table(FILE *out, const struct ipc_comparison *c)
{
	return print_in(out, c, TAB_TEXT);
}

int cmp_print_markdown(FILE *out, const struct ipc_comparison *c)
{
	return print_in(out, c, TAB_MARKDOWN);
}

/* SPDX-License-Identifier: MIT */
/*
 * A comparison printed: the table for people (through the report layer's
 * one grid) and the JSON document for programs (docs/json.md, "ipcperf
 * compare -f json").
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "doc/compare.h"
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
 * The difference B - A of the medians, divided by @div, and its
 * interval, in cells @cell[@at] and @cell[@at + 1] (the interval's ends
 * with the difference's unit, or "-").
 */
static void diff_cells(struct grid *g, char **cell, size_t at,
		       const struct cpair *p, double div)
{
	char x[40], y[40];

	if (!p->cmp.na || !p->cmp.nb) {
		grid_set(g, &cell[at], "-");
		grid_set(g, &cell[at + 1], "-");
		return;
	}
	signed_val(p, p->cmp.diff / div, x, sizeof(x));
	grid_set(g, &cell[at], "%s", x);
	if (!p->cmp.have_diff_ci) {
		grid_set(g, &cell[at + 1], "-");
		return;
	}
	signed_val(p, p->v.dlo / div, x, sizeof(x));
	signed_val(p, p->v.dhi / div, y, sizeof(y));
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
	diff_cells(g, cell, 6, p, 1);
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
		diff_cells(g, cell, 10, p, p->per);
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
			   allowed, expm1(drift) * 100);
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

/* A real for JSON: left out when not finite (never NaN or Inf). */
static void jreal(json_t *o, const char *key, double v)
{
	if (isfinite(v))
		json_object_set_new(o, key, json_real(v));
}

static void jstr(json_t *o, const char *key, const char *s)
{
	if (s)
		json_object_set_new(o, key, json_string(s));
}

static json_t *file_obj(const struct ipc_doc *d)
{
	const struct ipc_host *h = d->meta.host;
	json_t *o = json_object();

	jstr(o, "file", d->path);
	jstr(o, "command", d->meta.command);
	jstr(o, "version", d->meta.version);
	if (h && h->started[0])
		jstr(o, "started", h->started);
	if (h && h->hostname[0])
		jstr(o, "hostname", h->hostname);
	return o;
}

/* The first file of a side, and every file's name. */
static json_t *side_obj(const struct cside *s)
{
	json_t *o = file_obj(s->docs[0]), *files = json_array();

	for (size_t d = 0; files && d < s->ndocs; d++)
		json_array_append_new(files, json_string(s->docs[d]->path));
	json_object_set_new(o, "files", files);
	return o;
}

/*
 * What the verdict rests on: the level its test is of, each side's
 * invocations and their spread, and the drift the interval was widened by.
 */
static void put_levels(json_t *o, const struct cpair *p)
{
	static const char *const basis[] = {
		[IPC_BASIS_ALLOWED] = "runs, allowing for drift",
		[IPC_BASIS_WIDENED] = "runs, widened by drift",
		[IPC_BASIS_INVOCATIONS] = "invocations",
	};
	json_t *d = json_object();

	json_object_set_new(o, "invocations_a",
			    json_integer((json_int_t)p->cmp.ka));
	json_object_set_new(o, "invocations_b",
			    json_integer((json_int_t)p->cmp.kb));
	jstr(o, "basis", basis[p->v.basis]);
	json_object_set_new(
		d, "measured",
		json_boolean(p->cmp.drift_a >= 0 || p->cmp.drift_b >= 0));
	if (p->cmp.drift_a >= 0)
		jreal(d, "a_pct", expm1(p->cmp.drift_a) * 100);
	if (p->cmp.drift_b >= 0)
		jreal(d, "b_pct", expm1(p->cmp.drift_b) * 100);
	if (p->v.basis != IPC_BASIS_INVOCATIONS) {
		jreal(d, "widened_by_pct", expm1(p->v.drift) * 100);
		jreal(d, "allowance_pct", p->v.allow_pct);
		json_object_set_new(
			d, "assumed",
			json_boolean(p->v.src != IPC_DRIFT_MEASURED));
		json_object_set_new(
			d, "default",
			json_boolean(p->v.src == IPC_DRIFT_DEFAULT));
	}
	json_object_set_new(o, "drift", d);
	if (p->v.basis != IPC_BASIS_INVOCATIONS && p->cmp.have_ci) {
		json_t *ci = json_object();

		jreal(ci, "low", p->cmp.ci_low);
		jreal(ci, "high", p->cmp.ci_high);
		json_object_set_new(o, "ci_unwidened", ci);
	}
	if (p->v.basis == IPC_BASIS_INVOCATIONS)
		jreal(o, "p_runs", p->cmp.p);
}

static json_t *pair_obj(const struct ipc_comparison *c, const struct cpair *p)
{
	json_t *o = json_object(), *ci;
	char buf[256];

	cmp_label(c, p->a, true, buf, sizeof(buf));
	jstr(o, "case", buf);
	cmp_label(c, p->a, false, buf, sizeof(buf));
	jstr(o, "a_case", buf);
	cmp_label(c, p->b, false, buf, sizeof(buf));
	jstr(o, "b_case", buf);
	jstr(o, "metric", p->metric->word);
	jstr(o, "unit", p->metric->unit);
	json_object_set_new(o, "lower_is_better",
			    json_boolean(!p->metric->higher_better));
	json_object_set_new(o, "runs_a", json_integer((json_int_t)p->cmp.na));
	json_object_set_new(o, "runs_b", json_integer((json_int_t)p->cmp.nb));
	if (p->cmp.na && p->cmp.nb) {
		jreal(o, "median_a", p->cmp.median_a);
		jreal(o, "median_b", p->cmp.median_b);
	}
	if (p->cmp.have_ratio) {
		jreal(o, "ratio", p->cmp.ratio);
		jreal(o, "change_pct", p->v.change_pct);
	}
	if (p->v.have_ci) {
		ci = json_object();
		jreal(ci, "level", p->cmp.level);
		jreal(ci, "low", p->v.lo);
		jreal(ci, "high", p->v.hi);
		json_object_set_new(o, "ci", ci);
	}
	jreal(o, "p", p->v.p);
	json_object_set_new(o, "exact",
			    json_boolean(p->v.basis == IPC_BASIS_INVOCATIONS
						 ? p->cmp.inv_exact
						 : p->cmp.exact));
	put_levels(o, p);
	if (p->cmp.na && p->cmp.nb)
		jreal(o, "diff", p->cmp.diff);
	if (p->cmp.have_diff_ci) {
		ci = json_object();
		jreal(ci, "low", p->v.dlo);
		jreal(ci, "high", p->v.dhi);
		json_object_set_new(o, "diff_ci", ci);
	}
	if (p->per) {
		jreal(o, "per_message", p->per);
		jstr(o, "message", p->per_word);
	}
	jstr(o, "verdict", ipc_verdict_name(p->v.verdict));
	if (p->note[0])
		jstr(o, "note", p->note);
	return o;
}

/* The labels of one side's cases that found no match, or no measurement. */
static void unmatched_arr(const struct ipc_comparison *c, const struct cside *s,
			  json_t *only, json_t *unm)
{
	char buf[256];

	for (size_t i = 0; i < s->n; i++) {
		cmp_label(c, &s->cases[i], false, buf, sizeof(buf));
		if (!s->cases[i].used)
			json_array_append_new(only, json_string(buf));
		else if (!s->cases[i].measured)
			json_array_append_new(unm, json_string(buf));
	}
}

/* The comparison in @style through a tab_out of its own. */
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

int cmp_print_json(FILE *out, const struct ipc_comparison *c)
{
	json_t *root = json_object(), *top = json_object(), *diff, *cases,
	       *only_a, *only_b, *unmeasured, *o;
	int err = 0;

	if (!root || !top) {
		json_decref(root);
		json_decref(top);
		return -ENOMEM;
	}
	jstr(top, "version", c->opts.version ? c->opts.version : "unknown");
	json_object_set_new(top, "schema", json_integer(IPC_JSON_SCHEMA));
	json_object_set_new(root, "ipcperf", top);
	jstr(root, "command", "compare");
	json_object_set_new(root, "a", side_obj(&c->a));
	json_object_set_new(root, "b", side_obj(&c->b));
	json_object_set_new(root, "level", json_real(0.95));
	jreal(root, "threshold_pct", c->opts.threshold_pct);
	if (c->opts.fail_set)
		jreal(root, "fail_if_slower_pct", c->opts.fail_pct);
	if (c->opts.drift_set)
		jreal(root, "drift_pct", c->opts.drift_pct);
	jstr(root, "test", "mann-whitney-u");
	jstr(root, "interval", "bootstrap, ratio of medians");
	diff = json_array();
	for (size_t k = 0; diff && k < c->nkeys; k++) {
		if (!c->skip[k])
			continue;
		o = json_object();
		jstr(o, "field", c->keys[k]);
		jstr(o, "a", c->a.cases[0].key[k]);
		jstr(o, "b", c->b.cases[0].key[k]);
		json_array_append_new(diff, o);
	}
	json_object_set_new(root, "differ", diff);
	cases = json_array();
	for (size_t i = 0; cases && i < c->npairs; i++)
		json_array_append_new(cases, pair_obj(c, &c->pairs[i]));
	json_object_set_new(root, "cases", cases);
	only_a = json_array();
	only_b = json_array();
	unmeasured = json_array();
	unmatched_arr(c, &c->a, only_a, unmeasured);
	unmatched_arr(c, &c->b, only_b, unmeasured);
	json_object_set_new(root, "only_in_a", only_a);
	json_object_set_new(root, "only_in_b", only_b);
	json_object_set_new(root, "not_measured", unmeasured);
	if (c->opts.fail_set)
		json_object_set_new(root, "gate_failed",
				    json_boolean(ipc_comparison_gates(c)));
	json_object_set_new(root, "uncompared",
			    json_integer((json_int_t)c->uncompared));
	errno = 0;
	if (json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) <
		    0 ||
	    fputc('\n', out) == EOF)
		err = errno ? -errno : -EIO;
	json_decref(root);
	return err;
}

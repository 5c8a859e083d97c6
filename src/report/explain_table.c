/* SPDX-License-Identifier: MIT */
/*
 * --explain under the human table: per case, where one round trip's time
 * went, phase by phase, and what the phases add up to against the mean
 * they explain.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc/explain_json.h"
#include "explain_out.h"
#include "run/lib_internal.h"

struct ipc_explain_result *explain_keep(const struct ipc_explain_result *x)
{
	struct ipc_explain_result *c;

	if (!x)
		return NULL;
	c = malloc(sizeof(*c));
	if (!c)
		return NULL;
	*c = *x;
	c->runs = NULL;
	c->nruns = c->runs_cap = 0;
	c->pooled = NULL;
	return c;
}

/* A time that may be negative (the residue), with its sign. */
static char *signed_ns(double ns, char *buf, size_t len)
{
	char t[32];

	if (ns >= 0)
		return ipc_fmt_ns(ns, buf, len);
	snprintf(buf, len, "-%s", ipc_fmt_ns(-ns, t, sizeof(t)));
	return buf;
}

static void phase_line(struct tab_out *out, const struct ipc_xphase *p)
{
	char t[32], q[32];

	tab_printf(out, "  %-7s %-20s %10s %6.1f%%", p->side, p->name,
		   signed_ns(p->ns, t, sizeof(t)), 100 * p->share);
	if (p->p99_ns >= 0)
		tab_printf(out, "  p99 %s",
			   ipc_fmt_ns(p->p99_ns, q, sizeof(q)));
	if (p->behind[0])
		tab_printf(out, "  behind %s", p->behind);
	tab_puts(out, "\n");
}

static void others_line(struct tab_out *out, const struct ipc_explain_result *x,
			const char *sample)
{
	char t[32];
	size_t i, shown = 0;

	for (i = 0; i < x->nothers && shown < 4; i++) {
		if (x->others[i].ns < 1)
			continue;
		if (!shown)
			tab_printf(out,
				   "  others on the measured CPUs, per %s: ",
				   sample);
		tab_printf(out, "%s%s (pid %d) %s", shown ? ", " : "",
			   x->others[i].comm, x->others[i].pid,
			   ipc_fmt_ns(x->others[i].ns, t, sizeof(t)));
		shown++;
	}
	if (shown)
		tab_puts(out, "\n");
}

/*
 * Markdown and HTML: the phases as a table of their own (the text keeps
 * its lines, which a terminal aligns as well and a grep finds whole).
 */
static void phase_grid(struct tab_out *out, const struct ipc_explain_result *x)
{
	struct grid g = {.caption = "where the time went"};
	struct grid_line *l;
	char t[32];
	size_t i;

	grid_col(&g, "side", true);
	grid_col(&g, "phase", true);
	grid_col(&g, "per round trip", false);
	grid_col(&g, "share", false);
	grid_col(&g, "p99 per event", false);
	grid_col(&g, "behind", true);
	for (i = 0; i < x->nphases && (l = grid_line(&g)); i++) {
		const struct ipc_xphase *p = &x->phases[i];

		grid_set(&g, &l->cell[0], "%s", p->side);
		grid_set(&g, &l->cell[1], "%s", p->name);
		grid_set(&g, &l->cell[2], "%s", signed_ns(p->ns, t, sizeof(t)));
		grid_set(&g, &l->cell[3], "%.1f%%", 100 * p->share);
		if (p->p99_ns >= 0)
			grid_set(&g, &l->cell[4], "%s",
				 ipc_fmt_ns(p->p99_ns, t, sizeof(t)));
		grid_set(&g, &l->cell[5], "%s", p->behind);
	}
	tab_grid(out, &g);
	grid_free(&g);
}

static void explained(struct tab_out *out, const struct ipc_result *res)
{
	const struct ipc_explain_result *x = res->explain;
	char what[256], m[32], s[32], head[96] = "";
	struct ipc_headline h;
	double small = 0;
	size_t i, nsmall = 0;

	ipc_case_describe(&res->cs, what, sizeof(what));
	ipc_result_headline(res, &h);
	if (h.valid)
		snprintf(head, sizeof(head), "; headline %s",
			 ipc_fmt_metric(res, h.value, s, sizeof(s)));
	if (x->second_pass)
		/* Not the figures above: their runs were not explained. */
		snprintf(head, sizeof(head),
			 "; a second pass of %u runs, the figures above "
			 "measured without it",
			 x->second_pass);
	tab_printf(out,
		   "\nexplain %s: the mean %s, %s (the median run's%s), in "
		   "phases that add up to %s\n",
		   what, res->cs.pat->sample,
		   ipc_fmt_ns(x->measured_ns, m, sizeof(m)), head,
		   ipc_fmt_ns(x->sum_ns, s, sizeof(s)));
	if (x->cause[0])
		tab_printf(out, "  the runs' spread: %s\n", x->cause);
	if (x->server_why[0])
		tab_printf(out,
			   "  the server could not explain its side: %s (its "
			   "time is in the client's blocked)\n",
			   x->server_why);
	if (out->style != TAB_TEXT)
		phase_grid(out, x);
	for (i = 0; out->style == TAB_TEXT && i < x->nphases; i++)
		if (!ipc_xphase_small(x, i))
			phase_line(out, &x->phases[i]);
	if (out->style == TAB_TEXT)
		small = ipc_xphase_small_sum(x, &nsmall);
	if (nsmall)
		tab_printf(out,
			   "  (%zu phase%s under 0.1%% each, %s in all, not "
			   "shown: -f json has them)\n",
			   nsmall, nsmall == 1 ? "" : "s",
			   ipc_fmt_ns(small, s, sizeof(s)));
	if (x->migrations[0] || x->migrations[1])
		tab_printf(out, "  migrations: client %llu, server %llu\n",
			   (unsigned long long)x->migrations[0],
			   (unsigned long long)x->migrations[1]);
	others_line(out, x, res->cs.pat->sample);
}

/*
 * A second pass's cause, one line a case: on a terminal the breakdowns of
 * every flagged row of a suite would bury its table (the other formats
 * keep them whole).
 */
static void pass_line(struct tab_out *out, const struct ipc_result *res,
		      bool *headed)
{
	const struct ipc_explain_result *x = res->explain;
	char what[256];

	if (!*headed)
		tab_printf(
			out,
			"\nwhy the flagged cases' runs differ, from a second "
			"pass of %u runs each with --explain (its phases: "
			"-f json, -f html):\n",
			x->second_pass);
	*headed = true;
	tab_printf(out, "  %s: %s\n",
		   ipc_case_describe(&res->cs, what, sizeof(what)),
		   x->cause[0] ? x->cause
			       : "its runs did not differ in any phase");
}

void explain_table_print(struct tab_out *out, const struct trow *rows, size_t n)
{
	const char *said = NULL;
	bool headed = false;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct ipc_explain_result *x = rows[i].res.explain;

		if (!x)
			continue;
		if (x->available && x->second_pass && out->style == TAB_TEXT) {
			pass_line(out, &rows[i].res, &headed);
		} else if (x->available && x->nphases) {
			explained(out, &rows[i].res);
		} else if (!x->available && (!said || strcmp(said, x->why))) {
			tab_printf(out, "explain: unavailable: %s\n", x->why);
			said = x->why;
		}
	}
}

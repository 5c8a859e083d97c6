/* SPDX-License-Identifier: MIT */
/*
 * A comparison as a JSON document (docs/json.md, "ipcperf compare -f
 * json"): the files of each side, the options, each pair's statistics and
 * verdict.  Beside its reader (compare_read.c), so that what is written
 * and what ipcperf report reads back are one schema in one layer.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include <jansson.h>

#include "compare.h"
#include "figures.h"
#include "doc/lib_internal.h"

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
		jreal(d, "a_pct", ipc_drift_pct(p->cmp.drift_a));
	if (p->cmp.drift_b >= 0)
		jreal(d, "b_pct", ipc_drift_pct(p->cmp.drift_b));
	if (p->v.basis != IPC_BASIS_INVOCATIONS) {
		jreal(d, "widened_by_pct", ipc_drift_pct(p->v.drift));
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

/* --explain on both sides: each phase's A, B and, judged, its verdict. */
static void put_phases(json_t *o, const struct cpair *p)
{
	json_t *a = json_array(), *x;

	if (p->phase_note[0])
		jstr(o, "phases_note", p->phase_note);
	if (!p->nphases || !a) {
		json_decref(a);
		return;
	}
	for (size_t k = 0; k < p->nphases; k++) {
		const struct cphase *ph = &p->phases[k];

		x = json_object();
		jstr(x, "phase", ph->name);
		jreal(x, "a_ns", ph->a_ns);
		jreal(x, "b_ns", ph->b_ns);
		jreal(x, "diff_ns", cmp_phase_diff(ph));
		if (ph->judged)
			jstr(x, "verdict", ipc_verdict_name(ph->v.verdict));
		json_array_append_new(a, x);
	}
	json_object_set_new(o, "phases", a);
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
	put_phases(o, p);
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
int cmp_write_json(FILE *out, const struct ipc_comparison *c)
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

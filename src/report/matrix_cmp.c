/* SPDX-License-Identifier: MIT */
/*
 * Two fleet matrices compared (ipcperf compare BEFORE.json AFTER.json of
 * report --matrix -f json): each pair of hosts of each case, the ratio of
 * the medians of its runs B / A with a bootstrap interval, and the pairs
 * that got significantly slower or failed in B listed.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ipcperf/report.h"

struct mc_cell {
	const char *cas, *from, *to, *status, *error, *unit;
	double *vals;
	size_t nvals;
};

struct ipc_mx_doc {
	json_t *root;
	char metric[16];
	struct mc_cell *cells;
	size_t n;
};

void ipc_mx_doc_free(struct ipc_mx_doc *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++)
		free(d->cells[i].vals);
	free(d->cells);
	json_decref(d->root);
	free(d);
}

const char *ipc_mx_doc_metric(const struct ipc_mx_doc *d)
{
	return d->metric;
}

bool ipc_mx_doc_is(const char *text, size_t len)
{
	json_t *root = json_loadb(text, len, 0, NULL);
	bool is = json_is_string(json_object_get(root, "command")) &&
		  !strcmp(json_string_value(json_object_get(root, "command")),
			  "matrix");

	json_decref(root);
	return is;
}

/* One cell of case @cas from @o; false when it is not one. */
static bool read_cell(json_t *o, const char *cas, const char *unit,
		      struct mc_cell *c)
{
	json_t *v = json_object_get(o, "run_values"), *x;
	size_t i;

	memset(c, 0, sizeof(*c));
	c->cas = cas;
	c->unit = unit;
	c->from = json_string_value(json_object_get(o, "from"));
	c->to = json_string_value(json_object_get(o, "to"));
	c->status = json_string_value(json_object_get(o, "status"));
	c->error = json_string_value(json_object_get(o, "error"));
	if (!c->from || !c->to || !c->status || !json_is_array(v))
		return false;
	c->vals = calloc(json_array_size(v) + 1, sizeof(*c->vals));
	if (!c->vals)
		return false;
	json_array_foreach(v, i, x)
	{
		if (!json_is_number(x) || !isfinite(json_number_value(x)))
			return false;
		c->vals[c->nvals++] = json_number_value(x);
	}
	return true;
}

int ipc_mx_doc_parse(const char *text, size_t len, const char *name,
		     struct ipc_mx_doc **out, char *err, size_t err_len)
{
	struct ipc_mx_doc *d = calloc(1, sizeof(*d));
	json_t *ms, *m, *cells, *o;
	const char *metric, *cas, *unit;
	size_t i, k, all = 0;

	*out = NULL;
	if (!d)
		return -ENOMEM;
	d->root = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
	metric = json_string_value(json_object_get(d->root, "metric"));
	ms = json_object_get(d->root, "matrices");
	if (!metric || strlen(metric) >= sizeof(d->metric) ||
	    !json_is_array(ms))
		goto bad;
	snprintf(d->metric, sizeof(d->metric), "%s", metric);
	json_array_foreach(ms, i, m) all +=
		json_array_size(json_object_get(m, "cells"));
	d->cells = calloc(all + 1, sizeof(*d->cells));
	if (!d->cells) {
		ipc_mx_doc_free(d);
		return -ENOMEM;
	}
	json_array_foreach(ms, i, m)
	{
		cas = json_string_value(json_object_get(m, "case"));
		unit = json_string_value(json_object_get(m, "unit"));
		cells = json_object_get(m, "cells");
		if (!cas || !unit || !json_is_array(cells))
			goto bad;
		json_array_foreach(cells, k, o)
		{
			if (!read_cell(o, cas, unit, &d->cells[d->n++]))
				goto bad;
		}
	}
	*out = d;
	return 0;
bad:
	snprintf(err, err_len,
		 "%s: not a matrix written by report --matrix -f json", name);
	ipc_mx_doc_free(d);
	return -EINVAL;
}

static const struct mc_cell *find(const struct ipc_mx_doc *d,
				  const struct mc_cell *c)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->cells[i].cas, c->cas) &&
		    !strcmp(d->cells[i].from, c->from) &&
		    !strcmp(d->cells[i].to, c->to))
			return &d->cells[i];
	return NULL;
}

/* One compared pair. */
struct mc_pair {
	const struct mc_cell *a, *b;
	struct ipc_cmp cmp;
	bool compared;	     /* both sides had runs */
	const char *verdict; /* slower, faster, ..., failed in B */
	bool gate;	     /* --fail-if-slower trips on it */
};

static const char *verdict(const struct mc_pair *p, double thr_pct)
{
	bool lower_better = !strcmp(p->a->unit, "ns");
	double t = thr_pct / 100;

	if (!p->compared)
		return strcmp(p->b->status, "ok") && !strcmp(p->a->status, "ok")
			       ? "failed in B"
			       : "not measured";
	if (!p->cmp.have_ci)
		return "undecided";
	if (lower_better ? p->cmp.ci_low > 1 + t : p->cmp.ci_high < 1 - t)
		return "slower";
	if (lower_better ? p->cmp.ci_high < 1 - t : p->cmp.ci_low > 1 + t)
		return "faster";
	return "no significant difference";
}

static int judge(const struct ipc_mx_doc *a, const struct ipc_mx_doc *b,
		 const struct ipc_cmp_opts *o, struct mc_pair *pairs, size_t *n)
{
	int err;

	*n = 0;
	for (size_t i = 0; i < a->n; i++) {
		struct mc_pair *p = &pairs[*n];
		const struct mc_cell *cb = find(b, &a->cells[i]);
		bool slower;

		if (!cb)
			continue;
		memset(p, 0, sizeof(*p));
		p->a = &a->cells[i];
		p->b = cb;
		p->compared = p->a->nvals && cb->nvals;
		if (p->compared) {
			err = ipc_compare_runs(p->a->vals, p->a->nvals,
					       cb->vals, cb->nvals, 0.95,
					       0x5eed, &p->cmp);
			if (err)
				return err;
		}
		p->verdict = verdict(p, o->threshold_pct);
		slower = !strcmp(p->verdict, "slower") &&
			 (!strcmp(p->a->unit, "ns")
				  ? p->cmp.ratio >= 1 + o->fail_pct / 100
				  : p->cmp.ratio <= 1 - o->fail_pct / 100);
		p->gate = o->fail_set &&
			  (slower || !strcmp(p->verdict, "failed in B"));
		(*n)++;
	}
	return 0;
}

static void put_table(FILE *out, const char *metric, const struct mc_pair *p,
		      size_t n, size_t only_a, size_t only_b)
{
	const char *cas = NULL;
	size_t slower = 0, failed = 0;

	fprintf(out,
		"%s per pair of hosts, B / A: the ratio of the medians of "
		"the runs, [95%% bootstrap interval]\n",
		metric);
	for (size_t i = 0; i < n; i++) {
		if (!cas || strcmp(cas, p[i].a->cas)) {
			cas = p[i].a->cas;
			fprintf(out, "\n%s\n", cas);
		}
		fprintf(out, "  %s -> %s: ", p[i].a->from, p[i].a->to);
		if (p[i].compared && p[i].cmp.have_ci)
			fprintf(out, "%.3f [%.3f, %.3f] ", p[i].cmp.ratio,
				p[i].cmp.ci_low, p[i].cmp.ci_high);
		else if (p[i].compared && p[i].cmp.have_ratio)
			fprintf(out, "%.3f ", p[i].cmp.ratio);
		fprintf(out, "%s", p[i].verdict);
		if (!strcmp(p[i].verdict, "failed in B") && p[i].b->error)
			fprintf(out, ": %s", p[i].b->error);
		fputc('\n', out);
		slower += !strcmp(p[i].verdict, "slower");
		failed += !strcmp(p[i].verdict, "failed in B");
	}
	fprintf(out, "\n%zu pairs compared: %zu slower, %zu failed in B", n,
		slower, failed);
	if (only_a || only_b)
		fprintf(out, "; %zu only in A, %zu only in B", only_a, only_b);
	fputc('\n', out);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(p[i].verdict, "slower") ||
		    !strcmp(p[i].verdict, "failed in B"))
			fprintf(out, "  %s: %s -> %s (%s)\n", p[i].verdict,
				p[i].a->from, p[i].a->to, p[i].a->cas);
}

static json_t *pair_obj(const struct mc_pair *p)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "case",
			      p->a->cas, "from", p->a->from, "to", p->a->to,
			      "status_a", p->a->status, "status_b",
			      p->b->status, "verdict", p->verdict);

	if (o && p->compared) {
		json_object_set_new(o, "median_a", json_real(p->cmp.median_a));
		json_object_set_new(o, "median_b", json_real(p->cmp.median_b));
		if (p->cmp.have_ratio)
			json_object_set_new(o, "ratio",
					    json_real(p->cmp.ratio));
		if (p->cmp.have_ci)
			json_object_set_new(o, "ci",
					    json_pack("{s:f, s:f, s:f}",
						      "level", p->cmp.level,
						      "low", p->cmp.ci_low,
						      "high", p->cmp.ci_high));
		json_object_set_new(o, "p", json_real(p->cmp.p));
	}
	if (o && p->b->error)
		json_object_set_new(o, "error_b", json_string(p->b->error));
	return o;
}

static int put_json(FILE *out, const char *metric, const struct mc_pair *p,
		    size_t n, bool gate)
{
	json_t *root = json_pack("{s:s, s:s, s:b}", "command", "compare-matrix",
				 "metric", metric, "gate_failed", gate);
	json_t *all = json_array(), *slower = json_array(), *x;
	int bad = !root || !all || !slower;

	for (size_t i = 0; !bad && i < n; i++) {
		x = pair_obj(&p[i]);
		bad |= !x || json_array_append_new(all, x);
		if (!bad && (!strcmp(p[i].verdict, "slower") ||
			     !strcmp(p[i].verdict, "failed in B")))
			bad |= json_array_append(slower, x);
	}
	bad |= json_object_set_new(root, "pairs", all);
	bad |= json_object_set_new(root, "slower_or_failed", slower);
	if (!bad) {
		errno = 0;
		bad = json_dumpf(root, out,
				 JSON_INDENT(2) | JSON_REAL_PRECISION(15)) <
			      0 ||
		      fputc('\n', out) == EOF;
		json_decref(root);
		return bad ? (errno ? -errno : -EIO) : 0;
	}
	json_decref(root);
	return -ENOMEM;
}

int ipc_mx_compare(FILE *out, const struct ipc_mx_doc *a,
		   const struct ipc_mx_doc *b, const struct ipc_cmp_opts *o,
		   const char *format, size_t *gates)
{
	struct mc_pair *pairs = calloc(a->n + 1, sizeof(*pairs));
	size_t n = 0, only_b = 0;
	int err;

	*gates = 0;
	if (!pairs)
		return -ENOMEM;
	err = judge(a, b, o, pairs, &n);
	for (size_t i = 0; i < b->n; i++)
		only_b += !find(a, &b->cells[i]);
	for (size_t i = 0; i < n; i++)
		*gates += pairs[i].gate;
	if (!err && !strcmp(format, "json"))
		err = put_json(out, a->metric, pairs, n, *gates > 0);
	else if (!err)
		put_table(out, a->metric, pairs, n, a->n - n, only_b);
	free(pairs);
	if (!err && ferror(out))
		err = -EIO;
	return err;
}

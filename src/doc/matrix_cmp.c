/* SPDX-License-Identifier: MIT */
/*
 * Two fleet matrices (report --matrix -f json) read back and judged
 * against each other: each pair of hosts of each case, the ratio of the
 * medians of its runs B / A with a bootstrap interval, and its verdict.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "matrix.h"
#include "doc/lib_internal.h"
#include "pattern/lib_internal.h"
#include "stats/lib_internal.h"

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
	char err[8];
	json_t *root = ipc_doc_values_check(text, len, "", err, sizeof(err))
			       ? NULL
			       : json_loadb(text, len, 0, NULL);
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
	struct ipc_mx_doc *d;
	json_t *ms, *m, *cells, *o;
	const char *metric, *cas, *unit;
	size_t i, k, all = 0;
	int rc = ipc_doc_values_check(text, len, name, err, err_len);

	*out = NULL;
	if (rc)
		return rc;
	d = calloc(1, sizeof(*d));
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

const struct mc_cell *mx_find(const struct ipc_mx_doc *d,
			      const struct mc_cell *c)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->cells[i].cas, c->cas) &&
		    !strcmp(d->cells[i].from, c->from) &&
		    !strcmp(d->cells[i].to, c->to))
			return &d->cells[i];
	return NULL;
}

/*
 * Is a higher value better in matrix @d's case @cas?  As the metric's
 * description says: a time (p50, p99) is, a throughput is not; for
 * throughput the case's pattern says which rate it is.
 */
static bool higher_better(const struct ipc_mx_doc *d, const char *cas)
{
	const struct ipc_metric *m = ipc_metric_find_word(d->metric);
	const struct ipc_pattern_ops *pat;
	char name[32];

	snprintf(name, sizeof(name), "%.*s", (int)strcspn(cas, " "), cas);
	pat = ipc_pattern_find(name);
	if (m && m->higher_better && pat && pat->rate)
		m = pat->rate;
	return m && m->higher_better;
}

const char *mx_pair_verdict(const struct mc_pair *p)
{
	if (p->compared)
		return ipc_verdict_name(p->v.verdict);
	return p->failed_b ? "failed in B" : "not measured";
}

bool mx_pair_worse(const struct mc_pair *p)
{
	return p->failed_b ||
	       (p->compared && p->v.verdict == IPC_VERDICT_SLOWER);
}

void mx_tally(const struct ipc_mx_doc *a, const struct ipc_mx_doc *b,
	      const struct mc_pair *pairs, size_t n, struct mc_tally *t)
{
	*t = (struct mc_tally){.only_a = a->n - n};
	for (size_t i = 0; i < b->n; i++)
		t->only_b += !mx_find(a, &b->cells[i]);
	for (size_t i = 0; i < n; i++) {
		t->gates += pairs[i].gate;
		t->slower += mx_pair_worse(&pairs[i]) && !pairs[i].failed_b;
		t->failed += pairs[i].failed_b;
	}
}

int mx_judge(const struct ipc_mx_doc *a, const struct ipc_mx_doc *b,
	     const struct ipc_cmp_opts *o, struct mc_pair *pairs, size_t *n)
{
	int err;

	*n = 0;
	for (size_t i = 0; i < a->n; i++) {
		struct mc_pair *p = &pairs[*n];
		const struct mc_cell *cb = mx_find(b, &a->cells[i]);
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
		if (p->compared)
			ipc_judge(&p->cmp, higher_better(a, p->a->cas),
				  o->threshold_pct,
				  o->drift_set ? o->drift_pct : -1, &p->v);
		else
			p->failed_b = strcmp(cb->status, "ok") &&
				      !strcmp(p->a->status, "ok");
		p->gate = o->fail_set &&
			  (p->failed_b ||
			   (p->compared && p->v.verdict == IPC_VERDICT_SLOWER &&
			    fabs(p->v.change_pct) >= o->fail_pct));
		(*n)++;
	}
	return 0;
}

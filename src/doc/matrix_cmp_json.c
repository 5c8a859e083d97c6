/* SPDX-License-Identifier: MIT */
/*
 * Two fleet matrices compared, as JSON for programs (compare of two
 * report --matrix -f json files, -f json): each pair of hosts with its
 * medians, ratio, interval, p and verdict as mx_judge decided them, the
 * drift it was allowed, and the pairs slower or failed in B.  Written in
 * the document layer, as the matrix's own JSON is (matrix_json.c), so
 * that the schemas of what programs read stay in one layer.
 */
#include <errno.h>
#include <stdio.h>

#include <jansson.h>

#include "figures.h"
#include "matrix.h"

static json_t *pair_obj(const struct mc_pair *p)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "case",
			      p->a->cas, "from", p->a->from, "to", p->a->to,
			      "status_a", p->a->status, "status_b",
			      p->b->status, "verdict", mx_pair_verdict(p));

	if (o && p->compared) {
		json_object_set_new(o, "median_a", json_real(p->cmp.median_a));
		json_object_set_new(o, "median_b", json_real(p->cmp.median_b));
		if (p->cmp.have_ratio)
			json_object_set_new(o, "ratio",
					    json_real(p->cmp.ratio));
		/* The interval the verdict rests on, widened by the drift. */
		if (p->v.have_ci)
			json_object_set_new(o, "ci",
					    json_pack("{s:f, s:f, s:f}",
						      "level", p->cmp.level,
						      "low", p->v.lo, "high",
						      p->v.hi));
		json_object_set_new(o, "p", json_real(p->v.p));
		if (p->v.drift >= 0)
			json_object_set_new(
				o, "drift_pct",
				json_real(ipc_drift_pct(p->v.drift)));
		if (p->v.drift >= 0)
			json_object_set_new(o, "allowance_pct",
					    json_real(p->v.allow_pct));
	}
	if (o && p->b->error)
		json_object_set_new(o, "error_b", json_string(p->b->error));
	return o;
}

int mx_cmp_write_json(FILE *out, const char *metric, const struct mc_pair *p,
		      size_t n, bool gate)
{
	json_t *root = json_pack("{s:s, s:s, s:b}", "command", "compare-matrix",
				 "metric", metric, "gate_failed", gate);
	json_t *all = json_array(), *slower = json_array(), *x;
	int bad = !root || !all || !slower;

	for (size_t i = 0; !bad && i < n; i++) {
		x = pair_obj(&p[i]);
		bad |= !x || json_array_append_new(all, x);
		if (!bad && mx_pair_worse(&p[i]))
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

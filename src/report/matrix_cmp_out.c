/* SPDX-License-Identifier: MIT */
/*
 * Two fleet matrices compared, printed: each pair of hosts with its ratio,
 * interval and verdict as the document layer judged it, and the pairs
 * that got slower or failed in B listed, as a table or as JSON.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ipcperf/report.h"
#include "doc/matrix.h"

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
	err = mx_judge(a, b, o, pairs, &n);
	for (size_t i = 0; i < b->n; i++)
		only_b += !mx_find(a, &b->cells[i]);
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

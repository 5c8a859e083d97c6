/* SPDX-License-Identifier: MIT */
/*
 * Two fleet matrices compared, printed: each pair of hosts with its ratio,
 * interval and verdict as the document layer judged it, and the pairs
 * that got slower or failed in B listed, as a table (JSON:
 * doc/matrix_cmp_json.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ipcperf/report.h"
#include "doc/matrix.h"
#include "report/lib_internal.h"

/* The drift the pairs of one file a side were allowed, or -1. */
static double allowed(const struct mc_pair *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i].compared && p[i].v.basis == IPC_BASIS_ALLOWED)
			return p[i].v.allow_pct;
	return -1;
}

static void put_table(FILE *out, const char *metric, const struct mc_pair *p,
		      size_t n, const struct mc_tally *t)
{
	const char *cas = NULL;
	double allow = allowed(p, n);

	fprintf(out,
		"%s per pair of hosts, B / A: the ratio of the medians of "
		"the runs, [95%% bootstrap interval]\n",
		metric);
	if (allow >= 0)
		fprintf(out,
			"one file a side: allowing ±%.0f%% for drift between "
			"invocations (--drift PCT to change it)\n",
			allow);
	for (size_t i = 0; i < n; i++) {
		if (!cas || strcmp(cas, p[i].a->cas)) {
			cas = p[i].a->cas;
			fprintf(out, "\n%s\n", cas);
		}
		fprintf(out, "  %s -> %s: ", p[i].a->from, p[i].a->to);
		if (p[i].compared && p[i].v.have_ci)
			fprintf(out, "%.3f [%.3f, %.3f] ", p[i].cmp.ratio,
				p[i].v.lo, p[i].v.hi);
		else if (p[i].compared && p[i].cmp.have_ratio)
			fprintf(out, "%.3f ", p[i].cmp.ratio);
		fprintf(out, "%s", mx_pair_verdict(&p[i]));
		if (p[i].failed_b && p[i].b->error)
			fprintf(out, ": %s", p[i].b->error);
		fputc('\n', out);
	}
	fprintf(out, "\n%zu pairs compared: %zu slower, %zu failed in B", n,
		t->slower, t->failed);
	if (t->only_a || t->only_b)
		fprintf(out, "; %zu only in A, %zu only in B", t->only_a,
			t->only_b);
	fputc('\n', out);
	for (size_t i = 0; i < n; i++)
		if (mx_pair_worse(&p[i]))
			fprintf(out, "  %s: %s -> %s (%s)\n",
				mx_pair_verdict(&p[i]), p[i].a->from,
				p[i].a->to, p[i].a->cas);
}

int ipc_mx_compare(FILE *out, const struct ipc_mx_doc *a,
		   const struct ipc_mx_doc *b, const struct ipc_cmp_opts *o,
		   const char *format, size_t *gates)
{
	struct mc_pair *pairs = calloc(a->n + 1, sizeof(*pairs));
	struct mc_tally t;
	size_t n = 0;
	int err;

	*gates = 0;
	if (!pairs)
		return -ENOMEM;
	err = mx_judge(a, b, o, pairs, &n);
	mx_tally(a, b, pairs, n, &t);
	*gates = t.gates;
	if (!err && !strcmp(format, "json"))
		err = mx_cmp_write_json(out, a->metric, pairs, n, *gates > 0);
	else if (!err)
		put_table(out, a->metric, pairs, n, &t);
	free(pairs);
	if (!err && ferror(out))
		err = -EIO;
	return err;
}

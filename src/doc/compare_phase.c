/* SPDX-License-Identifier: MIT */
/*
 * compare by phase: where every file of both sides explained a case
 * (--explain), each phase's time per round trip in A and in B, and with
 * two files or more a side the verdict of ipc_judge on the files' values,
 * as for the headline (the threshold and drift rules alike).  One file a
 * side gives one value a side: the difference is shown, not judged.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "doc/lib_internal.h"
#include "stats/lib_internal.h"

/* The same seed as the headline's, so the same files give the same. */
#define PHASE_SEED 0x6970637065726632ull
#define NAMES (IPC_XSIDES * IPC_XPHASES + 1)

/* Is every one of @k's results explained?  Else why not, into @why. */
static bool explained(const struct ccase *k, const char *side, char *why,
		      size_t len)
{
	for (size_t i = 0; i < k->ninv; i++) {
		const struct ipc_explain_result *x = k->inv[i]->explain;

		if (!x || !x->available || !x->nphases) {
			snprintf(why, len,
				 "%s %s not explained%s%.120s: no phase "
				 "compared",
				 side, k->ninv > 1 ? "has a file" : "was",
				 x && !x->available ? ": " : "",
				 x && !x->available ? x->why : "");
			return false;
		}
	}
	return true;
}

/* Phase @name's time in each of @k's files into @v (0 where absent). */
static void values(const struct ccase *k, const char *name, double *v)
{
	char n[48];

	for (size_t i = 0; i < k->ninv; i++) {
		const struct ipc_explain_result *x = k->inv[i]->explain;

		v[i] = 0;
		for (size_t j = 0; j < x->nphases; j++) {
			snprintf(n, sizeof(n), "%s %s", x->phases[j].side,
				 x->phases[j].name);
			if (!strcmp(n, name))
				v[i] += x->phases[j].ns;
		}
	}
}

/* Every phase either side has, in the order first met, into @p. */
static void names(struct cpair *p, struct cphase *out)
{
	const struct ccase *side[2] = {p->a, p->b};
	char n[48];
	size_t s, i, j, k;

	for (s = 0; s < 2; s++)
		for (i = 0; i < side[s]->ninv; i++) {
			const struct ipc_explain_result *x =
				side[s]->inv[i]->explain;

			for (j = 0; j < x->nphases && p->nphases < NAMES; j++) {
				snprintf(n, sizeof(n), "%s %s",
					 x->phases[j].side, x->phases[j].name);
				for (k = 0; k < p->nphases; k++)
					if (!strcmp(out[k].name, n))
						break;
				if (k == p->nphases)
					memcpy(out[p->nphases++].name, n,
					       sizeof(n));
			}
		}
}

/* Was any of @k's results explained? */
static bool any(const struct ccase *k)
{
	for (size_t i = 0; i < k->ninv; i++)
		if (k->inv[i]->explain && k->inv[i]->explain->available)
			return true;
	return false;
}

int cmp_phases(const struct ipc_comparison *c, struct cpair *p)
{
	const struct ipc_cmp_opts *o = &c->opts;
	size_t ka = p->a->ninv, kb = p->b->ninv, *ones, i;
	bool judge = ka >= 2 && kb >= 2;
	double *va, *vb;
	int err = 0;

	if (!any(p->a) && !any(p->b))
		return 0;
	if (!explained(p->a, "A", p->phase_note, sizeof(p->phase_note)) ||
	    !explained(p->b, "B", p->phase_note, sizeof(p->phase_note)))
		return 0;
	p->phases = calloc(NAMES, sizeof(*p->phases));
	va = calloc(ka + kb, sizeof(*va));
	ones = calloc(ka + kb, sizeof(*ones));
	if (!p->phases || !va || !ones) {
		free(p->phases);
		p->phases = NULL;
		free(va);
		free(ones);
		return -ENOMEM;
	}
	vb = va + ka;
	for (i = 0; i < ka + kb; i++)
		ones[i] = 1;
	names(p, p->phases);
	for (i = 0; !err && i < p->nphases; i++) {
		struct cphase *ph = &p->phases[i];

		values(p->a, ph->name, va);
		values(p->b, ph->name, vb);
		/* Each file is one invocation of one value: its median. */
		err = ipc_compare_nested(va, ones, ka, vb, ones + ka, kb, 0.95,
					 PHASE_SEED, &ph->cmp);
		ph->a_ns = ka == 1 ? va[0] : ph->cmp.median_a;
		ph->b_ns = kb == 1 ? vb[0] : ph->cmp.median_b;
		if (!err && judge) {
			ipc_judge(&ph->cmp, false, o->threshold_pct,
				  o->drift_set ? o->drift_pct : -1, &ph->v);
			ph->judged = true;
		}
	}
	if (!judge)
		snprintf(p->phase_note, sizeof(p->phase_note),
			 "one file %s: each phase's difference is shown, not "
			 "judged (two files or more a side judge it)",
			 ka == 1 && kb == 1 ? "a side" : "on a side");
	free(va);
	free(ones);
	return err;
}

double cmp_phase_diff(const struct cphase *ph)
{
	return ph->b_ns - ph->a_ns;
}

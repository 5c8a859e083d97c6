/* SPDX-License-Identifier: MIT */
/*
 * Comparing two result documents: match their cases by parameters, and
 * for each pair say whether B is faster, slower or not significantly
 * different from A, with the ratio of the medians of the per-run values,
 * its bootstrap interval, and the Mann-Whitney p-value.
 *
 *   A: rr pipe req=1, rr pipe req=64        B: rr tcp req=1, rr tcp req=64
 *   transport is one value in each file and differs: it is what is compared,
 *   so the cases match by the rest:  req=1 <-> req=1,  req=64 <-> req=64
 *
 * The keys are the pattern, transport, engine, framing and link of a case
 * and the parameters its pattern names it by, as the descriptions say.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "figures.h"
#include "doc/lib_internal.h"
#include "pattern/lib_internal.h"
#include "stats/lib_internal.h"
#include "run/lib_internal.h"

/* A fixed seed: the same two files always give the same interval. */
#define CMP_SEED 0x6970637065726631ull

bool ipc_compare_metric_ok(const char *word)
{
	return ipc_metric_find_word(word) != NULL;
}

/* The index of key @name, added when new; -1 when the table is full. */
static int key_index(struct ipc_comparison *c, const char *name)
{
	for (size_t i = 0; i < c->nkeys; i++)
		if (!strcmp(c->keys[i], name))
			return (int)i;
	if (c->nkeys == CMP_MAXKEYS)
		return -1;
	c->keys[c->nkeys] = name;
	return (int)c->nkeys++;
}

/* The fixed keys, then every registered pattern's parameters in words. */
static void keys_init(struct ipc_comparison *c)
{
	static const char *const fixed[CK_FIXED] = {
		[CK_PATTERN] = "pattern", [CK_TRANSPORT] = "transport",
		[CK_ENGINE] = "engine",	  [CK_FRAMING] = "framing",
		[CK_LINK] = "link",	  [CK_CPUS] = "cpus",
	};

	for (int i = 0; i < CK_FIXED; i++)
		c->keys[c->nkeys++] = fixed[i];
	for (size_t i = 0; ipc_patterns[i]; i++)
		for (const struct ipc_param *p = ipc_patterns[i]->params;
		     p && p->key; p++)
			if (p->word)
				key_index(c, p->key);
}

/* Set key @k of @cc to @v (a copy). */
static int set_key(struct ccase *cc, int k, const char *v)
{
	if (k < 0)
		return 0;
	free(cc->key[k]);
	cc->key[k] = strdup(v ? v : "");
	return cc->key[k] ? 0 : -ENOMEM;
}

/* The keys of one case: its parameters as numbers or text. */
static int case_keys(struct ipc_comparison *c, struct ccase *cc)
{
	const struct ipc_case *cs = &cc->res->cs;
	char v[96];
	int err = 0;

	for (int k = 0; k < CMP_MAXKEYS && !err; k++)
		err = set_key(cc, k, "");
	err = err ?: set_key(cc, CK_PATTERN, cs->pat->name);
	err = err ?: set_key(cc, CK_TRANSPORT, cs->tp ? cs->tp->name : "?");
	err = err ?: set_key(cc, CK_ENGINE, cs->eng ? cs->eng->name : "?");
	if (cs->pat->flags & IPC_PAT_FRAMED)
		err = err
			      ?: set_key(cc, CK_FRAMING,
					 cs->framing ? cs->framing->name
						     : "raw");
	err = err ?: set_key(cc, CK_LINK, cs->link ? cs->link->name : "none");
	err = err
		      ?: set_key(cc, CK_CPUS,
				 cs->place.cpus == IPC_CPUS_ONE	  ? "1"
				 : cs->place.cpus == IPC_CPUS_TWO ? "2"
								  : "any");
	for (const struct ipc_param *p = cs->pat->params; p && p->key && !err;
	     p++) {
		if (!p->word)
			continue;
		if (ipc_param_is_number(p))
			snprintf(v, sizeof(v), "%llu",
				 (unsigned long long)ipc_param_u64(cs, p));
		else
			snprintf(v, sizeof(v), "%s",
				 ipc_param_str(cs, p) ?: "");
		err = set_key(cc, key_index(c, p->key), v);
	}
	return err;
}

/* Do two cases of one side have the same value in every key? */
static bool same_keys(const struct ipc_comparison *c, const struct ccase *x,
		      const struct ccase *y)
{
	for (size_t k = 0; k < c->nkeys; k++)
		if (strcmp(x->key[k], y->key[k]))
			return false;
	return true;
}

static void case_free(struct ccase *cc)
{
	for (size_t k = 0; k < CMP_MAXKEYS; k++)
		free(cc->key[k]);
	free(cc->inv);
}

/*
 * Result @res of document @d joins the case of side @s with the same
 * keys that has none from @d yet: another invocation of it.  Otherwise it
 * is a new case.
 */
static int side_add(struct ipc_comparison *c, struct cside *s, size_t d,
		    const struct ipc_result *res)
{
	struct ccase tmp = {.res = res, .doc = d}, *cc = NULL;
	const struct ipc_result **inv;
	bool measured = res->status != IPC_STATUS_ERROR && res->nruns > 0;
	int err = case_keys(c, &tmp);

	for (size_t i = 0; !err && i < s->n && !cc; i++)
		if (s->cases[i].doc != d && same_keys(c, &s->cases[i], &tmp))
			cc = &s->cases[i];
	if (!err && !cc && s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct ccase *n = reallocarray(s->cases, cap, sizeof(*n));

		if (!n)
			err = -ENOMEM;
		else
			s->cases = n, s->cap = cap;
	}
	if (err) {
		case_free(&tmp);
		return err;
	}
	if (!cc) {
		cc = &s->cases[s->n++];
		*cc = tmp;
	} else {
		case_free(&tmp);
		cc->doc = d;
	}
	if (!measured)
		return 0;
	inv = reallocarray(cc->inv, cc->ninv + 1, sizeof(*inv));
	if (!inv)
		return -ENOMEM;
	cc->inv = inv;
	cc->inv[cc->ninv++] = res;
	cc->measured = true;
	return 0;
}

static int side_init(struct ipc_comparison *c, struct cside *s,
		     const struct ipc_doc *const *docs, size_t ndocs)
{
	int err = 0;

	s->docs = docs;
	s->ndocs = ndocs;
	for (size_t d = 0; d < ndocs && !err; d++)
		for (size_t i = 0; i < docs[d]->nresults && !err; i++)
			err = side_add(c, s, d, docs[d]->results[i]);
	return err;
}

/* A value the words leave out: the default engine, framing, link. */
static bool key_is_default(size_t k, const char *v)
{
	return (k == CK_ENGINE && !strcmp(v, "blocking")) ||
	       (k == CK_FRAMING && !strcmp(v, "raw")) ||
	       (k == CK_LINK && !strcmp(v, "none")) ||
	       (k == CK_CPUS && !strcmp(v, "any"));
}

void cmp_label(const struct ipc_comparison *c, const struct ccase *k, bool skip,
	       char *buf, size_t len)
{
	const struct ipc_case *cs = &k->res->cs;
	char w[96];
	int ki;

	buf[0] = '\0';
	for (size_t i = 0; i < CK_FIXED; i++) {
		if ((skip && c->skip[i]) || !k->key[i][0] ||
		    key_is_default(i, k->key[i]) || i >= CK_FRAMING)
			continue;
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
			 buf[0] ? " " : "", k->key[i]);
	}
	for (const struct ipc_param *p = cs->pat->params; p && p->key; p++) {
		if (!ipc_param_in_words(cs, p))
			continue;
		for (ki = 0; ki < (int)c->nkeys && strcmp(c->keys[ki], p->key);
		     ki++)
			;
		if (skip && ki < (int)c->nkeys && c->skip[ki])
			continue;
		ipc_param_word(cs, p, w, sizeof(w));
		snprintf(buf + strlen(buf), len - strlen(buf), " %s%s%s",
			 p->word, p->word[0] ? "=" : "", w);
	}
	/* In the order of a case's words: cpus, framing, link. */
	for (size_t j = 0; j < 3; j++) {
		size_t i = j == 0 ? CK_CPUS : CK_FRAMING + j - 1;

		if (!(skip && c->skip[i]) && k->key[i][0] &&
		    !key_is_default(i, k->key[i]))
			snprintf(buf + strlen(buf), len - strlen(buf), " %s=%s",
				 c->keys[i], k->key[i]);
	}
}

/*
 * The keys that hold one value in all of A and another in all of B: what
 * the two files compare.  They are left out when matching cases.  The
 * pattern never is (p50s are not compared with throughputs).
 */
static void differing(struct ipc_comparison *c)
{
	const struct cside *a = &c->a, *b = &c->b;
	size_t i, k;

	if (!a->n || !b->n)
		return;
	for (k = CK_PATTERN + 1; k < c->nkeys; k++) {
		bool one = true;

		for (i = 1; one && i < a->n; i++)
			one = !strcmp(a->cases[i].key[k], a->cases[0].key[k]);
		for (i = 1; one && i < b->n; i++)
			one = !strcmp(b->cases[i].key[k], b->cases[0].key[k]);
		c->skip[k] =
			one && strcmp(a->cases[0].key[k], b->cases[0].key[k]);
	}
}

static bool same_case(const struct ipc_comparison *c, const struct ccase *x,
		      const struct ccase *y)
{
	for (size_t k = 0; k < c->nkeys; k++)
		if (!c->skip[k] && strcmp(x->key[k], y->key[k]))
			return false;
	return true;
}

/* The metric a pair is compared by: the one asked for, or A's own. */
static const struct ipc_metric *metric_of(const struct ipc_comparison *c,
					  const struct ipc_result *a)
{
	const struct ipc_metric *m =
		c->opts.metric ? ipc_metric_find_word(c->opts.metric) : NULL;

	if (!m)
		return ipc_result_metric(a);
	if (m->higher_better)
		return ipc_result_metric_as(a, a->cs.pat->rate);
	return m;
}

/*
 * The per-run values of @m in every invocation of @cc, one invocation
 * after another, with *n[i] runs in invocation i; *missing counts the
 * runs lacking the value.  NULL when memory ran out.
 */
static double *run_values(const struct ccase *cc, const struct ipc_metric *m,
			  size_t **n, size_t *missing)
{
	size_t all = 0, at = 0;
	double *x;

	for (size_t i = 0; i < cc->ninv; i++)
		all += cc->inv[i]->nruns;
	x = malloc((all ? all : 1) * sizeof(*x));
	*n = malloc((cc->ninv ? cc->ninv : 1) * sizeof(**n));
	*missing = 0;
	if (!x || !*n) {
		free(x);
		free(*n);
		*n = NULL;
		return NULL;
	}
	for (size_t i = 0; i < cc->ninv; i++) {
		const struct ipc_result *res = cc->inv[i];

		(*n)[i] = res->nruns;
		for (size_t r = 0; r < res->nruns; r++, at++) {
			x[at] = ipc_result_value(res, &res->runs[r], m->src);
			*missing += !isfinite(x[at]);
		}
	}
	return x;
}

/* "bimodal, load": the flags a case's results were written with. */
static size_t flag_list(const struct ccase *cc, char *buf, size_t len)
{
	unsigned flags = 0;
	size_t n = 0;

	for (size_t i = 0; i < cc->ninv; i++)
		flags |= cc->inv[i]->diag.flags;
	buf[0] = '\0';
	/* Unstable only says the spread is wide; the test sees that. */
	for (int k = 0; k < IPC_FLAG_COUNT && n < len; k++)
		if ((flags & (1u << k)) && k != IPC_FLAG_UNSTABLE)
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
					      n ? ", " : "", ipc_flag_name(k));
	return n;
}

/*
 * A verdict between results that ipcperf flagged rests on runs that were
 * not alike (another load, two placements): say so next to it.
 */
static void flagged(const struct cpair *p, char *note, size_t len)
{
	char fa[64], fb[64];
	size_t na = flag_list(p->a, fa, sizeof(fa));
	size_t nb = flag_list(p->b, fb, sizeof(fb));

	if (!na && !nb)
		return;
	snprintf(note, len,
		 "%s%s%s%s%s: the runs may reflect the machine "
		 "more than what was measured",
		 na ? "A flagged " : "", fa, na && nb ? "; " : "",
		 nb ? "B flagged " : "", fb);
}

/*
 * Samples of @p's pattern made of several messages (IPC_EXTRA_PER): how
 * many, when A and B agree on it, so that the difference can be given
 * per message too.
 */
static void per_message(struct cpair *p)
{
	const struct ipc_pattern_ops *pat = p->a->res->cs.pat;
	size_t n = ipc_pattern_nextras(pat);

	for (size_t k = 0; k < n; k++) {
		double a = p->a->res->summary.extra[k];
		double b = p->b->res->summary.extra[k];

		if (!(pat->extras[k].flags & IPC_EXTRA_PER) || !isfinite(a) ||
		    a != b || a < 1 || p->b->res->cs.pat != pat)
			continue;
		p->per = a;
		p->per_word =
			pat->extras[k].per ? pat->extras[k].per : "message";
	}
}

/* Why a pair has no verdict, or what to know about the one it has. */
static void note(const struct ipc_comparison *c, struct cpair *p, size_t ma,
		 size_t mb)
{
	const struct ipc_cmp *m = &p->cmp;
	double alpha = 1 - m->level;

	if (!m->na || !m->nb)
		snprintf(p->note, sizeof(p->note), "no %s in %s",
			 p->metric->word, m->na ? "B" : "A");
	else if (ma || mb)
		/* A run without the figure is not silently left out. */
		snprintf(p->note, sizeof(p->note),
			 "%zu of %zu runs in %s have no %s; compared without "
			 "them",
			 ma ? ma : mb, ma ? m->na + ma : m->nb + mb,
			 ma ? "A" : "B", p->metric->name);
	else if (!m->have_ratio)
		snprintf(p->note, sizeof(p->note), "A's median is 0: no ratio");
	else if (p->v.basis == IPC_BASIS_INVOCATIONS && p->v.p_min >= alpha)
		snprintf(p->note, sizeof(p->note),
			 "too few invocations to tell (%zu and %zu: p is at "
			 "least %.2g, never below %.2g; 4 files a side can "
			 "tell)",
			 m->ka, m->kb, p->v.p_min, alpha);
	else if (p->v.p_min >= alpha)
		snprintf(p->note, sizeof(p->note),
			 "too few runs to tell (%zu and %zu: p is at least "
			 "%.2g, never below %.2g)",
			 m->na, m->nb, p->v.p_min, alpha);
	else if (p->v.verdict == IPC_VERDICT_UNDECIDED)
		snprintf(p->note, sizeof(p->note),
			 "the runs differ (%+.1f%%, p %.2g), but with one file "
			 "a side the drift between invocations was not "
			 "measured and could explain it (allowing ±%.0f%% for "
			 "it): give several files a side (A1 A2 ... -- B1 B2 "
			 "...) or --drift PCT",
			 p->v.change_pct, p->v.p, p->v.allow_pct);
	else if ((p->v.differ ||
		  (p->v.basis == IPC_BASIS_ALLOWED && p->v.runs_differ)) &&
		 !p->v.beyond)
		snprintf(p->note, sizeof(p->note),
			 "significant but within the ±%g%% threshold",
			 c->opts.threshold_pct);
	else if (p->v.basis == IPC_BASIS_WIDENED && p->v.drift > 0)
		snprintf(p->note, sizeof(p->note),
			 "interval widened by a drift of ±%.1f%% between "
			 "invocations (%s)",
			 ipc_drift_pct(p->v.drift),
			 p->v.src == IPC_DRIFT_GIVEN ? "--drift"
			 : m->drift_a >= 0	     ? "measured on A's files"
						     : "measured on B's files");
}

static int judge(const struct ipc_comparison *c, struct cpair *p)
{
	const struct ipc_cmp_opts *o = &c->opts;
	size_t ma, mb, *ca, *cb;
	double *xa, *xb;
	int err;

	p->metric = metric_of(c, p->a->res);
	xa = run_values(p->a, p->metric, &ca, &ma);
	xb = run_values(p->b, p->metric, &cb, &mb);
	err = xa && xb ? 0 : -ENOMEM;
	if (!err)
		err = ipc_compare_nested(xa, ca, p->a->ninv, xb, cb, p->b->ninv,
					 0.95, CMP_SEED, &p->cmp);
	free(xa);
	free(xb);
	free(ca);
	free(cb);
	if (err)
		return err;
	per_message(p);
	ipc_judge(&p->cmp, p->metric->higher_better, o->threshold_pct,
		  o->drift_set ? o->drift_pct : -1, &p->v);
	note(c, p, ma, mb);
	if (!p->note[0])
		flagged(p, p->note, sizeof(p->note));
	err = cmp_phases(c, p);
	if (err)
		return err;
	p->gate = o->fail_set && p->v.verdict == IPC_VERDICT_SLOWER &&
		  fabs(p->v.change_pct) >= o->fail_pct;
	return 0;
}

static void side_free(struct cside *s)
{
	for (size_t i = 0; s->cases && i < s->n; i++)
		case_free(&s->cases[i]);
	free(s->cases);
}

void ipc_comparison_free(struct ipc_comparison *c)
{
	if (!c)
		return;
	side_free(&c->a);
	side_free(&c->b);
	for (size_t i = 0; c->pairs && i < c->npairs; i++)
		free(c->pairs[i].phases);
	free(c->pairs);
	free(c->owned);
	free(c);
}

size_t ipc_comparison_gates(const struct ipc_comparison *c)
{
	if (!c)
		return 0;
	return c->gates + (c->opts.fail_set ? c->uncompared : 0);
}

int ipc_compare_sets(const struct ipc_doc *const *a, size_t na,
		     const struct ipc_doc *const *b, size_t nb,
		     const struct ipc_cmp_opts *o, struct ipc_comparison **out)
{
	struct ipc_comparison *c = calloc(1, sizeof(*c));
	size_t i, j;
	int err;

	if (!c)
		return -ENOMEM;
	c->opts = *o;
	keys_init(c);
	err = side_init(c, &c->a, a, na);
	err = err ?: side_init(c, &c->b, b, nb);
	if (!err) {
		c->pairs = calloc(c->a.n ? c->a.n : 1, sizeof(*c->pairs));
		err = c->pairs ? 0 : -ENOMEM;
	}
	if (err) {
		ipc_comparison_free(c);
		return err;
	}
	differing(c);
	for (i = 0; i < c->a.n; i++) {
		struct ccase *x = &c->a.cases[i], *y = NULL;

		for (j = 0; j < c->b.n && !y; j++)
			if (!c->b.cases[j].used &&
			    same_case(c, x, &c->b.cases[j]))
				y = &c->b.cases[j];
		/* Counted, so that a gate cannot pass on what it never saw. */
		c->uncompared += !y || !x->measured || !y->measured;
		if (!y)
			continue;
		x->used = y->used = true;
		if (!x->measured || !y->measured)
			continue;
		c->pairs[c->npairs].a = x;
		c->pairs[c->npairs].b = y;
		err = judge(c, &c->pairs[c->npairs]);
		if (err) {
			ipc_comparison_free(c);
			return err;
		}
		c->uncompared += !c->pairs[c->npairs].cmp.na ||
				 !c->pairs[c->npairs].cmp.nb;
		c->gates += c->pairs[c->npairs].gate;
		c->npairs++;
	}
	if (!c->npairs) {
		ipc_comparison_free(c);
		return -ENOENT;
	}
	*out = c;
	return 0;
}

int ipc_compare(const struct ipc_doc *a, const struct ipc_doc *b,
		const struct ipc_cmp_opts *o, struct ipc_comparison **out)
{
	/* The documents' addresses must outlive the comparison too. */
	struct ipc_comparison *c = NULL;
	const struct ipc_doc **pa = malloc(2 * sizeof(*pa));
	int err;

	if (!pa)
		return -ENOMEM;
	pa[0] = a;
	pa[1] = b;
	err = ipc_compare_sets(pa, 1, pa + 1, 1, o, &c);
	if (err) {
		free(pa);
		return err;
	}
	c->owned = pa;
	*out = c;
	return 0;
}

struct cmp_diff cmp_pair_diff(const struct cpair *p, bool per_message)
{
	struct cmp_diff d = {0};
	double per = per_message ? p->per : 1;

	if (!p->cmp.na || !p->cmp.nb || !(per > 0))
		return d;
	d.have = true;
	d.diff = per_message ? p->cmp.diff / per : p->cmp.diff;
	if (!p->cmp.have_diff_ci)
		return d;
	d.have_ci = true;
	d.lo = per_message ? p->v.dlo / per : p->v.dlo;
	d.hi = per_message ? p->v.dhi / per : p->v.dhi;
	return d;
}

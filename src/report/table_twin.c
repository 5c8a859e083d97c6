/* SPDX-License-Identifier: MIT */
/*
 * Under a table: what an option that ran each case twice changed, case
 * by case (stream --zerocopy: the sender's CPU and what the kernel copied
 * after all; rr --under-load: the latency with the load against without).
 * The figures are the two results' own, set side by side in words.
 */
#include <math.h>
#include <string.h>

#include "table.h"
#include "run/lib_internal.h"

/* @cs without the option it ran with. */
static struct ipc_case plain(const struct ipc_case *cs)
{
	struct ipc_case p = *cs;

	p.zerocopy = 0;
	p.under_load = 0;
	return p;
}

/* The row measured as @t's case without its option, or NULL. */
static const struct trow *twin_of(const struct trow *t,
				  const struct trow *const *rows, size_t n)
{
	struct ipc_case p = plain(&t->res.cs);
	char want[160], got[160];

	ipc_case_describe(&p, want, sizeof(want));
	for (size_t i = 0; i < n; i++) {
		if (rows[i] == t || rows[i]->res.cs.zerocopy ||
		    rows[i]->res.cs.under_load || !tab_measured(rows[i]) ||
		    rows[i]->res.cs.place.cpus != t->res.cs.place.cpus)
			continue;
		if (!strcmp(ipc_case_describe(&rows[i]->res.cs, got,
					      sizeof(got)),
			    want))
			return rows[i];
	}
	return NULL;
}

/* The summary's extra called @key, NAN when the pattern has none. */
static double extra(const struct ipc_result *r, const char *key)
{
	const struct ipc_extra *e = r->cs.pat ? r->cs.pat->extras : NULL;

	for (size_t k = 0; e && e[k].key; k++)
		if (!strcmp(e[k].key, key))
			return r->summary.extra[k];
	return NAN;
}

static double pct(double a, double b)
{
	return b > 0 ? (a - b) * 100 / b : NAN;
}

static void zc_note(struct tab_out *out, const struct ipc_result *r,
		    const struct ipc_result *o, const char *what)
{
	const struct ipc_cost *a = &r->diag.client, *b = &o->diag.client;
	double copied = extra(r, "zc_copied"), done = extra(r, "zc_completed");
	char x[32], y[32];

	tab_printf(out, "%s: ", what);
	if (a->valid && b->valid)
		tab_printf(out,
			   "sender CPU %s per message against %s copying "
			   "(%+.0f%%)",
			   ipc_fmt_ns(a->user_ns + a->sys_ns, x, sizeof(x)),
			   ipc_fmt_ns(b->user_ns + b->sys_ns, y, sizeof(y)),
			   pct(a->user_ns + a->sys_ns, b->user_ns + b->sys_ns));
	else
		tab_printf(out, "sender CPU not measured");
	if (isfinite(copied) && isfinite(done))
		tab_printf(out,
			   "; the kernel copied %.0f of %.0f completed sends "
			   "after all%s",
			   copied, done,
			   copied && r->cs.tp && (r->cs.tp->caps & IPC_TP_NET)
				   ? " (it does on loopback)"
				   : "");
	tab_puts(out, "\n");
}

static void load_note(struct tab_out *out, const struct ipc_result *r,
		      const struct ipc_result *o, const char *what)
{
	const struct ipc_lat *a = &r->summary.lat, *b = &o->summary.lat;
	char x[4][32], bps[32];

	tab_printf(out,
		   "%s: pooled p50 %s against %s without the load (%+.0f%%), "
		   "p99 %s "
		   "against %s (%+.0f%%); the streams moved %s\n",
		   what, ipc_fmt_ns((double)a->p50, x[0], sizeof(x[0])),
		   ipc_fmt_ns((double)b->p50, x[1], sizeof(x[1])),
		   pct((double)a->p50, (double)b->p50),
		   ipc_fmt_ns((double)a->p99, x[2], sizeof(x[2])),
		   ipc_fmt_ns((double)b->p99, x[3], sizeof(x[3])),
		   pct((double)a->p99, (double)b->p99),
		   ipc_fmt_bps(extra(r, "load_bytes_per_s"), bps, sizeof(bps)));
}

void tab_twin_notes(struct tab_out *out, const struct trow *const *rows,
		    size_t n)
{
	const struct trow *o;
	char what[160];

	for (size_t i = 0; i < n; i++) {
		const struct ipc_result *r = &rows[i]->res;

		if ((!r->cs.zerocopy && !r->cs.under_load) ||
		    !tab_measured(rows[i]) || !(o = twin_of(rows[i], rows, n)))
			continue;
		ipc_case_describe(&r->cs, what, sizeof(what));
		if (r->cs.zerocopy)
			zc_note(out, r, &o->res, what);
		else
			load_note(out, r, &o->res, what);
	}
}

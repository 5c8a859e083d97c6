/* SPDX-License-Identifier: MIT */
/*
 * Under a table: what an option that ran each case twice changed, case
 * by case (stream --zerocopy: the sender's CPU and what the kernel copied
 * after all; rr --under-load: the latency with the load against without).
 * The figures are the two results' own, set side by side in words
 * (doc/twin.c finds the pair and works out what changed).
 */
#include <math.h>

#include "doc/twin.h"
#include "table.h"
#include "run/lib_internal.h"

/* The row measured as @t's case without its option, or NULL. */
static const struct trow *twin_of(const struct trow *t,
				  const struct trow *const *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (tab_measured(rows[i]) &&
		    ipc_twin_is(&t->res, &rows[i]->res))
			return rows[i];
	return NULL;
}

static void zc_note(struct tab_out *out, const struct ipc_result *r,
		    const struct ipc_twin *tw, const char *what)
{
	static const char *const who[] = {
		[IPC_TWIN_CLIENT] = "sender",
		[IPC_TWIN_PEER] = "sender (the peer)",
		[IPC_TWIN_BOTH] = "both senders'",
	};
	char x[32], y[32];

	tab_printf(out, "%s: ", what);
	if (isfinite(tw->cpu) && isfinite(tw->cpu_plain))
		tab_printf(out,
			   "%s CPU %s per message against %s copying "
			   "(%+.0f%%)",
			   who[tw->sender], ipc_fmt_ns(tw->cpu, x, sizeof(x)),
			   ipc_fmt_ns(tw->cpu_plain, y, sizeof(y)),
			   tw->cpu_pct);
	else
		tab_printf(out, "%s CPU not measured", who[tw->sender]);
	if (isfinite(tw->copied) && isfinite(tw->completed))
		tab_printf(out,
			   "; the kernel copied %.0f of %.0f completed sends "
			   "after all%s",
			   tw->copied, tw->completed,
			   tw->copied && r->cs.tp &&
					   (r->cs.tp->caps & IPC_TP_NET)
				   ? " (it does on loopback)"
				   : "");
	tab_puts(out, "\n");
}

static void load_note(struct tab_out *out, const struct ipc_twin *tw,
		      const char *what)
{
	char x[4][32], bps[32];

	tab_printf(out,
		   "%s: pooled p50 %s against %s without the load (%+.0f%%), "
		   "p99 %s "
		   "against %s (%+.0f%%); the streams moved %s\n",
		   what, ipc_fmt_ns(tw->p50, x[0], sizeof(x[0])),
		   ipc_fmt_ns(tw->p50_plain, x[1], sizeof(x[1])), tw->p50_pct,
		   ipc_fmt_ns(tw->p99, x[2], sizeof(x[2])),
		   ipc_fmt_ns(tw->p99_plain, x[3], sizeof(x[3])), tw->p99_pct,
		   ipc_fmt_bps(tw->load_bps, bps, sizeof(bps)));
}

void tab_twin_notes(struct tab_out *out, const struct trow *const *rows,
		    size_t n)
{
	const struct trow *o;
	struct ipc_twin tw;
	char what[160];

	for (size_t i = 0; i < n; i++) {
		const struct ipc_result *r = &rows[i]->res;

		if ((!r->cs.zerocopy && !r->cs.under_load) ||
		    !tab_measured(rows[i]) || !(o = twin_of(rows[i], rows, n)))
			continue;
		ipc_case_describe(&r->cs, what, sizeof(what));
		ipc_twin_figures(r, &o->res, &tw);
		if (r->cs.zerocopy)
			zc_note(out, r, &tw, what);
		else
			load_note(out, &tw, what);
	}
}

/* SPDX-License-Identifier: MIT */
/*
 * The side-by-side of --target with several stubs: the same cases against
 * each, printed after the results as a comparison of the first stub (A)
 * with each other (B), through the report layer's compare: the medians of
 * the per-run p50, their ratio and their difference with 95% bootstrap
 * intervals, and the difference per packet.  With --target ipcperf,
 * gdb://... that difference is what the real stub adds per packet.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_side_keep(struct cli_side *s, const struct ipc_result *res)
{
	struct ipc_result *k, **p;

	if (!res->cs.cfg)
		return 0;
	p = realloc(s->res, (s->n + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	s->res = p;
	k = malloc(sizeof(*k));
	if (!k)
		return -ENOMEM;
	*k = *res;
	k->hist = k->xhist = NULL;
	k->explain = NULL; /* the caller's, freed with it */
	k->runs = NULL;
	k->ivals = NULL; /* the caller's, freed with it */
	k->nivals = k->ivals_cap = 0;
	if (res->nruns) {
		k->runs = malloc(res->nruns * sizeof(*k->runs));
		if (!k->runs) {
			free(k);
			return -ENOMEM;
		}
		memcpy(k->runs, res->runs, res->nruns * sizeof(*k->runs));
	}
	k->runs_cap = k->nruns;
	s->res[s->n++] = k;
	return 0;
}

/* The kept results against @cfg's stub into @d (whose results it owns). */
static int side_doc(const struct cli_side *s, const struct ipc_stub_cfg *cfg,
		    const struct ipc_report_meta *meta, struct ipc_doc *d)
{
	memset(d, 0, sizeof(*d));
	d->results = calloc(s->n ? s->n : 1, sizeof(*d->results));
	if (!d->results)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++)
		if (s->res[i]->cs.cfg == cfg)
			d->results[d->nresults++] = s->res[i];
	d->path = cfg->target;
	d->meta = *meta;
	return 0;
}

/* Where @b's stub and ipcperf's ran, in one line: what B-A holds. */
static void placement_line(FILE *out, const struct cli_config *cfg,
			   const struct cli_target *b)
{
	if (b->own)
		return;
	if (!cli_loopback(b->hostport))
		fprintf(out,
			"placement: %s is on another host, so B-A holds "
			"the network's round trip as well as what the "
			"stub adds; like with like is two stubs on that "
			"host (both unpinned here)\n",
			b->cfg.target);
	else if (cfg->stub_cpu_set)
		fprintf(out,
			"placement: the stub on CPU %d as --stub-cpu says "
			"(%s), "
			"ipcperf's own on it too; the client on it (cpus=1) "
			"and beside it (cpus=2)\n",
			cfg->stub_cpu,
			b->stub_pid > 0 ? "its affinity checked"
					: "not checked: its process not seen");
	else if (cfg->pin == PIN_FIXED)
		fprintf(out,
			"placement: --pin %d,%d: ipcperf pinned its "
			"client and its own stub; the other stub's CPU "
			"%d is yours to have pinned (not checked)\n",
			cfg->ro.pin_client, cfg->ro.pin_server,
			cfg->ro.pin_server);
	else
		fprintf(out, "placement: both stubs at the scheduler's choice "
			     "(ipcperf does not place a stub it did not "
			     "start); pin it (taskset -c CPU gdbserver ...) "
			     "and give --stub-cpu CPU to measure both on one "
			     "CPU and on two\n");
}

int cli_side_print(const struct cli_side *s, const struct cli_config *cfg,
		   const struct ipc_report_meta *meta, FILE *out)
{
	const struct ipc_report_ops *ops = ipc_report_find(cfg->format);
	/*
	 * The stubs' runs were interleaved in the same invocation, so the
	 * machine's drift between invocations is no part of their
	 * difference: the runs are the whole variance (--drift 0).
	 */
	const struct ipc_cmp_opts o = {.threshold_pct = 1.0,
				       .drift_set = true,
				       .drift_pct = 0,
				       .version = IPCPERF_VERSION};
	struct ipc_doc a, b;
	int err = 0;

	/* One document per output: only the table adds a second part. */
	if (cfg->ntargets < 2 || !ops->compare || strcmp(ops->name, "table"))
		return 0;
	err = side_doc(s, &cfg->targets[0].cfg, meta, &a);
	for (size_t k = 1; !err && k < cfg->ntargets; k++) {
		struct ipc_comparison *c = NULL;

		err = side_doc(s, &cfg->targets[k].cfg, meta, &b);
		if (err)
			break;
		err = ipc_compare(&a, &b, &o, &c);
		if (!err) {
			fprintf(out, "\nside by side: %s (A) and %s (B)\n",
				a.path, b.path);
			placement_line(out, cfg, &cfg->targets[k]);
			err = ops->compare(out, c);
		} else if (err == -ENOENT) {
			fprintf(out,
				"\nside by side: %s and %s: no case measured "
				"against both\n",
				a.path, b.path);
			err = 0;
		}
		ipc_comparison_free(c);
		free(b.results);
	}
	free(a.results);
	return err;
}

void cli_side_free(struct cli_side *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->res[i]->runs);
		free(s->res[i]);
	}
	free(s->res);
	memset(s, 0, sizeof(*s));
}

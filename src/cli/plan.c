/* SPDX-License-Identifier: MIT */
/*
 * The plan: the configuration expanded into cases, transports x engines x
 * sizes, with whatever cannot run on this machine left out and said why.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "link/lib_internal.h"
#include "pattern/lib_internal.h"
#include "run/lib_internal.h"

#define MAX_NAMES 64

/* Split a comma list of names into @out; "all" gives every registered. */
static int names(const char *list, const char *what, const char *const *all,
		 const char **out, size_t *n)
{
	char buf[512], *tok, *save = NULL;
	char known[512] = "";

	*n = 0;
	if (!strcmp(list, "all")) {
		for (size_t i = 0; all[i] && *n < MAX_NAMES; i++)
			out[(*n)++] = all[i];
		return 0;
	}
	if (strlen(list) >= sizeof(buf))
		return usage_error(NULL, "--%s: list too long", what);
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; all[i]; i++)
			if (!strcmp(all[i], tok))
				break;
		if (!all[i]) {
			for (size_t k = 0; all[k]; k++) {
				strncat(known, k ? ", " : "",
					sizeof(known) - strlen(known) - 1);
				strncat(known, all[k],
					sizeof(known) - strlen(known) - 1);
			}
			return usage_error(known[0] ? known : NULL,
					   "unknown %s '%s'", what, tok);
		}
		for (size_t k = 0; k < *n; k++)
			if (out[k] == all[i])
				goto dup;
		if (*n < MAX_NAMES)
			out[(*n)++] = all[i];
dup:;
	}
	if (!*n)
		return usage_error(NULL, "--%s: empty list", what);
	return 0;
}

static int add_skip(struct cli_plan *p, const char *what, const char *why)
{
	struct ipc_skip *s;

	for (size_t i = 0; i < p->nskips; i++)
		if (!strcmp(p->skips[i].what, what))
			return 0;
	s = realloc(p->skips, (p->nskips + 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	p->skips = s;
	s = &p->skips[p->nskips++];
	snprintf(s->what, sizeof(s->what), "%s", what);
	snprintf(s->why, sizeof(s->why), "%s", why);
	return 0;
}

static int add_one(struct cli_plan *p, const struct ipc_case *cs)
{
	struct ipc_case *n;

	if (p->ncases % 64 == 0) {
		n = realloc(p->cases, (p->ncases + 64) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		p->cases = n;
	}
	p->cases[p->ncases++] = *cs;
	return 0;
}

/*
 * Does measuring @cs on one CPU and on two make sense?  Not when its
 * client is several threads (load --threads 2 all on one CPU would
 * measure the pinning): those keep the scheduler's choice unless --pin
 * says otherwise.
 */
static bool placeable(const struct ipc_case *cs)
{
	/* The other end on another host: one CPU or two means nothing. */
	return cs->threads <= 1 &&
	       !(cs->peer && (cs->peer->flags & IPC_PEER_ELSEWHERE));
}

/*
 * Does a side of @cs wait by spinning: a spinning engine, or shm with
 * --shm-wait spin?
 */
static bool spins(const struct ipc_case *cs, const struct ipc_runopts *ro)
{
	return (cs->eng->caps & IPC_ENG_SPINS) ||
	       (!strcmp(cs->tp->name, "shm") &&
		ro->tp.shm_wait == IPC_SHM_SPIN);
}

/* @cs once per placement of the plan, side by side. */
static int add_case(struct cli_plan *p, const struct ipc_case *cs,
		    const struct ipc_runopts *ro)
{
	struct ipc_case c = *cs;
	int err = 0;

	bool any = p->stubs == STUBS_ANY ||
		   (p->stubs == STUBS_NONE && !placeable(cs));

	/* A URL's server: recorded as not placed (--pin pins the client). */
	if (p->url) {
		c.place = (struct ipc_place){.cpus = IPC_CPUS_ANY, .smt = -1};
		return add_one(p, &c);
	}
	if (p->nplaces > 1 && any) {
		c.place = (struct ipc_place){.cpus = IPC_CPUS_ANY, .smt = -1};
		return add_one(p, &c);
	}
	for (size_t i = 0; !err && i < p->nplaces; i++) {
		c.place = p->places[i];
		if (p->nplaces > 1 && c.place.cpus == IPC_CPUS_ONE &&
		    spins(cs, ro)) {
			/* Chosen by us, not asked for: say why it is left. */
			char what[128];

			ipc_case_describe(&c, what, sizeof(what));
			err = add_skip(p, what,
				       "two sides that never sleep on one CPU "
				       "each spin out their time slice while "
				       "the other waits: measured on two CPUs "
				       "only (--pin same to insist)");
			continue;
		}
		err = add_one(p, &c);
	}
	return err;
}

/*
 * Where the sides run: by default, with two CPUs or more, each case
 * twice, on one CPU and on two (not SMT siblings where another core
 * exists); --pin's CPUs; or, with --pin none or one CPU, the scheduler's
 * choice.
 */
static void places(const struct cli_config *cfg, struct cli_plan *p)
{
	const struct ipc_runopts *ro = &cfg->ro;
	int cpu[2], smt;

	p->nplaces = 1;
	p->places[0] = (struct ipc_place){.cpus = IPC_CPUS_ANY, .smt = -1};
	if (cfg->pin == PIN_FIXED) {
		bool one = ro->pin_client == ro->pin_server;

		p->places[0] = (struct ipc_place){
			.cpus = one ? IPC_CPUS_ONE : IPC_CPUS_TWO,
			.client_cpu = ro->pin_client,
			.server_cpu = ro->pin_server,
			.smt = one ? -1
				   : ipc_cpus_siblings(ro->pin_client,
						       ro->pin_server),
		};
		return;
	}
	if (cfg->pin == PIN_NONE || ipc_cpus_pick(cpu, &smt) < 2)
		return;
	if (cfg->stub_cpu_set) {
		/* On the stub's CPU, and beside it: the user's, not ours. */
		int other = cpu[0] != cfg->stub_cpu ? cpu[0] : cpu[1];

		p->places[0] = (struct ipc_place){.cpus = IPC_CPUS_ONE,
						  .client_cpu = cfg->stub_cpu,
						  .server_cpu = cfg->stub_cpu,
						  .smt = -1};
		p->places[1] = (struct ipc_place){
			.cpus = IPC_CPUS_TWO,
			.client_cpu = other,
			.server_cpu = cfg->stub_cpu,
			.smt = ipc_cpus_siblings(other, cfg->stub_cpu)};
		p->nplaces = 2;
		return;
	}
	p->places[0] = (struct ipc_place){.cpus = IPC_CPUS_ONE,
					  .client_cpu = cpu[0],
					  .server_cpu = cpu[0],
					  .chosen = true,
					  .smt = -1};
	p->places[1] = (struct ipc_place){.cpus = IPC_CPUS_TWO,
					  .client_cpu = cpu[0],
					  .server_cpu = cpu[1],
					  .chosen = true,
					  .smt = smt};
	p->nplaces = 2;
}

void cli_case_opts(const struct cli_config *cfg, const struct ipc_case *cs,
		   struct ipc_runopts *ro)
{
	*ro = cfg->ro;
	ro->pin_client = cs->place.cpus ? cs->place.client_cpu : -1;
	ro->pin_server = cs->place.cpus ? cs->place.server_cpu : -1;
	/* A URL's server is where it is; ours, the client, as --pin says. */
	if (cfg->peer && cfg->pin == PIN_FIXED)
		ro->pin_client = cfg->ro.pin_client;
}

/* Add @cs unless it cannot run here (ipc_case_check says why). */
static int try_case(struct cli_plan *p, const struct ipc_case *cs,
		    const struct ipc_runopts *ro)
{
	char what[128], why[192];

	if (ipc_case_check(cs, ro, why, sizeof(why))) {
		ipc_case_describe(cs, what, sizeof(what));
		return add_skip(p, what, why);
	}
	return add_case(p, cs, ro);
}

/* The values of an option that lists them, which parameters sweep. */
struct sweep {
	const char *option; /* its long name */
	const uint64_t *v;
	size_t n;
};

/* The list of @option in @cfg into @out; false when it gives none. */
static bool sweep_of(const struct cli_config *cfg, const char *option,
		     struct sweep *out)
{
	const struct sweep all[] = {
		{"req", cfg->req.v, cfg->req.n},
		{"resp", cfg->resp.v, cfg->resp.n},
		{"size", cfg->size.v, cfg->size.n},
		{"count", cfg->count.v, cfg->count.n},
		{"total", &cfg->total, 1},
	};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(all[i].option, option)) {
			*out = all[i];
			return true;
		}
	return false;
}

/*
 * A udp stream's message when --size is not given: no 64 KiB datagram
 * crosses a network whole (it goes as some 45 IP fragments, and losing
 * one loses it), so the payload of one 1500-byte Ethernet frame, as
 * iperf3 -u sends.  0: the command's default holds (the quick suite
 * keeps 64 KiB everywhere, so that its column compares transports).
 */
static uint64_t frame_size(const struct cli_config *cfg,
			   const struct ipc_case *cs, const char *option)
{
	if (cfg->cmd != CMD_STREAM || (cfg->set & SET_SIZE) ||
	    strcmp(option, "size") || cs->pat != &ipc_pattern_stream ||
	    !(cs->tp->caps & IPC_TP_LOSSY))
		return 0;
	/* IP and udp headers: 20 + 8 over IPv4, 40 + 8 over IPv6. */
	return !strcmp(cs->tp->name, "udp6") ? 1500 - 48 : 1500 - 28;
}

/*
 * Every combination of the values the options give the parameters of
 * @cs's pattern, from @p on (the first one outermost), as a case each.
 */
static int sweep(const struct cli_config *cfg, const struct ipc_param *p,
		 struct ipc_case *cs, struct cli_plan *plan)
{
	struct sweep s;
	uint64_t frame;
	int err = 0;

	for (; p->key; p++)
		if (p->option && sweep_of(cfg, p->option, &s))
			break;
	if (p->key && (frame = frame_size(cfg, cs, p->option))) {
		ipc_param_set_u64(cs, p, frame);
		return sweep(cfg, p + 1, cs, plan);
	}
	if (!p->key)
		return try_case(plan, cs, &cfg->ro);
	for (size_t i = 0; !err && i < s.n; i++) {
		ipc_param_set_u64(cs, p, s.v[i]);
		err = sweep(cfg, p + 1, cs, plan);
	}
	return err;
}

/*
 * Each case as it is, then with --zerocopy or --under-load (cli_with), so
 * that the report sets what the option changes beside it.  A transport
 * named with -t that cannot take the option is bad usage; one that came
 * with -t all is left out, both ways.
 */
static int sweep_with(const struct cli_config *cfg, struct ipc_case *cs,
		      struct cli_plan *plan)
{
	struct ipc_case with = *cs;
	char what[128], why[192];
	int err, can = cli_with(cfg, &with, why, sizeof(why));

	if (!can)
		return sweep(cfg, cs->pat->params, cs, plan);
	if (can < 0 && (cfg->set & SET_TP))
		return usage_error(NULL, "%s", why);
	if (can < 0) {
		snprintf(what, sizeof(what), "%s %s", cs->pat->name,
			 cs->tp->name);
		return add_skip(plan, what, why);
	}
	err = sweep(cfg, cs->pat->params, cs, plan);
	return err ? err : sweep(cfg, with.pat->params, &with, plan);
}

/* Is a stub of --target elsewhere (gdb://), not ipcperf's own? */
static bool stubs_elsewhere(const struct cli_config *cfg)
{
	for (size_t k = 0; k < cfg->ntargets; k++)
		if (!cfg->targets[k].own)
			return true;
	return false;
}

static int expand(const struct cli_config *cfg,
		  const struct ipc_pattern_ops *pat,
		  const struct ipc_transport_ops *tp,
		  const struct ipc_engine_ops *eng, const struct ipc_link *link,
		  struct cli_plan *p)
{
	struct ipc_case cs = {.pat = pat, .tp = tp, .eng = eng, .link = link};
	int err = 0;

	if (cfg->remote) {
		cs.peer = &ipc_peer_remote;
		cs.target = cfg->remote_target;
		cs.peer_arg = &cfg->remote_opts;
	}
	cs.flows = cfg->flows;
	if (pat->cfg_size)
		cs.cfg = cfg->pat_cfg;
	cs.threads = (unsigned)cfg->threads;
	cs.rate = cfg->rate;
	cs.bitrate_bps = cfg->bitrate_bps;
	cs.streams = cfg->parallel > 1 ? cfg->parallel : 0;
	if (pat == &ipc_pattern_stream)
		cs.direction = cfg->direction;
	p->url = cfg->peer != NULL;
	if (cfg->peer) { /* a URL's server */
		cs.peer = cfg->peer;
		cs.target = cfg->target;
	}
	if (pat->flags & IPC_PAT_FRAMED) {
		cs.framing = cfg->framing;
		cs.framing_noack = cfg->no_ack;
	}
	p->stubs = !cfg->ntargets || !pat->cfg_size ? STUBS_NONE
		   : cfg->stub_cpu_set		    ? STUBS_TOLD
		   : stubs_elsewhere(cfg)	    ? STUBS_ANY
						    : STUBS_NONE;
	/* Each stub of --target, the same cases against each. */
	for (size_t k = 0; !err && k < (cfg->ntargets ? cfg->ntargets : 1);
	     k++) {
		if (cfg->ntargets && pat->cfg_size) {
			const struct cli_target *t = &cfg->targets[k];

			cs.cfg = &t->cfg;
			/* A stub elsewhere: nothing of ours at the other end. */
			cs.peer = t->own ? NULL : &ipc_peer_external;
			cs.target = t->own ? NULL : t->hostport;
		}
		if (!(pat->flags & IPC_PAT_TRACE)) {
			err = sweep_with(cfg, &cs, p);
			continue;
		}
		for (size_t i = 0; !err && i < cfg->ntraces; i++) {
			cs.trace = cfg->traces[i];
			err = sweep(cfg, pat->params, &cs, p);
		}
	}
	return err;
}

/* Each link of --link (or none), leaving out those @tp cannot carry. */
static int expand_links(const struct cli_config *cfg,
			const struct ipc_pattern_ops *pat,
			const struct ipc_transport_ops *tp,
			const struct ipc_engine_ops *eng, struct cli_plan *p)
{
	char what[128], why[192];
	int err = 0;

	if (!cfg->nlinks)
		return expand(cfg, pat, tp, eng, NULL, p);
	for (size_t i = 0; !err && i < cfg->nlinks; i++) {
		const struct ipc_link *l = &cfg->links[i];

		if (ipc_link_can_carry(l, tp, why, sizeof(why))) {
			snprintf(what, sizeof(what), "link %s on %s", l->name,
				 tp->name);
			err = add_skip(p, what, why);
			continue;
		}
		err = expand(cfg, pat, tp, eng, l, p);
	}
	return err;
}

int cli_plan_build(const struct cli_config *cfg, struct cli_plan *p)
{
	const char *tnames[MAX_NAMES], *enames[MAX_NAMES], *all_t[MAX_NAMES],
		*all_e[MAX_NAMES];
	const struct ipc_pattern_ops *pats[MAX_NAMES];
	size_t nt, ne, np = 0, i;
	char why[192], what[128];
	int err;

	memset(p, 0, sizeof(*p));
	places(cfg, p);
	for (i = 0; ipc_transports[i] && i + 1 < MAX_NAMES; i++)
		all_t[i] = ipc_transports[i]->name;
	all_t[i] = NULL;
	for (i = 0; ipc_engines[i] && i + 1 < MAX_NAMES; i++)
		all_e[i] = ipc_engines[i]->name;
	all_e[i] = NULL;
	err = names(cfg->transports, "transport", all_t, tnames, &nt);
	if (!err)
		err = names(cfg->engines, "engine", all_e, enames, &ne);
	if (err)
		return EXIT_USAGE;
	if (cfg->cmd == CMD_SUITE) {
		/* The patterns that describe their part in the suite. */
		for (i = 0; ipc_patterns[i] && np < MAX_NAMES; i++)
			if (ipc_patterns[i]->suite)
				pats[np++] = ipc_patterns[i];
	} else if (cfg->ntargets && cfg->cmd == CMD_RR) {
		pats[np++] = &ipc_pattern_rr_stub;
	} else {
		pats[np++] = ipc_pattern_find(cfg->cmd_name);
	}
	for (size_t a = 0; a < np; a++) {
		for (size_t t = 0; t < nt; t++) {
			const struct ipc_transport_ops *tp =
				ipc_transport_find(tnames[t]);

			if (ipc_pair_check(tp, NULL, &cfg->ro.tp, what,
					   sizeof(what), why, sizeof(why))) {
				err = add_skip(p, what, why);
				if (err)
					goto oom;
				continue;
			}
			for (size_t e = 0; e < ne; e++) {
				const struct ipc_engine_ops *eng =
					ipc_engine_find(enames[e]);

				if (ipc_pair_check(tp, eng, &cfg->ro.tp, what,
						   sizeof(what), why,
						   sizeof(why)))
					err = add_skip(p, what, why);
				else
					err = expand_links(cfg, pats[a], tp,
							   eng, p);
				if (err == EXIT_USAGE) {
					cli_plan_free(p);
					return err;
				}
				if (err)
					goto oom;
			}
		}
	}
	if (!p->ncases) {
		for (i = 0; i < p->nskips; i++)
			fprintf(stderr, "ipcperf: cannot run %s: %s\n",
				p->skips[i].what, p->skips[i].why);
		cli_plan_free(p);
		return usage_error("choose other transports or sizes; "
				   "'ipcperf list' shows what works here",
				   "nothing to run");
	}
	return 0;
oom:
	cli_plan_free(p);
	return cli_error("out of memory");
}

void cli_plan_free(struct cli_plan *p)
{
	free(p->cases);
	free(p->skips);
	memset(p, 0, sizeof(*p));
}

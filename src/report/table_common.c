/* SPDX-License-Identifier: MIT */
/*
 * What every layout of the human table shares: the rows' names, engines
 * and links, the heading's words (how many runs of what, where the peer
 * ran, a pattern's title with its parameters in it), a parameter or a
 * figure in a cell.  Everything here reads the result and the pattern's
 * description.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "doc/figures.h"
#include "table.h"
#include "pattern/lib_internal.h"
#include "run/lib_internal.h"

const char tab_zero_note[] =
	"note: size 0 on a byte stream is carried as a 1-byte token; rates "
	"count payload bytes only";

int tab_grow(void **p, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *np;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	np = reallocarray(*p, ncap, size);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

bool tab_measured(const struct trow *t)
{
	return t->res.status != IPC_STATUS_ERROR &&
	       (t->res.nruns || t->res.summary.iterations);
}

const char *tab_pat_name(const struct trow *t)
{
	return t->res.cs.pat ? t->res.cs.pat->name : "?";
}

const char *tab_tp_name(const struct trow *t)
{
	return t->res.cs.tp ? t->res.cs.tp->name : "?";
}

const char *tab_eng_name(const struct trow *t)
{
	return t->res.cs.eng ? t->res.cs.eng->name : "?";
}

const char *tab_link_name(const struct trow *t)
{
	return t->res.cs.link ? t->res.cs.link->name : "none";
}

const char *tab_one_engine(const struct trow *const *rows, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (strcmp(tab_eng_name(rows[i]), tab_eng_name(rows[0])))
			return NULL;
	return n ? tab_eng_name(rows[0]) : NULL;
}

const char *tab_one_link(const struct trow *const *rows, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (strcmp(tab_link_name(rows[i]), tab_link_name(rows[0])))
			return NULL;
	return n ? tab_link_name(rows[0]) : NULL;
}

bool tab_any_placed(const struct trow *const *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i]->res.cs.place.cpus != IPC_CPUS_ANY)
			return true;
	return false;
}

void tab_place_cell(struct grid *g, char **cell, const struct ipc_place *pl)
{
	switch (pl->cpus) {
	case IPC_CPUS_ONE:
		grid_set(g, cell, "1 (CPU %d)", pl->client_cpu);
		break;
	case IPC_CPUS_TWO:
		grid_set(g, cell, "2 (CPUs %d,%d%s)", pl->client_cpu,
			 pl->server_cpu, pl->smt == 1 ? " SMT" : "");
		break;
	default:
		grid_set(g, cell, "any");
		break;
	}
}

void tab_place_note(struct tab_out *out, const struct trow *const *rows,
		    size_t n)
{
	bool chosen = false, smt = false, one = false, two = false, any = false;
	const char *sep = "";

	for (size_t i = 0; i < n; i++) {
		const struct ipc_place *pl = &rows[i]->res.cs.place;

		chosen |= pl->chosen;
		smt |= pl->cpus == IPC_CPUS_TWO && pl->smt == 1;
		one |= pl->cpus == IPC_CPUS_ONE;
		two |= pl->cpus == IPC_CPUS_TWO;
		any |= pl->cpus == IPC_CPUS_ANY;
	}
	tab_puts(out, "cpus: ");
	if (one || two)
		tab_puts(out, "the client and the server pinned to ");
	if (one) {
		tab_puts(out, "one CPU (1)");
		sep = " or ";
	}
	if (two)
		tab_printf(out, "%sa CPU each (2%s)", sep,
			   smt ? "; SMT: two threads of one core"
			       : ", not SMT siblings");
	if (any)
		tab_printf(out, "%sany: where the scheduler put them",
			   one || two ? ", " : "");
	if (one || two)
		tab_puts(out,
			 chosen ? ", chosen by ipcperf" : ", as --pin asked");
	if (one + two + any > 1)
		tab_puts(out, "; two placements, two measurements");
	if (chosen)
		tab_puts(out, " (--pin none: the scheduler's choice)");
	tab_puts(out, "\n");
}

bool tab_zero_on_stream(const struct trow *t)
{
	const struct ipc_case *cs = &t->res.cs;

	if (!cs->tp || !(cs->tp->caps & IPC_TP_STREAM) || !cs->pat)
		return false;
	if (cs->framing && cs->framing->encode)
		return false; /* a framed size 0 is an empty frame */
	for (const struct ipc_param *p = cs->pat->params; p && p->key; p++)
		if ((p->flags & IPC_PARAM_PAYLOAD) && !ipc_param_u64(cs, p))
			return true;
	return false;
}

void tab_appendf(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/*
 * "until the 95% CI is within ±1% (6 to 30 runs, budget 60 s; took 6m20s,
 * each case's 6 runs first)": the stopping rule of --runs auto in words,
 * from the least runs the budget leaves a case (the scheduler's floor),
 * and what the command took when known (@took_ns, 0: not known): the
 * floor's runs of every case come before the budget.
 */
static void auto_words(char *buf, size_t len, const struct ipc_runopts *ro,
		       uint64_t took_ns)
{
	unsigned floor = ipc_sched_floor_runs(ro);
	char t[32];

	tab_appendf(
		buf, len, "until the %g%% CI is within ±%g%% (%u to %u runs",
		ro->ci_level * 100, ro->ci_pct, floor, ipc_sched_max_runs(ro));
	if (ro->budget_ns)
		tab_appendf(buf, len, ", budget %s",
			    ipc_fmt_ns((double)ro->budget_ns, t, sizeof(t)));
	if (ro->budget_ns && took_ns)
		tab_appendf(buf, len, "; took %s",
			    ipc_fmt_ns((double)took_ns, t, sizeof(t)));
	if (ro->budget_ns && took_ns > ro->budget_ns + ro->budget_ns / 10)
		tab_appendf(buf, len, ", each case's %u runs first", floor);
	tab_appendf(buf, len, ")");
}

void tab_how_many(char *buf, size_t len, const struct ipc_runopts *ro,
		  size_t runs, uint64_t iters, const char *one,
		  const char *many, uint64_t took_ns)
{
	const char *unit = iters == 1 ? one : many;
	char t[32];

	if (ro && ro->runs_auto) {
		if (ro->duration_ns)
			tab_appendf(buf, len, "runs of %s ",
				    ipc_fmt_ns((double)ro->duration_ns, t,
					       sizeof(t)));
		else
			tab_appendf(buf, len, "runs of %llu %s ",
				    (unsigned long long)iters, unit);
		auto_words(buf, len, ro, took_ns);
		return;
	}
	tab_appendf(buf, len, "%zu run%s", runs, runs == 1 ? "" : "s");
	if (ro && ro->duration_ns)
		tab_appendf(buf, len, " of %s each",
			    ipc_fmt_ns((double)ro->duration_ns, t, sizeof(t)));
	else
		tab_appendf(buf, len, " × %llu %s", (unsigned long long)iters,
			    unit);
}

void tab_where(char *buf, size_t len, const struct ipc_runopts *ro,
	       const struct ipc_case *cs)
{
	if (cs && cs->peer && (cs->peer->flags & IPC_PEER_ELSEWHERE))
		tab_appendf(buf, len, "peer %s at %s", cs->peer->name,
			    cs->target ? cs->target : "?");
	else
		tab_appendf(buf, len, "peer in %s",
			    ro->placement == IPC_PLACE_THREAD
				    ? "a thread"
				    : "a separate process");
	if (ro->pin_client >= 0)
		tab_appendf(buf, len, ", client on CPU %d", ro->pin_client);
	/* A server already running is where it is: --pin cannot put it. */
	if (ro->pin_server >= 0 && !(cs && cs->peer == &ipc_peer_external))
		tab_appendf(buf, len, ", server on CPU %d", ro->pin_server);
}

void tab_where_rows(char *buf, size_t len, const struct ipc_runopts *ro,
		    const struct trow *const *rows, size_t n)
{
	size_t ext = 0, same = 0;

	for (size_t i = 0; i < n; i++) {
		const struct ipc_case *c = &rows[i]->res.cs;

		ext += c->peer && (c->peer->flags & IPC_PEER_ELSEWHERE);
		same += c->peer == rows[0]->res.cs.peer && c->target &&
			rows[0]->res.cs.target &&
			!strcmp(c->target, rows[0]->res.cs.target);
	}
	if (!ext) {
		tab_where(buf, len, ro, NULL);
		return;
	}
	if (ext == n && same == n) { /* one server elsewhere: name it */
		tab_where(buf, len, ro, &rows[0]->res.cs);
		return;
	}
	if (ext < n)
		tab_appendf(buf, len, "peer in %s or already running",
			    ro->placement == IPC_PLACE_THREAD
				    ? "a thread"
				    : "a separate process");
	else
		tab_appendf(buf, len, "the other end already running");
	if (ro->pin_client >= 0)
		tab_appendf(buf, len, ", client on CPU %d", ro->pin_client);
	if (ext < n && ro->pin_server >= 0)
		tab_appendf(buf, len, ", server on CPU %d", ro->pin_server);
}

/* A parameter's value for people, into @buf. */
static void param_text(const struct ipc_case *cs, const struct ipc_param *p,
		       char *buf, size_t len)
{
	char r[32];
	const char *s;
	uint64_t v;

	if (!ipc_param_is_number(p)) {
		s = ipc_param_str(cs, p);
		snprintf(buf, len, "%s", s ? s : "-");
		return;
	}
	v = ipc_param_u64(cs, p);
	switch (p->fmt) {
	case IPC_FMT_BYTES:
		ipc_fmt_bytes((double)v, buf, len);
		break;
	case IPC_FMT_NS:
		ipc_fmt_ns((double)v, buf, len);
		break;
	case IPC_FMT_RATE:
		ipc_fmt_rate((double)v, buf, len);
		break;
	case IPC_FMT_BPS:
		ipc_fmt_bps((double)v, buf, len);
		break;
	case IPC_FMT_LOOP:
		if (v)
			snprintf(buf, len, "open, %s",
				 ipc_fmt_rate((double)v, r, sizeof(r)));
		else
			snprintf(buf, len, "closed");
		break;
	case IPC_FMT_NAME:
		snprintf(buf, len, "%s", p->names ? p->names[v] : "?");
		break;
	default:
		snprintf(buf, len, "%llu", (unsigned long long)v);
		break;
	}
}

bool tab_param_left(const struct ipc_param *p)
{
	return !ipc_param_is_number(p) || p->fmt == IPC_FMT_NAME ||
	       p->fmt == IPC_FMT_LOOP || p->fmt == IPC_FMT_TEXT;
}

void tab_param_cell(struct grid *g, char **cell, const struct ipc_case *cs,
		    const struct ipc_param *p)
{
	char buf[128];

	/* Left out of the JSON at its default: the case has none ("-"). */
	if ((p->flags & IPC_PARAM_JSON_DFLT) && ipc_param_is_number(p) &&
	    ipc_param_u64(cs, p) == p->dflt) {
		grid_set(g, cell, "-");
		return;
	}
	param_text(cs, p, buf, sizeof(buf));
	grid_set(g, cell, "%s", buf);
}

/* The parameter called @key (@n bytes) of @pat, or NULL. */
static const struct ipc_param *param_named(const struct ipc_pattern_ops *pat,
					   const char *key, size_t n)
{
	for (const struct ipc_param *p = pat ? pat->params : NULL; p && p->key;
	     p++)
		if (strlen(p->key) == n && !strncmp(p->key, key, n))
			return p;
	return NULL;
}

/* Do all @rows hold the same value of @p? */
static bool rows_share(const struct ipc_param *p,
		       const struct trow *const *rows, size_t n)
{
	char a[128], b[128];

	for (size_t i = 1; i < n; i++) {
		if (ipc_param_is_number(p)) {
			if (ipc_param_u64(&rows[i]->res.cs, p) !=
			    ipc_param_u64(&rows[0]->res.cs, p))
				return false;
			continue;
		}
		param_text(&rows[i]->res.cs, p, a, sizeof(a));
		param_text(&rows[0]->res.cs, p, b, sizeof(b));
		if (strcmp(a, b))
			return false;
	}
	return true;
}

bool tab_words(char *buf, size_t len, const char *tmpl,
	       const struct ipc_pattern_ops *pat,
	       const struct trow *const *rows, size_t n)
{
	char val[128], first[128] = "";
	bool alike = true, any = false;
	const char *s = tmpl, *e;
	const struct ipc_param *p;

	buf[0] = '\0';
	while (s && *s) {
		e = strchr(s, '{');
		if (!e) {
			tab_appendf(buf, len, "%s", s);
			break;
		}
		tab_appendf(buf, len, "%.*s", (int)(e - s), s);
		s = e + 1;
		e = strchr(s, '}');
		if (!e)
			break;
		p = param_named(pat, s, (size_t)(e - s));
		if (!p || !n)
			snprintf(val, sizeof(val), "%.*s", (int)(e - s), s);
		else if (rows_share(p, rows, n))
			param_text(&rows[0]->res.cs, p, val, sizeof(val));
		else if (p->vary)
			snprintf(val, sizeof(val), "%s", p->vary);
		else
			for (size_t i = 0; i < sizeof(val); i++)
				if (!(val[i] =
					      (char)(p->key[i] >= 'a' &&
								     p->key[i] <=
									     'z'
							     ? p->key[i] - 'a' +
								       'A'
							     : p->key[i])))
					break;
		tab_appendf(buf, len, "%s", val);
		if (any && strcmp(val, first))
			alike = false;
		if (!any)
			snprintf(first, sizeof(first), "%s", val);
		any = true;
		s = e + 1;
	}
	return alike;
}

bool tab_col_has(const struct ipc_column *c, const struct ipc_result *res)
{
	return isfinite(ipc_result_value(res, &res->summary, c->src));
}

void tab_col_cell(struct grid *g, char **cell, const struct ipc_column *c,
		  const struct ipc_result *res)
{
	double v = ipc_col_value(c, res), share;
	char buf[64];

	share = ipc_pct_of(v, res->summary.loss.sent);
	if (c->fmt == IPC_FMT_LOSS && isfinite(share)) {
		grid_set(g, cell, "%.0f (%.3g%%)", v, share);
		return;
	}
	if (c->fmt == IPC_FMT_OVER) {
		share = ipc_pct_over(
			v, ipc_result_value(res, &res->summary, c->over));
		if (isfinite(share))
			grid_set(g, cell, "%+.1f%%", share);
		else
			grid_set(g, cell, "-");
		return;
	}
	grid_set(g, cell, "%s", ipc_fmt_value(c->fmt, v, buf, sizeof(buf)));
}

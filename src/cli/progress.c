/* SPDX-License-Identifier: MIT */
/*
 * The progress line: counts runs per case to say how long the plan may
 * still take, and redraws one line on a terminal with \r and
 * clear-to-end-of-line.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "progress.h"
#include "run/lib_internal.h"

int progress_init(struct progress *p, FILE *out, bool quiet, size_t ncases,
		  const struct ipc_runopts *ro, uint64_t now_ns)
{
	memset(p, 0, sizeof(*p));
	p->out = out;
	p->ncases = ncases;
	/* What the scheduler does: ipc_schedule's rules, from its own words. */
	if (ro->runs_auto) {
		p->min_runs = ipc_sched_floor_runs(ro);
		p->max_runs = ipc_sched_max_runs(ro);
		p->budget_ns = ro->budget_ns;
	} else {
		p->min_runs = p->max_runs = ro->runs;
	}
	p->start_ns = now_ns;
	if (quiet || !out || !isatty(fileno(out)) || !ncases)
		return 0;
	p->runs = calloc(ncases, sizeof(*p->runs));
	p->max_ns = calloc(ncases, sizeof(*p->max_ns));
	p->took_ns = calloc(ncases, sizeof(*p->took_ns));
	p->wall_ns = calloc(ncases, sizeof(*p->wall_ns));
	p->took_at = calloc(ncases, sizeof(*p->took_at));
	if (!p->runs || !p->max_ns || !p->took_ns || !p->wall_ns ||
	    !p->took_at) {
		progress_fini(p);
		return -ENOMEM;
	}
	p->on = true;
	return 0;
}

double progress_eta_s(size_t done, uint64_t elapsed_ns, size_t left)
{
	if (!done)
		return -1;
	return (double)elapsed_ns / 1e9 / (double)done * (double)left;
}

double progress_bound_s(const struct progress *p, size_t i)
{
	uint64_t wall = 0, took = 0;
	double floor_s = 0, most_s = 0, open_s = 0, t, scale, left_s;
	size_t c;

	for (c = 0; c < p->ncases; c++) {
		/* A case not run yet could take any time: no bound then. */
		if (!p->max_ns[c])
			return -1;
		wall += p->wall_ns[c];
		took += p->took_at[c];
	}
	for (c = 0; c < p->ncases; c++) {
		t = (double)p->max_ns[c] / 1e9;
		if (p->runs[c] < p->min_runs)
			floor_s += t * (double)(p->min_runs - p->runs[c]);
		if (p->runs[c] < p->max_runs) {
			most_s += t * (double)(p->max_runs - p->runs[c]);
			open_s += t;
		}
	}
	if (p->budget_ns) {
		scale = wall && took > wall ? (double)took / (double)wall : 1;
		left_s = wall < p->budget_ns
				 ? (double)(p->budget_ns - wall) / 1e9 * scale
				 : 0;
		most_s = fmin(most_s, floor_s + left_s + open_s);
	}
	return (double)p->max_ns[i] / 1e9 + most_s;
}

/* "<1s", "45s", "1m20s", "2h05m". */
static void fmt_duration(double s, char *buf, size_t len)
{
	unsigned long t = (unsigned long)lround(s);

	if (t == 0)
		snprintf(buf, len, "<1s");
	else if (t < 60)
		snprintf(buf, len, "%lus", t);
	else if (t < 3600)
		snprintf(buf, len, "%lum%02lus", t / 60, t % 60);
	else
		snprintf(buf, len, "%luh%02lum", t / 3600, t / 60 % 60);
}

/* Cut @buf after @cols characters (UTF-8 aware). */
static void cut(char *buf, size_t cols)
{
	size_t chars = 0, i;

	for (i = 0; buf[i]; i++) {
		if (((unsigned char)buf[i] & 0xc0) == 0x80)
			continue;
		if (chars++ == cols) {
			buf[i] = '\0';
			return;
		}
	}
}

char *progress_format(const struct progress_state *st, size_t cols, char *buf,
		      size_t len)
{
	char eta[32];
	size_t n;

	if (st->pass_runs)
		n = (size_t)snprintf(buf, len,
				     "[%zu/%zu] %s: --explain pass, run %zu "
				     "of %zu",
				     st->case_no, st->ncases,
				     st->what ? st->what : "", st->run,
				     st->pass_runs);
	else
		n = (size_t)snprintf(buf, len, "[%zu/%zu] %s: run %zu of %s%zu",
				     st->case_no, st->ncases,
				     st->what ? st->what : "", st->run,
				     st->exact ? "" : "at most ", st->max_runs);
	if (n < len && st->half_pct >= 0 && isfinite(st->half_pct))
		n += (size_t)snprintf(buf + n, len - n, ", \xc2\xb1%.2g%%",
				      st->half_pct);
	if (n < len && st->target_pct > 0)
		n += (size_t)snprintf(buf + n, len - n,
				      st->half_pct >= 0
					      ? " (target %.2g%%)"
					      : ", target \xc2\xb1%.2g%%",
				      st->target_pct);
	if (n < len && st->eta_s >= 0) {
		fmt_duration(st->eta_s, eta, sizeof(eta));
		snprintf(buf + n, len - n, ", %s %s left",
			 st->exact ? "about" : "at most", eta);
	}
	if (cols)
		cut(buf, cols);
	return buf;
}

/* Columns of the terminal @out is, 80 when it cannot say. */
static size_t columns(FILE *out)
{
	struct winsize ws;

	if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

/* The last run started has ended at @now_ns: as long as that. */
static void last_ended(struct progress *p, uint64_t now_ns)
{
	uint64_t dt = now_ns - p->last_ns;

	if (!p->started)
		return;
	p->took_ns[p->last] += dt;
	if (dt > p->max_ns[p->last])
		p->max_ns[p->last] = dt;
}

/* The runs of the measured plan still to come with -r N, all cases. */
static size_t exact_left(const struct progress *p)
{
	size_t left = 0;

	for (size_t c = 0; c < p->ncases; c++)
		if (p->runs[c] < p->max_runs)
			left += p->max_runs - p->runs[c];
	return left;
}

/* Redraw the line with @st, one column short of the edge. */
static void draw(struct progress *p, const struct progress_state *st)
{
	char line[512];

	/* One column short of the edge: no terminal wraps then. */
	progress_format(st, columns(p->out) - 1, line, sizeof(line));
	fprintf(p->out, "\r\033[K%s", line);
	fflush(p->out);
	p->drawn = true;
}

void progress_again(struct progress *p, size_t i, struct progress_state *st,
		    uint64_t now_ns)
{
	size_t left = st->pass_runs >= st->run ? st->pass_runs - st->run : 0;

	if (!p->on || i >= p->ncases)
		return;
	last_ended(p, now_ns);
	p->started++;
	p->last = i;
	p->last_ns = now_ns;
	/* The pass's runs are as long as the case's own, the run now too. */
	if (st->exact)
		st->eta_s = progress_eta_s(p->started - 1, now_ns - p->start_ns,
					   exact_left(p) + left + 1);
	else if ((st->eta_s = progress_bound_s(p, i)) >= 0)
		st->eta_s += (double)p->max_ns[i] / 1e9 * (double)left;
	draw(p, st);
}

void progress_run(struct progress *p, size_t i, struct progress_state *st,
		  uint64_t now_ns)
{
	size_t done;

	if (!p->on || i >= p->ncases)
		return;
	last_ended(p, now_ns);
	/* The runner's time of the runs of @i done, and theirs so timed. */
	p->wall_ns[i] = st->case_wall_ns;
	p->took_at[i] = st->case_wall_ns ? p->took_ns[i] : 0;
	p->runs[i]++;
	p->started++;
	p->last = i;
	p->last_ns = now_ns;
	if (st->exact) {
		/* -r N: about the mean run times the runs left. */
		done = p->started - 1;
		/* The run starting now is still to be done: count it. */
		st->eta_s = progress_eta_s(done, now_ns - p->start_ns,
					   exact_left(p) + 1);
	} else {
		st->eta_s = progress_bound_s(p, i);
	}
	draw(p, st);
}

void progress_clear(struct progress *p)
{
	if (!p->on || !p->drawn)
		return;
	fputs("\r\033[K", p->out);
	fflush(p->out);
	p->drawn = false;
}

void progress_fini(struct progress *p)
{
	progress_clear(p);
	free(p->runs);
	free(p->max_ns);
	free(p->took_ns);
	free(p->wall_ns);
	free(p->took_at);
	p->runs = NULL;
	p->max_ns = p->took_ns = p->wall_ns = p->took_at = NULL;
	p->on = false;
}

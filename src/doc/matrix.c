/* SPDX-License-Identifier: MIT */
/*
 * Results of many files and hosts merged into host x host matrices: one
 * per case, each cell the results of one pair of hosts, their histograms
 * merged and their runs pooled (docs/fleet.md).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jread.h"
#include "matrix.h"
#include "doc/lib_internal.h"
#include "pattern/lib_internal.h"
#include "run/lib_internal.h"

static const char *const mx_words[] = {"p50", "p99", "throughput", NULL};

bool ipc_mx_metric_find(const char *word, enum ipc_mx_metric *out)
{
	for (int i = 0; mx_words[i]; i++)
		if (word && !strcmp(word, mx_words[i])) {
			*out = (enum ipc_mx_metric)i;
			return true;
		}
	return false;
}

/* Where the other end was told to be, without the port: "10.0.0.3". */
static void target_host(const char *target, char *buf, size_t len)
{
	const char *colon = strrchr(target, ':');
	size_t n = colon ? (size_t)(colon - target) : strlen(target);

	if (n >= 2 && target[0] == '[' && target[n - 1] == ']') {
		target++;
		n -= 2;
	}
	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), target);
}

static bool elsewhere(const struct ipc_result *res)
{
	return res->cs.peer && (res->cs.peer->flags & IPC_PEER_ELSEWHERE) &&
	       res->cs.target;
}

/* The address -> host name pairs that results with a fingerprint give. */
struct names {
	char (*addr)[128];
	char (*name)[128];
	size_t n;
};

static const char *name_of(const struct names *nm, const char *addr)
{
	for (size_t i = 0; i < nm->n; i++)
		if (!strcmp(nm->addr[i], addr))
			return nm->name[i];
	return NULL;
}

/* The names given with --names, looked up before any result's. */
static struct names given;

void ipc_mx_names_clear(void)
{
	free(given.addr);
	free(given.name);
	memset(&given, 0, sizeof(given));
}

/* One "ADDRESS NAME" line of @n bytes at @s into given; false if bad. */
static bool name_line(const char *s, size_t n)
{
	size_t a = 0, b, e;

	while (a < n && (s[a] == ' ' || s[a] == '\t'))
		a++;
	if (a == n || s[a] == '#')
		return true;
	for (b = a; b < n && s[b] != ' ' && s[b] != '\t'; b++)
		;
	for (e = b; e < n && (s[e] == ' ' || s[e] == '\t'); e++)
		;
	while (n > e &&
	       (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	if (e == n || b - a >= sizeof(*given.addr) ||
	    n - e >= sizeof(*given.name) || memchr(s + e, ' ', n - e) ||
	    memchr(s + e, '\t', n - e))
		return false;
	for (size_t i = a; i < n; i++)
		if ((unsigned char)s[i] < 0x20 && s[i] != '\t')
			return false;
	memcpy(given.addr[given.n], s + a, b - a);
	given.addr[given.n][b - a] = '\0';
	memcpy(given.name[given.n], s + e, n - e);
	given.name[given.n][n - e] = '\0';
	given.n++;
	return true;
}

int ipc_mx_names_parse(const char *text, size_t len, char *err, size_t err_len)
{
	size_t lines = 1, at = 0, line = 0, n;
	const char *nl;

	ipc_mx_names_clear();
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	given.addr = calloc(lines, sizeof(*given.addr));
	given.name = calloc(lines, sizeof(*given.name));
	if (!given.addr || !given.name) {
		ipc_mx_names_clear();
		return -ENOMEM;
	}
	while (at < len) {
		nl = memchr(text + at, '\n', len - at);
		n = nl ? (size_t)(nl - (text + at)) : len - at;
		line++;
		if (memchr(text + at, '\0', n) || !name_line(text + at, n)) {
			snprintf(err, err_len,
				 "line %zu is not ADDRESS NAME (one word "
				 "each, under 128 bytes)",
				 line);
			ipc_mx_names_clear();
			return -EINVAL;
		}
		at += n + 1;
	}
	return 0;
}

static int learn(struct names *nm, const struct ipc_doc *const *docs, size_t n)
{
	size_t all = given.n, i, k;
	char addr[128], name[128];

	for (i = 0; i < n; i++)
		all += docs[i]->nresults;
	nm->addr = calloc(all + 1, sizeof(*nm->addr));
	nm->name = calloc(all + 1, sizeof(*nm->name));
	if (!nm->addr || !nm->name)
		return -ENOMEM;
	for (i = 0; i < given.n; i++) {
		strcpy(nm->addr[nm->n], given.addr[i]);
		strcpy(nm->name[nm->n++], given.name[i]);
	}
	for (i = 0; i < n; i++)
		for (k = 0; k < docs[i]->nresults; k++) {
			const struct ipc_result *res = docs[i]->results[k];

			if (!elsewhere(res))
				continue;
			jr_peer_host_field(res, "hostname", name, sizeof(name));
			target_host(res->cs.target, addr, sizeof(addr));
			if (!name[0] || name_of(nm, addr))
				continue;
			strcpy(nm->addr[nm->n], addr);
			strcpy(nm->name[nm->n++], name);
		}
	return 0;
}

/* The hosts a result ran from and to. */
static void ends(const struct names *nm, const struct ipc_doc *doc,
		 const struct ipc_result *res, char *from, char *to, size_t len)
{
	const char *h = doc->meta.host ? doc->meta.host->hostname : "";
	char addr[128];

	snprintf(from, len, "%s", h[0] ? h : "?");
	if (!elsewhere(res)) {
		snprintf(to, len, "%s", from);
		return;
	}
	jr_peer_host_field(res, "hostname", to, len);
	if (to[0])
		return;
	target_host(res->cs.target, addr, sizeof(addr));
	snprintf(to, len, "%s", name_of(nm, addr) ?: addr);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static ssize_t host_index(const struct ipc_matrix *m, const char *h)
{
	char *const *at =
		bsearch(&h, m->hosts, m->nhosts, sizeof(*m->hosts), cmp_str);

	return at ? at - m->hosts : -1;
}

/* Every host named as either end, sorted, each once. */
static int collect_hosts(struct ipc_matrix *m, const struct names *nm,
			 const struct ipc_doc *const *docs, size_t n)
{
	char from[128], to[128];
	size_t all = 0, i, k, j;

	for (i = 0; i < n; i++)
		all += docs[i]->nresults;
	m->hosts = calloc(2 * all + 1, sizeof(*m->hosts));
	if (!m->hosts)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		for (k = 0; k < docs[i]->nresults; k++) {
			ends(nm, docs[i], docs[i]->results[k], from, to,
			     sizeof(from));
			m->hosts[m->nhosts] = strdup(from);
			if (!m->hosts[m->nhosts++])
				return -ENOMEM;
			m->hosts[m->nhosts] = strdup(to);
			if (!m->hosts[m->nhosts++])
				return -ENOMEM;
		}
	qsort(m->hosts, m->nhosts, sizeof(*m->hosts), cmp_str);
	for (i = j = 0; i < m->nhosts; i++) {
		if (j && !strcmp(m->hosts[j - 1], m->hosts[i])) {
			free(m->hosts[i]);
			continue;
		}
		m->hosts[j++] = m->hosts[i];
	}
	m->nhosts = j;
	return 0;
}

/* The case @name, added when new; NULL when out of memory. */
static struct mx_case *case_of(struct ipc_matrix *m, const char *name,
			       size_t max)
{
	struct mx_case *c;

	for (size_t i = 0; i < m->ncases; i++)
		if (!strcmp(m->cases[i].name, name))
			return &m->cases[i];
	if (m->ncases == max)
		return NULL;
	c = &m->cases[m->ncases];
	c->cells = calloc(m->nhosts * m->nhosts, sizeof(*c->cells));
	if (!c->cells)
		return NULL;
	snprintf(c->name, sizeof(c->name), "%s", name);
	m->ncases++;
	return c;
}

static int add_value(struct mx_cell *cell, double v)
{
	double *x;

	if (!isfinite(v))
		return 0;
	if (cell->nvals == cell->cap) {
		cell->cap = cell->cap ? 2 * cell->cap : 16;
		x = realloc(cell->vals, cell->cap * sizeof(*x));
		if (!x)
			return -ENOMEM;
		cell->vals = x;
	}
	cell->vals[cell->nvals++] = v;
	return 0;
}

/* The metric of @res that @metric asks for. */
static const struct ipc_metric *metric_for(const struct ipc_result *res,
					   enum ipc_mx_metric metric)
{
	if (metric == IPC_MX_P50)
		return &ipc_metric_p50;
	if (metric == IPC_MX_P99)
		return &ipc_metric_p99;
	return ipc_result_metric_as(res, res->cs.pat ? res->cs.pat->rate
						     : &ipc_metric_msgs_per_s);
}

static int add_result(struct ipc_matrix *m, struct mx_cell *cell,
		      const struct ipc_result *res)
{
	const struct ipc_metric *mt = metric_for(res, m->metric);
	int err = 0;

	cell->results++;
	cell->flags |= res->diag.flags;
	cell->fmt = mt->fmt;
	cell->unit = mt->unit;
	if (res->status != IPC_STATUS_OK && !cell->why[0])
		snprintf(cell->why, sizeof(cell->why), "%s",
			 res->error[0] ? res->error : "failed");
	if (res->status != IPC_STATUS_OK)
		cell->state = MX_FAILED;
	else if (cell->state == MX_NONE)
		cell->state = MX_OK;
	for (size_t r = 0; !err && r < res->nruns; r++)
		err = add_value(cell,
				ipc_result_value(res, &res->runs[r], mt->src));
	if (err || !res->hist || !res->hist->total)
		return err;
	if (!cell->hist) {
		cell->hist = ipc_hist_new();
		if (!cell->hist)
			return -ENOMEM;
	}
	ipc_hist_merge(cell->hist, res->hist);
	return 0;
}

/* A cell's figures once every result is in. */
static void settle(struct ipc_matrix *m, struct mx_cell *cell)
{
	double q = m->metric == IPC_MX_P99 ? 0.99 : 0.5;

	if (cell->state == MX_FAILED && (cell->nvals || cell->hist))
		cell->state = MX_PARTIAL;
	ipc_runs_summarize(cell->vals, cell->nvals, 0.95, &cell->st);
	cell->value = cell->nvals ? cell->st.median : NAN;
	if (m->metric != IPC_MX_THROUGHPUT && cell->hist) {
		cell->value = (double)ipc_hist_value_at(cell->hist, q);
		cell->from_hist = true;
	}
}

static int fill(struct ipc_matrix *m, const struct names *nm,
		const struct ipc_doc *const *docs, size_t n, size_t max)
{
	char from[128], to[128], name[192];
	struct mx_case *c;
	ssize_t f, t;
	int err = 0;

	for (size_t i = 0; !err && i < n; i++)
		for (size_t k = 0; !err && k < docs[i]->nresults; k++) {
			const struct ipc_result *res = docs[i]->results[k];

			ends(nm, docs[i], res, from, to, sizeof(from));
			f = host_index(m, from);
			t = host_index(m, to);
			ipc_case_describe(&res->cs, name, sizeof(name));
			c = case_of(m, name, max);
			if (!c || f < 0 || t < 0)
				return -ENOMEM;
			err = add_result(m, mx_at(m, c, (size_t)f, (size_t)t),
					 res);
		}
	for (size_t i = 0; i < m->ncases; i++)
		for (size_t k = 0; k < m->nhosts * m->nhosts; k++)
			settle(m, &m->cases[i].cells[k]);
	return err;
}

int ipc_matrix_build(const struct ipc_doc *const *docs, size_t n,
		     enum ipc_mx_metric metric,
		     const struct ipc_report_meta *meta,
		     struct ipc_matrix **out)
{
	struct ipc_matrix *m = calloc(1, sizeof(*m));
	struct names nm = {0};
	size_t all = 0;
	int err;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	m->metric = metric;
	m->word = mx_words[metric];
	m->meta = meta;
	for (size_t i = 0; i < n; i++)
		all += docs[i]->nresults;
	m->cases = calloc(all + 1, sizeof(*m->cases));
	err = m->cases ? learn(&nm, docs, n) : -ENOMEM;
	if (!err)
		err = collect_hosts(m, &nm, docs, n);
	if (!err)
		err = fill(m, &nm, docs, n, all);
	if (!err && !m->ncases)
		err = -ENOENT;
	free(nm.addr);
	free(nm.name);
	if (err) {
		ipc_matrix_free(m);
		return err;
	}
	*out = m;
	return 0;
}

size_t ipc_matrix_failed(const struct ipc_matrix *m)
{
	size_t failed = 0;

	for (size_t i = 0; i < m->ncases; i++)
		for (size_t k = 0; k < m->nhosts * m->nhosts; k++)
			failed += m->cases[i].cells[k].state >= MX_PARTIAL;
	return failed;
}

void ipc_matrix_free(struct ipc_matrix *m)
{
	if (!m)
		return;
	for (size_t i = 0; m->cases && i < m->ncases; i++) {
		for (size_t k = 0; k < m->nhosts * m->nhosts; k++) {
			free(m->cases[i].cells[k].vals);
			ipc_hist_free(m->cases[i].cells[k].hist);
		}
		free(m->cases[i].cells);
	}
	for (size_t i = 0; m->hosts && i < m->nhosts; i++)
		free(m->hosts[i]);
	free(m->hosts);
	free(m->cases);
	free(m);
}

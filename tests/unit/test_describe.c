/* SPDX-License-Identifier: MIT */
/*
 * Tests of the patterns' self-descriptions: every registered pattern says
 * what it is (sample unit, cost unit, heading, metric, throughput), its
 * parameters read and write through their descriptions, the keys and
 * placeholders it names exist, its columns and extras point at figures
 * that exist, and the words of a case name every parameter they should.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcperf/report.h"
#include "../tap.h"
#include "pattern/lib_internal.h"
#include "run/lib_internal.h"

/* Keys a result has whatever its pattern: no parameter may take one. */
static const char *const fixed_keys[] = {
	"pattern", "transport",	  "engine",  "status", "error",
	"link",	   "link_params", "framing", "acks",   "config",
	"runs",	   "socket",	  "summary", "flags",  NULL,
};

static bool nonempty(const char *s)
{
	return s && *s;
}

static bool fixed_key(const char *k)
{
	for (size_t i = 0; fixed_keys[i]; i++)
		if (!strcmp(fixed_keys[i], k))
			return true;
	return false;
}

static const struct ipc_param *param_of(const struct ipc_pattern_ops *pat,
					const char *key, size_t n)
{
	for (const struct ipc_param *p = pat->params; p && p->key; p++)
		if (strlen(p->key) == n && !strncmp(p->key, key, n))
			return p;
	return NULL;
}

/* Does every {key} of @tmpl name a parameter of @pat? */
static bool placeholders_ok(const struct ipc_pattern_ops *pat, const char *tmpl)
{
	const char *s = tmpl, *e;

	while (s && (s = strchr(s, '{'))) {
		e = strchr(s, '}');
		if (!e || !param_of(pat, s + 1, (size_t)(e - s - 1))) {
			diag("%s: '%s' names no parameter", pat->name, s);
			return false;
		}
		s = e + 1;
	}
	return true;
}

static bool metric_ok(const struct ipc_metric *m)
{
	return m && nonempty(m->name) && nonempty(m->word) &&
	       nonempty(m->unit) && ipc_metric_find(m->name) == m &&
	       m->src > IPC_SRC_NONE && m->src < IPC_SRC_EXTRA &&
	       (!m->no_bytes || metric_ok(m->no_bytes));
}

static bool cols_ok(const struct ipc_pattern_ops *pat,
		    const struct ipc_column *c)
{
	size_t nx = ipc_pattern_nextras(pat);

	if (!c || !c->head)
		return false;
	for (; c->head; c++) {
		if (!nonempty(c->head) || c->src <= IPC_SRC_NONE ||
		    c->src >= IPC_SRC_EXTRA + nx ||
		    (c->fmt == IPC_FMT_OVER &&
		     (c->over <= IPC_SRC_NONE ||
		      c->over >= IPC_SRC_EXTRA + nx))) {
			diag("%s: column '%s' has no figure", pat->name,
			     c->head ? c->head : "?");
			return false;
		}
	}
	return true;
}

static void test_pattern(const struct ipc_pattern_ops *pat)
{
	static struct ipc_trace trace = {.path = "t/a.log", .name = "a"};
	static uint64_t cfg[4096]; /* a pattern's own block, zeroed (http's
				     is 7 KiB) */
	struct ipc_case cs = {.pat = pat, .trace = &trace};
	const struct ipc_param *p, *q;
	bool keys = true, rw = true, words = true;
	size_t nx = ipc_pattern_nextras(pat), k;
	char buf[256], w[96], want[128];
	uint64_t v;

	if (pat->cfg_size && pat->cfg_size <= sizeof(cfg)) {
		memset(cfg, 0, sizeof(cfg));
		cs.cfg = cfg;
	}

	ok(nonempty(pat->name) && nonempty(pat->help), "%s: name and help",
	   pat->name);
	ok(nonempty(pat->sample) && nonempty(pat->samples) &&
		   nonempty(pat->cost_per) && nonempty(pat->cost_abbr),
	   "%s: its sample and cost units in words", pat->name);
	ok(nonempty(pat->title) && placeholders_ok(pat, pat->title),
	   "%s: a heading whose placeholders are parameters", pat->name);
	ok(metric_ok(pat->metric), "%s: its metric is a known, complete one",
	   pat->name);
	ok(metric_ok(pat->rate) && pat->rate->higher_better,
	   "%s: its throughput is a rate, higher is better", pat->name);
	ok(pat->params && pat->params[0].key,
	   "%s: describes its case parameters", pat->name);
	for (p = pat->params; p && p->key; p++) {
		if (!nonempty(p->key) || fixed_key(p->key) ||
		    param_of(pat, p->key, strlen(p->key)) != p)
			keys = false;
		if ((p->fmt == IPC_FMT_NAME && !p->names) ||
		    (p->type == IPC_VT_CHARS && !p->len) ||
		    p->type == IPC_VT_NONE)
			rw = false;
		if (!ipc_param_is_number(p)) {
			if (!ipc_param_str(&cs, p))
				rw = false;
			continue;
		}
		v = p->type == IPC_VT_BOOL ? 1
					   : 1000 + (uint64_t)(p - pat->params);
		if (!ipc_param_set_u64(&cs, p, v) ||
		    ipc_param_u64(&cs, p) != v) {
			diag("%s: %s does not read back", pat->name, p->key);
			rw = false;
		}
	}
	ok(keys, "%s: parameter keys are distinct and not a result's own",
	   pat->name);
	ok(rw, "%s: every parameter reads back what was written", pat->name);

	/* Derived parameters share a value: restore before the words. */
	for (p = pat->params; p && p->key; p++)
		if (!(p->flags & IPC_PARAM_DERIVED) && ipc_param_is_number(p))
			ipc_param_set_u64(
				&cs, p,
				p->type == IPC_VT_BOOL
					? 1
					: 1000 + (uint64_t)(p - pat->params));
	ipc_case_describe(&cs, buf, sizeof(buf));
	for (p = pat->params; p && p->key; p++) {
		if (!ipc_param_in_words(&cs, p))
			continue;
		ipc_param_word(&cs, p, w, sizeof(w));
		snprintf(want, sizeof(want), " %s%s%s", p->word,
			 p->word[0] ? "=" : "", w);
		if (!strstr(buf, want)) {
			diag("'%s' lacks '%s'", buf, want);
			words = false;
		}
	}
	ok(!strncmp(buf, pat->name, strlen(pat->name)) && words,
	   "%s: a case's words name its parameters: %s", pat->name, buf);
	ok(!strstr(buf, "  ") && buf[strlen(buf) - 1] != ' ',
	   "%s: no empty word (an unset text makes none): '%s'", pat->name,
	   buf);

	ok(cols_ok(pat, pat->cols), "%s: every column is a figure it has",
	   pat->name);
	keys = true;
	for (k = 0; k < nx; k++) {
		if (!nonempty(pat->extras[k].key) ||
		    fixed_key(pat->extras[k].key) ||
		    param_of(pat, pat->extras[k].key,
			     strlen(pat->extras[k].key)))
			keys = false;
		for (size_t j = 0; j < k; j++)
			if (!strcmp(pat->extras[j].key, pat->extras[k].key))
				keys = false;
	}
	ok(keys && (!pat->extras || !pat->extras[nx].key),
	   "%s: %zu extra figure(s), keys distinct and its own", pat->name, nx);
	ok(pat->layout == IPC_LAYOUT_SECTION || pat->layout == IPC_LAYOUT_PIVOT,
	   "%s: a table layout", pat->name);
	if (pat->suite)
		ok(placeholders_ok(pat, pat->suite->words) &&
			   (!pat->suite->words_same ||
			    placeholders_ok(pat, pat->suite->words_same)) &&
			   cols_ok(pat, pat->suite->cols),
		   "%s: its part in the quick suite is complete", pat->name);
	q = NULL;
	for (p = pat->params; p && p->key; p++)
		if (p->word || p->head)
			q = p;
	ok(q != NULL, "%s: a parameter tells its cases apart", pat->name);
}

static void test_metrics(void)
{
	ok(ipc_metric_find("p50_ns") == &ipc_metric_p50, "find p50_ns");
	ok(ipc_metric_find("p95_ns") == NULL, "no p95_ns");
	ok(ipc_metric_find_word("throughput") == &ipc_metric_bytes_per_s,
	   "throughput is found as bytes_per_s first");
	ok(ipc_metric_find_word("p99") == &ipc_metric_p99, "p99 by its word");
	ok(ipc_metric_bytes_per_s.no_bytes == &ipc_metric_msgs_per_s,
	   "bytes/s turns into messages/s when nothing moved a byte");
	ok(!ipc_metric_p50.higher_better && ipc_metric_p50.integer,
	   "p50: lower is better, integer ns");
}

/* The metric of a result follows its runs' bytes. */
static void test_result_metric(void)
{
	struct ipc_case cs = {.pat = &ipc_pattern_stream};
	struct ipc_result *res = ipc_result_new(&cs);
	struct ipc_run_stats run = {.bytes = 0, .msgs_per_s = 7};

	if (!res)
		abort();
	res->runs = &run;
	res->nruns = 1;
	is_str(ipc_metric_name(res), "msgs_per_s",
	       "a stream that moved no byte is judged in messages/s");
	ok(ipc_run_metric(res, 0) == 7, "... and its run's value is that");
	run.bytes = 1;
	run.bytes_per_s = 9;
	is_str(ipc_metric_name(res), "bytes_per_s", "one byte: bytes/s");
	ok(isnan(ipc_result_value(res, &run, IPC_SRC_LOST)),
	   "no loss counted: the figure is not there (NAN), not 0");
	run.loss.counted = true;
	run.loss.lost = 3;
	ok(ipc_result_value(res, &run, IPC_SRC_LOST) == 3, "loss counted: 3");
	ok(isnan(ipc_result_value(res, &run, IPC_SRC_LAG)),
	   "a closed loop has no send lag");
	res->runs = NULL;
	res->nruns = 0;
	ipc_result_free(res);
}

/*
 * A pattern no other layer has heard of, described only by its ops (as
 * an HTTP pattern would be): its own parameters in a block of its own,
 * failures counted by reason in every run, its own columns.  Every format
 * shows them without a line of code about it.
 */
struct fetch_cfg {
	char url[64];
	uint64_t body; /* request body, bytes */
	bool keepalive;
};

enum { X_FAILED, X_KEEPALIVE, X_BODY };

static const char *const on_off[] = {"off", "on", NULL};

static const struct ipc_param fetch_params[] = {
	{.key = "url",
	 .word = "",
	 .head = "url",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_CHARS,
	 .off = offsetof(struct fetch_cfg, url),
	 .len = sizeof(((struct fetch_cfg *)0)->url),
	 .fmt = IPC_FMT_TEXT},
	{.key = "body_size",
	 .word = "body",
	 .head = "body",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_U64,
	 .off = offsetof(struct fetch_cfg, body),
	 .fmt = IPC_FMT_BYTES},
	{.key = "keepalive",
	 .head = "keep-alive",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_BOOL,
	 .off = offsetof(struct fetch_cfg, keepalive),
	 .fmt = IPC_FMT_NAME,
	 .names = on_off},
	{.key = "flows",
	 .word = "c",
	 .head = "conns",
	 .type = IPC_VT_U64,
	 .off = offsetof(struct ipc_case, flows),
	 .fmt = IPC_FMT_COUNT},
	{0},
};

static const struct ipc_extra fetch_extras[] = {
	[X_FAILED] = {.key = "failed_connect",
		      .fmt = IPC_FMT_COUNT,
		      .flags = IPC_EXTRA_RUN | IPC_EXTRA_INT},
	[X_KEEPALIVE] = {.key = "keepalive_requests",
			 .fmt = IPC_FMT_COUNT,
			 .flags = IPC_EXTRA_RUN | IPC_EXTRA_INT},
	[X_BODY] = {.key = "body_bytes",
		    .fmt = IPC_FMT_BYTES,
		    .flags = IPC_EXTRA_RUN | IPC_EXTRA_INT},
	{0},
};

static const struct ipc_column fetch_cols[] = {
	{.head = "p50", .src = IPC_SRC_P50, .fmt = IPC_FMT_NS},
	{.head = "requests/s", .src = IPC_SRC_MSGS_PER_S, .fmt = IPC_FMT_RATE},
	{.head = "failed", .src = IPC_SRC_EXTRA + X_FAILED},
	{.head = "keep-alive reqs", .src = IPC_SRC_EXTRA + X_KEEPALIVE},
	{.head = "body read",
	 .src = IPC_SRC_EXTRA + X_BODY,
	 .fmt = IPC_FMT_BYTES},
	{0},
};

static const struct ipc_pattern_ops fetch = {
	.name = "fetch",
	.help = "a pattern only this test knows",
	.sample = "request",
	.samples = "requests",
	.cost_per = "request",
	.cost_abbr = "req",
	.title = "requests of {body_size} bodies",
	.metric = &ipc_metric_p50,
	.rate = &ipc_metric_msgs_per_s,
	.params = fetch_params,
	.cols = fetch_cols,
	.extras = fetch_extras,
	.cfg_size = sizeof(struct fetch_cfg),
};

static char *render(const char *fmt, const struct ipc_report_meta *meta,
		    const struct ipc_result *res)
{
	struct ipc_report r = {.ops = ipc_report_find(fmt), .meta = meta};
	char *buf = NULL;
	size_t len = 0;

	r.out = open_memstream(&buf, &len);
	if (!r.out || ipc_report_begin(&r) || ipc_report_result(&r, res) ||
	    ipc_report_end(&r))
		diag("%s: did not render", fmt);
	fclose(r.out);
	return buf;
}

static void test_unknown_pattern(void)
{
	static const struct ipc_transport_ops tcp = {.name = "tcp"};
	static const struct ipc_engine_ops blocking = {.name = "blocking"};
	struct fetch_cfg cfg = {"http://localhost/x", 16384, true};
	struct ipc_case cs = {.pat = &fetch, .tp = &tcp, .eng = &blocking};
	struct ipc_runopts ro;
	struct ipc_report_meta meta = {.command = "fetch", .ro = &ro};
	struct ipc_result *res;
	char *t, buf[128];

	ipc_runopts_default(&ro);
	ro.runs_auto = false;
	cs.cfg = &cfg;
	cs.flows = 10;
	res = ipc_result_new(&cs);
	if (!res)
		abort();
	res->runs = calloc(3, sizeof(*res->runs));
	if (!res->runs)
		abort();
	res->nruns = res->runs_cap = 3;
	for (size_t i = 0; i < 3; i++) {
		struct ipc_run_stats *s = &res->runs[i];

		s->iterations = s->messages = 1000;
		s->elapsed_ns = 50000000;
		s->msgs_per_s = 20000;
		s->lat.p50 = 48000 + 1000 * i;
		s->extra[X_FAILED] = (double)i;
		s->extra[X_KEEPALIVE] = 990;
		s->extra[X_BODY] = 16294000;
		ipc_hist_record(res->hist, 48000);
	}
	ipc_result_diagnose(res, IPC_STOP_RUNS, -1);

	is_str(ipc_case_describe(&cs, buf, sizeof(buf)),
	       "fetch tcp http://localhost/x body=16k c=10",
	       "unknown pattern: its own parameters in its words");
	ok(res->summary.extra[X_FAILED] == 3 &&
		   res->summary.extra[X_KEEPALIVE] == 2970,
	   "unknown pattern: the summary adds up its runs' counts");
	t = render("table", &meta, res);
	diag("%s", t ? t : "");
	ok(t && strstr(t, "fetch: requests of 16 KiB bodies") &&
		   strstr(t, "3 runs × 10000 requests"),
	   "unknown pattern: the table's heading from its description");
	ok(t && strstr(t, "transport  url") && strstr(t, "keep-alive") &&
		   strstr(t, "failed  keep-alive reqs  body read"),
	   "unknown pattern: its parameters and figures are columns");
	ok(t && strstr(t, "http://localhost/x  16 KiB  on") &&
		   strstr(t, "2970") && strstr(t, "46.6 MiB"),
	   "unknown pattern: ... with its values");
	free(t);
	t = render("json", &meta, res);
	ok(t && strstr(t, "\"url\": \"http://localhost/x\"") &&
		   strstr(t, "\"body_size\": 16384") &&
		   strstr(t, "\"keepalive\": \"on\"") &&
		   strstr(t, "\"failed_connect\": 2,") &&
		   strstr(t, "\"keepalive_requests\": 2970,"),
	   "unknown pattern: JSON has its parameters, per-run and summed "
	   "counts");
	free(t);
	ipc_result_free(res);
}

int main(void)
{
	size_t n = 0;

	for (size_t i = 0; ipc_patterns[i]; i++, n++)
		test_pattern(ipc_patterns[i]);
	ok(n >= 6, "%zu patterns registered", n);
	test_metrics();
	test_result_metric();
	test_unknown_pattern();
	return done_testing();
}

/* SPDX-License-Identifier: MIT */
/*
 * Tests of the reader of result documents: for every registered pattern a
 * result with every figure the writer knows (loss, flows, extras, cost,
 * modes, flags) is written, read back, and written again to the very same
 * document, table and CSV; documents of older ipcperfs read; malformed
 * ones fail with the file and the field named.
 */
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ipcperf/report.h"
#include "../tap.h"
#include "doc/lib_internal.h"
#include "pattern/lib_internal.h"
#include "run/lib_internal.h"
#include "stats/lib_internal.h"

static const struct ipc_transport_ops tp_udp = {
	.name = "udp",
	.caps = IPC_TP_MSG | IPC_TP_LOSSY | IPC_TP_FD | IPC_TP_NET,
};
static const struct ipc_engine_ops eng_epoll = {.name = "epoll"};

static struct ipc_trace_unit units[] = {
	{.off = 0, .len = 5, .dir = 0},
	{.off = 5, .len = 9, .dir = 1},
	{.off = 14, .len = 3, .dir = 0},
};
static struct ipc_trace trace = {
	.path = "traces/gdb-step.log",
	.name = "gdb-step",
	.gdb = true,
	.units = units,
	.nunits = 3,
	.nbytes = 17,
	.bytes_c2s = 8,
	.bytes_s2c = 9,
	.exchanges = 2,
	.think_ns = 1500,
	.max_packet = 256,
};
static struct ipc_link wan = {
	.name = "wan+loss=1%",
	.relay = true,
	.delay_ns = 35000000,
	.jitter_ns = 2000000,
	.rate_bps = 10000000,
	.bits_per_byte = 8,
	.loss_ppm = 10000,
	.mtu = 1448,
	.overhead = 90,
};

static struct ipc_host host = {
	.kernel = "Linux 6.1.0",
	.machine = "x86_64",
	.hostname = "testhost",
	.cpu_model = "Test CPU @ 3.0GHz",
	.cpus = 8,
	.timer_ns = 20,
	.cores = 4,
	.packages = 1,
	.smt = 1,
	.mem_bytes = 8ull << 30,
	.hypervisor = true,
	.virt = "kvm",
	.clocksource = "tsc",
	.governor = "",
	.loadavg = {0.5, 0.25, 0.125},
	.perf = "cycles and instructions: not counted",
	.perf_sw = true,
	.started = "2025-01-02T03:04:05Z",
	.ended = "2025-01-02T03:05:06Z",
};

static char *const argv_x[] = {"ipcperf", "rr", "-t", "udp", NULL};

static struct ipc_runopts runopts(void)
{
	struct ipc_runopts ro;

	ipc_runopts_default(&ro);
	ro.pin_server = 1;
	ro.tp.device[0] = "/dev/ttyS0";
	ro.tp.device[1] = "/dev/ttyS1";
	ro.tp.baud = 115200;
	ro.faults.stall_every = 7;
	return ro;
}

/* Every parameter of @pat set to a value of its own. */
static void set_params(struct ipc_case *cs)
{
	uint64_t v = 64;

	for (const struct ipc_param *p = cs->pat->params; p && p->key; p++) {
		if ((p->flags & IPC_PARAM_DERIVED) || !ipc_param_is_number(p) ||
		    p->in == IPC_IN_TRACE)
			continue;
		/* A named value has its names: the second of them. */
		ipc_param_set_u64(cs, p,
				  p->fmt == IPC_FMT_NAME && p->names ? 1 : v);
		v = v * 3 + 1;
	}
}

static void fake_run(struct ipc_run_stats *s, uint64_t base, size_t i)
{
	uint64_t b = base + i * base / 7;

	s->iterations = 1000 + i;
	s->messages = 2 * s->iterations;
	s->bytes = 64 * s->iterations;
	s->elapsed_ns = s->iterations * b;
	s->msgs_per_s = (double)s->messages * 1e9 / (double)s->elapsed_ns;
	s->bytes_per_s = (double)s->bytes * 1e9 / (double)s->elapsed_ns;
	s->timer_ns = 19;
	s->lat = (struct ipc_lat){.min = b / 2,
				  .p50 = b,
				  .p90 = b + 3,
				  .p99 = 2 * b,
				  .p999 = 3 * b,
				  .max = 9 * b,
				  .mean = (double)b * 1.07,
				  .stddev = (double)b / 3};
	s->sock = (struct ipc_sock_info){.valid = true,
					 .sndbuf = 212992,
					 .rcvbuf = 131072,
					 .nodelay = -1};
	s->loss = (struct ipc_loss){.counted = true,
				    .reorder_known = true,
				    .sent = 1000 + i,
				    .received = 990,
				    .lost = 10 + i,
				    .late = 2,
				    .reordered = 1};
	s->flows = (struct ipc_flows){.flows = 4,
				      .rate_min = 1234.5,
				      .rate_median = 2345.25,
				      .rate_max = 3456.125,
				      .lag_max_ns = 777};
	s->wall_ns = s->elapsed_ns + 5000;
	s->loop_msgs = s->messages + 10;
	s->client = (struct ipc_side_cost){.valid = true,
					   .user_ns = 100 + i,
					   .sys_ns = 200,
					   .vcsw = 3,
					   .ivcsw = 1,
					   .cycles = 12345,
					   .instructions = -1,
					   .migrations = 0,
					   .cpu_start = 1,
					   .cpu_end = 2,
					   .allowed = "0-3"};
	s->server = s->client;
	s->server.cpu_start = -1;
	s->server.allowed[0] = '\0';
	s->have_load = true;
	s->busy_ns = 5000;
	s->ours_ns = 4000;
	s->steal_ns = 10;
	for (size_t k = 0; k < IPC_EXTRA_MAX; k++)
		s->extra[k] = (double)(3 * k + i);
}

/*
 * A result of @pat over udp with every figure there is: 7 runs, loss,
 * flows in an open loop, a relayed link, the pattern's extras (what its
 * summarize computes, or made up), a diagnosis with modes and flags.
 */
static struct ipc_result *rich(const struct ipc_pattern_ops *pat)
{
	struct ipc_case cs = {.pat = pat, .tp = &tp_udp, .eng = &eng_epoll};
	struct ipc_result *res;
	size_t n = 7;

	cs.link = &wan;
	cs.trace = pat->flags & IPC_PAT_TRACE ? &trace : NULL;
	cs.framing = pat->flags & IPC_PAT_FRAMED ? ipc_framing_find("gdb-rsp")
						 : NULL;
	cs.framing_noack = true;
	/* A pattern with parameters of its own gets a block of them. */
	static uint64_t cfg_block[4096];
	if (pat->cfg_size && pat->cfg_size <= sizeof(cfg_block))
		cs.cfg = cfg_block;
	/* Two CPUs of one core, as --pin 2,3 might on an SMT machine. */
	cs.place = (struct ipc_place){.cpus = IPC_CPUS_TWO,
				      .client_cpu = 2,
				      .server_cpu = 3,
				      .smt = 1};
	set_params(&cs);
	res = ipc_result_new(&cs);
	if (!res)
		abort();
	res->ro = runopts();
	res->runs = calloc(n, sizeof(*res->runs));
	if (!res->runs)
		abort();
	res->runs_cap = res->nruns = n;
	for (size_t i = 0; i < n; i++)
		fake_run(&res->runs[i], 5000, i);
	for (size_t i = 0; i < 40; i++)
		ipc_hist_record(res->hist, 5000 + 10 * i);
	for (size_t i = 0; i < 9; i++)
		ipc_hist_record(res->xhist, 700 + 3 * i);
	ipc_result_diagnose(res, IPC_STOP_MAX_RUNS, 1.75);
	res->status = IPC_STATUS_PARTIAL;
	snprintf(res->error, sizeof(res->error), "peer closed after 3 runs");
	res->summary.loss = res->runs[0].loss;
	res->summary.flows = res->runs[0].flows;
	ipc_result_pattern_summary(res);
	for (size_t k = 0; k < ipc_pattern_nextras(pat); k++)
		if (!(pat->extras[k].flags & IPC_EXTRA_RUN) &&
		    !isfinite(res->summary.extra[k]))
			res->summary.extra[k] = 4242 + (double)k;
	res->diag.modes = (struct ipc_modes){.bimodal = true,
					     .nlow = 4,
					     .nhigh = 3,
					     .low = 5100,
					     .high = 9800.5};
	res->diag.mode_same[0] = 4;
	res->diag.mode_split[1] = 3;
	res->diag.outliers = 1;
	res->diag.have_load = true;
	res->diag.other_cpus = 0.75;
	res->diag.steal_cpus = 0.125;
	res->diag.flags = (1u << IPC_FLAG_COUNT) - 1;
	ipc_result_word_flags(res, res->diag.flags);
	return res;
}

/* Feed @meta and @res[0..n) to formatter @name; what it printed. */
static char *render(const char *name, const struct ipc_report_meta *meta,
		    struct ipc_result *const *res, size_t n,
		    const struct ipc_skip *skips, size_t nskips)
{
	struct ipc_report r = {0};
	char *buf = NULL;
	size_t len = 0, i;
	int e;

	r.ops = ipc_report_find(name);
	r.meta = meta;
	r.out = open_memstream(&buf, &len);
	if (!r.ops || !r.out)
		abort();
	e = ipc_report_begin(&r);
	for (i = 0; !e && i < nskips; i++)
		e = ipc_report_skip(&r, &skips[i]);
	for (i = 0; !e && i < n; i++)
		e = ipc_report_result(&r, res[i]);
	if (!e)
		e = ipc_report_end(&r);
	fclose(r.out);
	if (e)
		diag("%s: %s", name, strerror(-e));
	return buf;
}

/*
 * Two CSV documents alike field by field, numbers within 1e-12: a column
 * that adds two figures (client_csw_per_msg) may differ in the last of
 * its 15 digits when the figures are read back from 15 digits.
 */
static bool same_csv(const char *a, const char *b)
{
	char *x, *y;

	while (*a && *b) {
		double u = strtod(a, &x), v = strtod(b, &y);

		if (x != a && y != b) {
			if (fabs(u - v) > 1e-12 * fmax(fabs(u), fabs(v)))
				return false;
			a = x;
			b = y;
			continue;
		}
		if (*a++ != *b++)
			return false;
	}
	return !*a && !*b;
}

/* Say where two texts part, to find a figure that did not come back. */
static bool same_text(const char *a, const char *b, const char *what)
{
	size_t i = 0;

	if (a && b && !strcmp(a, b))
		return true;
	while (a && b && a[i] && a[i] == b[i])
		i++;
	diag("%s: they part at byte %zu: ...%.60s... vs ...%.60s...", what, i,
	     a ? a + (i > 40 ? i - 40 : 0) : "(none)",
	     b ? b + (i > 40 ? i - 40 : 0) : "(none)");
	return false;
}

static void test_round_trip(void)
{
	struct ipc_runopts ro = runopts();
	struct ipc_report_meta meta = {
		.version = "v9.9-test",
		.command = "rr",
		.argc = 4,
		.argv = argv_x,
		.host = &host,
		.ro = &ro,
		.build = "-O2",
	};
	struct ipc_skip skip = {"transport tcp6", "no IPv6 here"};
	static const char *const fmts[] = {"json", "table", "csv"};
	struct ipc_result *res[16];
	struct ipc_doc *doc = NULL;
	char err[256], *a, *b;
	size_t n = 0, i;
	int rc;

	for (i = 0; ipc_patterns[i] && n < 15; i++)
		res[n++] = rich(ipc_patterns[i]);
	/* And one that failed before its first run. */
	res[n] = ipc_result_new(&(struct ipc_case){
		.pat = &ipc_pattern_rr, .tp = &tp_udp, .eng = &eng_epoll});
	res[n]->status = IPC_STATUS_ERROR;
	snprintf(res[n]->error, sizeof(res[n]->error), "connect: refused");
	n++;

	a = render("json", &meta, res, n, &skip, 1);
	rc = ipc_doc_parse(a, strlen(a), "rich.json", &doc, err, sizeof(err));
	if (!ok(rc == 0, "the rich document reads back"))
		diag("%d: %s", rc, err);
	if (rc)
		goto out;
	is_int(doc->nresults, "==", n, "every result is read");
	is_int(doc->nskips, "==", 1, "the skip is read");
	ok(doc->meta.host && !strcmp(doc->meta.host->hostname, "testhost") &&
		   doc->meta.argc == 4 && !strcmp(doc->meta.argv[3], "udp"),
	   "host and argv are read");
	for (size_t f = 0; f < 3; f++) {
		char *x = render(fmts[f], &meta, res, n, &skip, 1);
		char *y = render(fmts[f], &doc->meta, doc->results,
				 doc->nresults, doc->skips, doc->nskips);

		ok(x && y &&
			   (f == 2 ? same_csv(x, y) || same_text(x, y, "csv")
				   : same_text(x, y, fmts[f])),
		   "%s: written from the results read back, the same as "
		   "from the originals (%zu bytes)",
		   fmts[f], x ? strlen(x) : 0);
		free(x);
		free(y);
	}
	for (i = 0; i + 1 < n; i++) {
		const struct ipc_result *r = doc->results[i];

		ok(r->cs.pat == res[i]->cs.pat && r->nruns == res[i]->nruns &&
			   r->summary.lat.p99 == res[i]->summary.lat.p99 &&
			   r->runs[6].lat.p50 == res[i]->runs[6].lat.p50 &&
			   r->diag.metric == res[i]->diag.metric &&
			   fabs(ipc_run_metric(r, 3) -
				ipc_run_metric(res[i], 3)) <=
				   1e-9 * ipc_run_metric(res[i], 3),
		   "%s: the figures read back are the ones written",
		   r->cs.pat->name);
		ok(r->cs.place.cpus == IPC_CPUS_TWO &&
			   r->cs.place.client_cpu == 2 &&
			   r->cs.place.server_cpu == 3 && !r->cs.place.chosen &&
			   r->cs.place.smt == 1,
		   "%s: the placement reads back", r->cs.pat->name);
	}
	b = render("json", &doc->meta, doc->results, doc->nresults, doc->skips,
		   doc->nskips);
	ok(b && !strcmp(a, b), "json: the read-back document writes itself "
			       "again byte for byte");
	free(b);
out:
	free(a);
	ipc_doc_free(doc);
	for (i = 0; i < n; i++)
		ipc_result_free(res[i]);
}

/* A document written by a test, then changed by @edit, read back. */
struct bad_case {
	const char *what;
	const char *from, *to; /* replace the first @from by @to */
	int rc;
	const char *says; /* the message has this */
};

static void test_malformed(void)
{
	static const struct bad_case cases[] = {
		{"a percentile missing", "\"p50\": 5000,", "", -EINVAL,
		 "bad.json: results[0].runs[0].latency_ns.p50: missing"},
		{"a percentile not a number", "\"p50\": 5000,",
		 "\"p50\": \"fast\",", -EINVAL,
		 "results[0].runs[0].latency_ns.p50: not an integer"},
		{"a rate not a number", "\"msgs_per_s\": 4",
		 "\"msgs_per_s\": \"x\", \"y\": 4", -EINVAL,
		 "results[0].runs[0].msgs_per_s: not a number"},
		{"a negative count", "\"iterations\": 1000,",
		 "\"iterations\": -1000,", -EINVAL,
		 "results[0].runs[0].iterations: negative"},
		{"an unknown pattern", "\"pattern\": \"rr\"",
		 "\"pattern\": \"http2\"", -EINVAL,
		 "results[0].pattern: unknown pattern 'http2'"},
		{"no pattern", "\"pattern\": \"rr\",", "", -EINVAL,
		 "results[0].pattern: missing"},
		{"an unknown status", "\"status\": \"partial\"",
		 "\"status\": \"fine\"", -EINVAL,
		 "results[0].status: 'fine' is not one of ok, error, partial"},
		{"a parameter missing", "\"req_size\": 64,", "", -EINVAL,
		 "results[0].req_size: missing"},
		{"an unknown metric", "\"metric\": \"p50_ns\",",
		 "\"metric\": \"p42_ns\",", -EINVAL, "unknown metric 'p42_ns'"},
		{"runs not an array", "\"runs\": [", "\"runs\": 3, \"x\": [",
		 -EINVAL, "results[0].runs: not an array"},
		{"a newer schema", "\"schema\": 1", "\"schema\": 2", -EPROTO,
		 "schema 2, but this ipcperf reads schema 1"},
		{"no results", "\"results\": [", "\"results\": {}, \"x\": [",
		 -EINVAL, "no results array"},
		{"not JSON", "{", "{{", -EINVAL, "bad.json: not valid JSON"},
		/* Figures that contradict the run. */
		{"a rate of 1e308", "\"msgs_per_s\": 4",
		 "\"msgs_per_s\": 1e308, \"y\": 4", -EINVAL,
		 "results[0].runs[0].msgs_per_s: 1e+308 is not 2000 messages "
		 "over 5000000 ns (400000/s)"},
		{"a rate of 0", "\"msgs_per_s\": 4",
		 "\"msgs_per_s\": 0, \"y\": 4", -EINVAL,
		 "results[0].runs[0].msgs_per_s: 0 is not 2000 messages"},
		{"a negative rate", "\"msgs_per_s\": 4",
		 "\"msgs_per_s\": -5, \"y\": 4", -EINVAL,
		 "results[0].runs[0].msgs_per_s: -5 is negative"},
		{"a mean beyond the maximum", "\"mean\": 5350",
		 "\"mean\": 1e308", -EINVAL,
		 "results[0].runs[0].latency_ns.mean: 1e+308 is outside min "
		 "2500 .. max 45000"},
		{"percentiles out of order", "\"p50\": 5000,",
		 "\"p50\": 900000,", -EINVAL,
		 "results[0].runs[0].latency_ns: min 2500, p50 900000"},
		{"three CPUs", "\"cpus\": 2", "\"cpus\": 3", -EINVAL,
		 "results[0].cpus: not 1, 2 or null"},
		{"a pinned CPU that is not one", "\"client\": 2",
		 "\"client\": -2", -EINVAL,
		 "results[0].pin.client: not a CPU number"},
	};
	struct ipc_runopts ro = runopts();
	struct ipc_report_meta meta = {
		.version = "v", .command = "rr", .host = &host, .ro = &ro};
	struct ipc_result *res = rich(&ipc_pattern_rr);
	char *doc = render("json", &meta, &res, 1, NULL, 0);
	struct ipc_doc *d;
	char err[256], *text, *at;
	size_t k;
	int rc;

	for (k = 0; doc && k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct bad_case *c = &cases[k];

		at = strstr(doc, c->from);
		if (!ok(at != NULL, "%s: the document has '%s'", c->what,
			c->from))
			continue;
		if (asprintf(&text, "%.*s%s%s", (int)(at - doc), doc, c->to,
			     at + strlen(c->from)) < 0)
			abort();
		err[0] = '\0';
		d = NULL;
		rc = ipc_doc_parse(text, strlen(text), "bad.json", &d, err,
				   sizeof(err));
		is_int(rc, "==", c->rc, "%s: refused", c->what);
		ok(strstr(err, c->says) && !strncmp(err, "bad.json: ", 10),
		   "%s: says '%s' (%s)", c->what, c->says, err);
		ok(d == NULL, "%s: no document", c->what);
		ipc_doc_free(d);
		free(text);
	}
	rc = ipc_doc_read("/nonexistent/x.json", &d, err, sizeof(err));
	is_int(rc, "==", -ENOENT, "a missing file: -ENOENT");
	ok(strstr(err, "/nonexistent/x.json: cannot read") != NULL,
	   "a missing file: says so (%s)", err);
	free(doc);
	ipc_result_free(res);
}

/*
 * A file's strings never reach a terminal raw: the
 * reader writes control characters out, C0, DEL and C1 in UTF-8.
 */
static void test_escapes(void)
{
	struct ipc_runopts ro = runopts();
	struct ipc_report_meta meta = {
		.version = "v", .command = "rr", .host = &host, .ro = &ro};
	struct ipc_result *res = rich(&ipc_pattern_rr);
	char *doc = render("json", &meta, &res, 1, NULL, 0), *text = NULL;
	const char *at =
		doc ? strstr(doc, "\"peer closed after 3 runs\"") : NULL;
	struct ipc_doc *d = NULL;
	char err[256] = "";

	if (!ok(at != NULL, "escapes: the document has its error") ||
	    asprintf(&text,
		     "%.*s\"\\u001b]0;owned\\u0007\\u001b[2J\\u007f"
		     "\xc2\x9b"
		     "31m\"%s",
		     (int)(at - doc), doc,
		     at + strlen("\"peer closed after 3 "
				 "runs\"")) < 0)
		goto out;
	if (!ok(!ipc_doc_parse(text, strlen(text), "esc.json", &d, err,
			       sizeof(err)),
		"escapes: read (%s)", err))
		goto out;
	is_str(d->results[0]->error,
	       "\\x1b]0;owned\\x07\\x1b[2J\\x7f\\u009b31m",
	       "escapes: ESC, BEL, DEL and the C1 CSI written out");
out:
	ipc_doc_free(d);
	free(text);
	free(doc);
	ipc_result_free(res);
}

/*
 * A document of an older ipcperf (before the diagnosis: no metric,
 * estimate, target, flags, fingerprint) reads, and is judged by its
 * pattern's metric.
 */
static void test_older(void)
{
	static const char old[] =
		"{\"ipcperf\": {\"version\": \"v0.1\", \"schema\": 1},"
		" \"host\": {\"kernel\": \"Linux\", \"machine\": \"x86_64\","
		"  \"hostname\": \"h\", \"cpu_model\": \"\", \"cpus\": 2,"
		"  \"timer_ns\": 25},"
		" \"command\": \"stream\", \"argv\": [\"ipcperf\"],"
		" \"results\": [{\"pattern\": \"stream\", \"transport\": "
		"\"pipe\", \"engine\": \"blocking\", \"status\": \"ok\","
		"  \"msg_size\": 0, \"count\": 10,"
		"  \"runs\": [{\"iterations\": 5, \"messages\": 50, \"bytes\": "
		"0,"
		"   \"elapsed_ns\": 1000, \"msgs_per_s\": 5e7, \"timer_ns\": "
		"25,"
		"   \"latency_ns\": {\"min\": 1, \"mean\": 2, \"stddev\": 0,"
		"   \"p50\": 2, \"p90\": 2, \"p99\": 3, \"p999\": 3, \"max\": "
		"3}}],"
		"  \"summary\": {\"runs\": 1, \"iterations\": 5, \"messages\": "
		"50,"
		"   \"bytes\": 0, \"elapsed_ns\": 1000, \"msgs_per_s\": 5e7,"
		"   \"latency_ns\": {\"min\": 1, \"mean\": 2, \"stddev\": 0,"
		"   \"p50\": 2, \"p90\": 2, \"p99\": 3, \"p999\": 3, \"max\": "
		"3}}"
		"}]}";
	struct ipc_doc *d = NULL;
	char err[256] = "";
	int rc = ipc_doc_parse(old, sizeof(old) - 1, "old.json", &d, err,
			       sizeof(err));

	if (!ok(rc == 0, "an older document reads"))
		diag("%d: %s", rc, err);
	if (!rc) {
		is_str(ipc_metric_name(d->results[0]), "msgs_per_s",
		       "judged by its pattern's metric (no bytes: messages)");
		ok(d->results[0]->runs[0].msgs_per_s == 5e7 &&
			   isnan(d->results[0]->runs[0].bytes_per_s),
		   "a rate the writer left out is not a measured 0");
		ok(d->meta.host->cores == -1 && !d->results[0]->diag.flags,
		   "what it lacks is unknown, not zero");
	}
	ipc_doc_free(d);
}

/*
 * The why of a flag is stored with the result: a saved document
 * re-rendered shows the sentence it was measured with, not today's
 * rules; one saved without it (older) gets today's words.
 */
static void test_whys(void)
{
	struct ipc_runopts ro = runopts();
	struct ipc_report_meta meta = {.version = "v9.9-test",
				       .command = "rr",
				       .host = &host,
				       .ro = &ro};
	static const char mark[] = "\"flag\": \"outliers\",";
	struct ipc_result *res = rich(&ipc_pattern_rr);
	struct ipc_doc *doc = NULL;
	char err[256], *a, *at, *q, *t = NULL, want[IPC_WHY_MAX];
	size_t len;
	int rc;

	snprintf(want, sizeof(want), "%s", res->diag.why[IPC_FLAG_OUTLIERS]);
	ok(want[0] != '\0', "the diagnosis worded why: %s", want);
	a = render("json", &meta, &res, 1, NULL, 0);
	at = a ? strstr(a, mark) : NULL;
	q = at ? strstr(at, "\"why\": \"") : NULL;
	if (!ok(q != NULL, "json: the outliers flag and its why"))
		goto out;
	/* Its why as an older rule worded it. */
	q += strlen("\"why\": \"");
	len = (size_t)(strchr(q, '"') - q);
	if (asprintf(&t, "%.*sas measured then%s", (int)(q - a), a, q + len) <
	    0)
		abort();
	rc = ipc_doc_parse(t, strlen(t), "then.json", &doc, err, sizeof(err));
	if (!ok(rc == 0, "a document with its own why reads back"))
		diag("%s", err);
	if (!rc) {
		char *tab =
			render("table", &doc->meta, doc->results, 1, NULL, 0);

		is_str(doc->results[0]->diag.why[IPC_FLAG_OUTLIERS],
		       "as measured then", "the stored why is read back");
		ok(tab && strstr(tab, "outliers: as measured then"),
		   "re-rendered, the table shows the why it was measured with");
		free(tab);
	}
	ipc_doc_free(doc);
	doc = NULL;
	free(t);
	/* Without its why, as written before whys were read back. */
	if (asprintf(&t, "%.*s\"whyx\": \"%s", (int)(q - a) - 8, a, q) < 0)
		abort();
	rc = ipc_doc_parse(t, strlen(t), "older.json", &doc, err, sizeof(err));
	if (!ok(rc == 0, "a document without the why reads back"))
		diag("%s", err);
	if (!rc)
		is_str(doc->results[0]->diag.why[IPC_FLAG_OUTLIERS], want,
		       "without it, today's rules word it");
	ipc_doc_free(doc);
	free(t);
out:
	free(a);
	ipc_result_free(res);
}

/*
 * Each run's outlier mark and the early wake-up are decided when measured,
 * stored, and read back as stored (the HTML page marks what the document
 * says); a document without them gets the reader's rule.
 */
static void test_marks(void)
{
	struct ipc_runopts ro = runopts();
	struct ipc_report_meta meta = {.version = "v9.9-test",
				       .command = "rr",
				       .host = &host,
				       .ro = &ro};
	struct ipc_result *res = rich(&ipc_pattern_rr);
	struct ipc_doc *doc = NULL;
	char err[256], *a, *p, *html;
	bool far[7], same = true;
	double v[7];
	size_t i, marked = 0;
	int rc;

	for (i = 0; i < res->nruns; i++)
		res->runs[i].outlier = i == 2;
	res->diag.early_wake_vcsw = 1.5;
	a = render("json", &meta, &res, 1, NULL, 0);
	rc = a ? ipc_doc_parse(a, strlen(a), "marks.json", &doc, err,
			       sizeof(err))
	       : -1;
	if (!ok(rc == 0, "a document with marks reads back"))
		goto out;
	for (i = 0; i < doc->results[0]->nruns; i++)
		marked += doc->results[0]->runs[i].outlier ? 1 + i : 0;
	ok(marked == 3, "the stored mark (run 2 only) is read back");
	ok(doc->results[0]->diag.early_wake_vcsw == 1.5,
	   "the early wake-up is read back");
	html = render("html", &doc->meta, doc->results, 1, NULL, 0);
	ok(html && strstr(html, "(outlier)"),
	   "the page marks the run the document marks");
	free(html);
	ipc_doc_free(doc);
	doc = NULL;
	/* An older document: no marks stored. */
	for (p = a; (p = strstr(p, "\"outlier\": ")); p++)
		memcpy(p + 1, "olderx", 6);
	p = strstr(a, "\"early_wake_vcsw\"");
	if (p)
		memcpy(p + 1, "olderx", 6);
	rc = ipc_doc_parse(a, strlen(a), "older.json", &doc, err, sizeof(err));
	if (!ok(rc == 0, "a document without marks reads"))
		diag("%s", err);
	if (!rc) {
		for (i = 0; i < res->nruns; i++)
			v[i] = ipc_run_metric(res, i);
		ipc_runs_outliers(v, res->nruns, far);
		for (i = 0; i < res->nruns; i++)
			same &= doc->results[0]->runs[i].outlier == far[i];
		ok(same, "without marks, the reader's rule marks the runs");
		ok(doc->results[0]->diag.early_wake_vcsw == 0,
		   "and an rr over udp has no early wake-up");
	}
	ipc_doc_free(doc);
out:
	free(a);
	ipc_result_free(res);
}

/*
 * A document read back costs a small multiple of its size: 300 results
 * held after the read take less than twice the text (a whole histogram
 * per result, 38 KB of buckets, took it to 2.8 times; an empty exchange
 * histogram as well, to 4.9).
 * Counted by malloc's own tally (not kept under the sanitizers, whose
 * allocator has none: skipped there).
 */
static void test_memory(void)
{
	struct ipc_runopts ro = runopts();
	struct ipc_report_meta meta = {.version = "v9.9-test",
				       .command = "rr",
				       .host = &host,
				       .ro = &ro};
	struct ipc_result *res = rich(&ipc_pattern_rr);
	char *one = render("json", &meta, &res, 1, NULL, 0), *text = NULL;
	json_t *root = one ? json_loads(one, 0, NULL) : NULL;
	json_t *a = json_object_get(root, "results");
	struct ipc_doc *doc = NULL;
	size_t before, held, len;
	char err[256];

	for (int i = 1; a && i < 300; i++)
		json_array_append(a, json_array_get(a, 0));
	text = root ? json_dumps(root, JSON_INDENT(2)) : NULL;
	json_decref(root);
	free(one);
	ipc_result_free(res);
	if (!ok(text != NULL, "memory: a document of 300 results"))
		return;
	len = strlen(text);
	before = mallinfo2().uordblks;
	if (!before) {
		skip("memory: malloc keeps no tally here (a sanitizer)");
		free(text);
		return;
	}
	if (!ok(ipc_doc_parse(text, len, "many.json", &doc, err, sizeof(err)) ==
			0,
		"memory: it reads"))
		diag("%s", err);
	held = mallinfo2().uordblks - before;
	ok(held < 2 * len, "memory: %zu bytes held for %zu of text (%.1fx)",
	   held, len, (double)held / (double)len);
	ipc_doc_free(doc);
	free(text);
}

/*
 * "[0,0,...,0]" with @n values in all (the first counted once, the
 * array's '[' and each ',' one each): a new string of 2 n - 1 bytes.
 */
static char *zeros(size_t n, size_t *len)
{
	char *t = malloc(2 * n);

	if (!t)
		abort();
	t[0] = '[';
	for (size_t i = 1; i + 1 < n; i++)
		memcpy(t + 1 + 2 * (i - 1), "0,", 2);
	memcpy(t + 2 * n - 3, "0]", 3);
	*len = 2 * n - 1;
	return t;
}

/* A result document whose results are @n zeros (not results at all). */
static char *zero_results(size_t n)
{
	size_t len =
		strlen("{\"ipcperf\": {\"schema\": 1}, \"results\": [0]}") +
		2 * n;
	char *t = malloc(len), *p;

	if (!t)
		abort();
	p = t + sprintf(t, "{\"ipcperf\": {\"schema\": 1}, \"results\": [0");
	for (size_t i = 1; i < n; i++, p += 2)
		memcpy(p, ",0", 2);
	strcpy(p, "]}");
	return t;
}

/* The bounds on what a document may hold, at and one past each. */
static void test_limits(void)
{
	struct ipc_doc *d = NULL;
	char err[256], *t, *s;
	size_t len;
	int rc;

	t = zeros(IPC_DOC_VALUES_MAX, &len);
	is_int(ipc_doc_values_check(t, len, "x.json", err, sizeof(err)),
	       "==", 0, "limits: %u values are taken", IPC_DOC_VALUES_MAX);
	free(t);
	t = zeros(IPC_DOC_VALUES_MAX + 1, &len);
	err[0] = '\0';
	is_int(ipc_doc_values_check(t, len, "x.json", err, sizeof(err)),
	       "==", -EFBIG, "limits: one value more is refused");
	rc = ipc_doc_parse(t, len, "x.json", &d, err, sizeof(err));
	is_int(rc, "==", -EFBIG, "limits: before parsing");
	ok(!strcmp(err, "x.json: more than 8388608 JSON values"),
	   "limits: says the file and the limit (%s)", err);
	ok(d == NULL, "limits: no document");
	/* The same commas in a string are no values, an escaped '"' no end. */
	memcpy(t + 1, "\"\\\"", 3);
	t[len - 3] = '"';
	is_int(ipc_doc_values_check(t, len, "x.json", err, sizeof(err)),
	       "==", 0, "limits: commas in a string are not counted");
	free(t);

	/*
	 * At the cap the results are read (and the first, a zero, is
	 * refused as no result); one more and none is.
	 */
	s = zero_results(IPC_DOC_RESULTS_MAX);
	rc = ipc_doc_parse(s, strlen(s), "r.json", &d, err, sizeof(err));
	ok(rc == -EINVAL && strstr(err, "results[0]: not an object"),
	   "limits: %u results are read (%s)", IPC_DOC_RESULTS_MAX, err);
	free(s);
	s = zero_results(IPC_DOC_RESULTS_MAX + 1);
	rc = ipc_doc_parse(s, strlen(s), "r.json", &d, err, sizeof(err));
	is_int(rc, "==", -EFBIG, "limits: one result more is refused");
	ok(!strcmp(err, "r.json: more than 50000 results"),
	   "limits: says the file and the limit (%s)", err);
	ok(d == NULL, "limits: no document");
	free(s);
}

int main(void)
{
	test_round_trip();
	test_malformed();
	test_escapes();
	test_older();
	test_whys();
	test_marks();
	test_memory();
	test_limits();
	return done_testing();
}

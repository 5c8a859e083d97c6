/* SPDX-License-Identifier: MIT */
/*
 * Tests of the report layer on synthetic results: unit formatting, the JSON
 * contract (parsed back with jansson), CSV quoting and field counts, table
 * alignment and the suite layout, and output files that appear whole or not
 * at all.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <jansson.h>

#include "ipcperf/report.h"
#include "../helpers.h"
#include "../tap.h"
#include "pattern/lib_internal.h"
#include "report/lib_internal.h"
#include "run/lib_internal.h"
#include "stats/lib_internal.h"
#include "explain/lib_internal.h"

#define pat_rr ipc_pattern_rr
#define pat_stream ipc_pattern_stream
#define pat_bulk ipc_pattern_bulk
static const struct ipc_transport_ops tp_pipe = {
	.name = "pipe",
	.caps = IPC_TP_STREAM | IPC_TP_FD,
};
static const struct ipc_transport_ops tp_unix = {
	.name = "unix",
	.caps = IPC_TP_STREAM | IPC_TP_FD | IPC_TP_CONNECT,
};
static const struct ipc_transport_ops tp_tcp = {
	.name = "tcp",
	.caps = IPC_TP_STREAM | IPC_TP_FD | IPC_TP_CONNECT | IPC_TP_NET,
};
static const struct ipc_transport_ops tp_udp = {
	.name = "udp",
	.caps = IPC_TP_MSG | IPC_TP_LOSSY | IPC_TP_FD | IPC_TP_NET,
};
static const struct ipc_engine_ops eng_blocking = {.name = "blocking"};
static const struct ipc_engine_ops eng_epoll = {.name = "epoll"};

static const struct ipc_host host = {
	.kernel = "Linux 6.1.0",
	.machine = "x86_64",
	.hostname = "testhost",
	.cpu_model = "Test CPU @ 3.0GHz",
	.cpus = 8,
	.timer_ns = 20,
};

static char *const argv_rr[] = {"ipcperf", "rr", "-t", "pipe,tcp", NULL};

static struct ipc_runopts runopts(void)
{
	struct ipc_runopts ro;

	memset(&ro, 0, sizeof(ro));
	ro.iterations = 10000;
	ro.warmup = 1000;
	ro.runs = 3;
	ro.placement = IPC_PLACE_PROCESS;
	ro.timeout_ns = 1000000000;
	ro.pin_client = -1;
	ro.pin_server = 2;
	ro.tp.nodelay = true;
	return ro;
}

/* Latency numbers around @base ns, the way a histogram would give them. */
static void fake_lat(struct ipc_lat *l, uint64_t base)
{
	l->min = base * 8 / 10;
	l->p50 = base;
	l->p90 = base * 12 / 10;
	l->p99 = base * 2;
	l->p999 = base * 5;
	l->max = base * 40;
	l->mean = (double)base * 1.1 + 0.4;
	l->stddev = (double)base * 0.3 + 0.3;
}

/*
 * A result with @nruns runs of @iters iterations of about @base ns each,
 * moving @bytes_per_iter bytes and @msgs_per_iter messages per iteration.
 */
static struct ipc_result *mk(const struct ipc_case *cs, size_t nruns,
			     uint64_t base, uint64_t bytes_per_iter,
			     uint64_t msgs_per_iter)
{
	struct ipc_result *res = ipc_result_new(cs);
	double p50s[16];
	size_t i;

	if (!res)
		abort();
	if (nruns) {
		res->runs = calloc(nruns, sizeof(*res->runs));
		if (!res->runs)
			abort();
		res->runs_cap = nruns;
	}
	for (i = 0; i < nruns; i++) {
		struct ipc_run_stats *s = &res->runs[i];
		uint64_t b = base + i * base / 50;

		s->iterations = 10000;
		s->messages = s->iterations * msgs_per_iter;
		s->bytes = s->iterations * bytes_per_iter;
		s->elapsed_ns = s->iterations * b * 11 / 10;
		s->msgs_per_s =
			(double)s->messages * 1e9 / (double)s->elapsed_ns;
		s->bytes_per_s = (double)s->bytes * 1e9 / (double)s->elapsed_ns;
		s->timer_ns = 20;
		fake_lat(&s->lat, b);
		/* The metric: p50, bytes/s, or messages/s at size 0. */
		p50s[i] = cs->pat->metric->src == IPC_SRC_P50 ? (double)b
			  : s->bytes			      ? s->bytes_per_s
							      : s->msgs_per_s;
	}
	res->nruns = nruns;
	if (nruns) {
		struct ipc_run_stats *s = &res->summary;

		*s = res->runs[0];
		s->iterations = 10000 * nruns;
		s->messages = res->runs[0].messages * nruns;
		s->bytes = res->runs[0].bytes * nruns;
		s->elapsed_ns = res->runs[0].elapsed_ns * nruns;
		res->metric.n = nruns;
		res->metric.mean = p50s[0];
		res->metric.median = p50s[nruns / 2];
		res->metric.stddev = nruns > 1 ? p50s[0] * 0.02 : 0;
		res->metric.cv = nruns > 1 ? 0.0234 : 0;
		if (nruns >= 6) {
			double lo = p50s[1], hi = p50s[1];

			for (i = 2; i + 1 < nruns; i++) {
				lo = fmin(lo, p50s[i]);
				hi = fmax(hi, p50s[i]);
			}
			res->metric.have_ci = true;
			res->metric.ci_level = 0.95;
			res->metric.ci_low = lo;
			res->metric.ci_high = hi;
		}
		/* What the diagnosis would say of that interval. */
		res->diag.estimate = res->metric.median;
		res->diag.half_pct = -1;
		res->diag.target_met = ipc_runs_target_met(&res->metric, 1,
							   &res->diag.half_pct);
	}
	return res;
}

static struct ipc_result *mk_rr(const struct ipc_transport_ops *tp,
				const struct ipc_engine_ops *eng, size_t req,
				size_t resp, size_t nruns, uint64_t base)
{
	struct ipc_case cs = {.pat = &pat_rr, .tp = tp, .eng = eng};

	cs.req_size = req;
	cs.resp_size = resp;
	return mk(&cs, nruns, base, req + resp, 2);
}

static struct ipc_result *mk_stream(const struct ipc_transport_ops *tp,
				    size_t size, uint64_t count, size_t nruns,
				    uint64_t base)
{
	struct ipc_case cs = {.pat = &pat_stream, .tp = tp};

	cs.eng = &eng_blocking;
	cs.msg_size = size;
	cs.count = count;
	return mk(&cs, nruns, base, size * count, count);
}

static struct ipc_result *mk_bulk(const struct ipc_transport_ops *tp,
				  uint64_t total, size_t chunk, size_t nruns,
				  uint64_t base)
{
	struct ipc_case cs = {.pat = &pat_bulk, .tp = tp};

	cs.eng = &eng_blocking;
	cs.total = total;
	cs.chunk_size = chunk;
	return mk(&cs, nruns, base, total, total / (chunk ? chunk : 1) + 1);
}

static void fail_result(struct ipc_result *res, enum ipc_status st,
			const char *msg)
{
	res->status = st;
	snprintf(res->error, sizeof(res->error), "%s", msg);
}

/*
 * Feed @res[0..n) and @skips to formatter @name; returns what it printed.
 * The tests set a diagnosis by hand: its flags are worded first, as the
 * diagnosis words the ones it sets.
 */
static char *render(const char *name, const struct ipc_report_meta *meta,
		    struct ipc_result **res, size_t n,
		    const struct ipc_skip *skips, size_t nskips, int *err)
{
	struct ipc_report r = {0};
	char *buf = NULL;
	size_t len = 0, i;
	int e;

	for (i = 0; i < n; i++)
		ipc_result_word_flags(res[i], res[i]->diag.flags);

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
	*err = e;
	return buf;
}

static size_t dwidth(const char *s, size_t len)
{
	size_t n = 0, i;

	for (i = 0; i < len; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			n++;
	return n;
}

static void test_registry(void)
{
	is_str(ipc_reports[0]->name, "table", "table is the first format");
	ok(ipc_report_find("json") == ipc_reports[1], "json is found");
	ok(ipc_report_find("csv") != NULL, "csv is found");
	ok(ipc_report_find("markdown") != NULL, "markdown is found");
	ok(ipc_report_find("html") != NULL, "html is found");
	ok(ipc_report_find("yaml") == NULL, "yaml is not");
	ok(ipc_report_find(NULL) == NULL, "NULL name");
	ok(ipc_reports[5] == NULL, "the registry is NULL-terminated");
}

/* Checks on one "latency_ns" object: the eight keys, all integers. */
static bool lat_ok(json_t *lat)
{
	static const char *const keys[] = {"min", "mean", "stddev", "p50",
					   "p90", "p99",  "p999",   "max"};
	size_t i;

	if (!json_is_object(lat) || json_object_size(lat) != 8)
		return false;
	for (i = 0; i < 8; i++)
		if (!json_is_integer(json_object_get(lat, keys[i])))
			return false;
	return true;
}

static bool is_int_key(json_t *o, const char *k)
{
	return json_is_integer(json_object_get(o, k));
}

static void test_json(void)
{
	struct ipc_runopts ro = runopts();
	struct ipc_report_meta meta = {
		.version = "v0.1-test",
		.command = "rr",
		.argc = 4,
		.argv = argv_rr,
		.host = &host,
		.ro = &ro,
	};
	struct ipc_skip sk = {"rr udp req=64K", "larger than the largest "
						"UDP datagram (65507 B)"};
	struct ipc_result *res[6];
	json_t *doc, *v, *o, *results, *r, *sum, *ci;
	json_error_t jerr;
	char *out;
	int err;
	size_t i;

	res[0] = mk_rr(&tp_pipe, &eng_blocking, 1, 1, 3, 4910);
	res[1] = mk_stream(&tp_tcp, 65536, 1000, 8, 250000);
	res[2] = mk_rr(&tp_tcp, &eng_blocking, 64, 1024, 0, 0);
	fail_result(res[2], IPC_STATUS_ERROR,
		    "connect 127.0.0.1:40123: Connection refused");
	res[3] = mk_bulk(&tp_unix, 4 << 20, 1024, 1, 2000000);
	fail_result(res[3], IPC_STATUS_PARTIAL,
		    "peer closed after 512 of 1000 iterations");
	res[3]->summary.msgs_per_s = INFINITY;
	res[3]->summary.bytes_per_s = NAN;
	res[3]->runs[0].msgs_per_s = -INFINITY;
	res[3]->summary.lat.mean = NAN;
	res[4] = mk_rr(&tp_udp, &eng_epoll, 0, 0, 0, 0);
	fail_result(res[4], IPC_STATUS_ERROR, "bad byte \xff\xfe in path");
	res[5] = mk_rr(&tp_unix, &eng_blocking, 1, 1, 7, 812);

	out = render("json", &meta, res, 6, &sk, 1, &err);
	is_int(err, "==", 0, "json: begin/result/end return 0");
	ok(out && strlen(out) && out[strlen(out) - 1] == '\n',
	   "json: ends with a newline");
	ok(out && !strstr(out, "NaN") && !strstr(out, "nan") &&
		   !strstr(out, "Infinity") && !strstr(out, "inf"),
	   "json: no NaN or Inf anywhere");
	doc = json_loads(out ? out : "", 0, &jerr);
	if (!ok(doc != NULL, "json: the document parses")) {
		diag("%s at line %d", jerr.text, jerr.line);
		goto out;
	}

	o = json_object_get(doc, "ipcperf");
	ok(json_is_object(o), "json: ipcperf is an object");
	is_str(json_string_value(json_object_get(o, "version")), "v0.1-test",
	       "json: ipcperf.version");
	v = json_object_get(o, "schema");
	ok(json_is_integer(v) && json_integer_value(v) == 1,
	   "json: ipcperf.schema == 1");
	o = json_object_get(doc, "host");
	ok(json_is_object(o) && json_is_string(json_object_get(o, "kernel")) &&
		   json_is_string(json_object_get(o, "machine")) &&
		   json_is_string(json_object_get(o, "hostname")) &&
		   json_is_string(json_object_get(o, "cpu_model")) &&
		   is_int_key(o, "cpus") && is_int_key(o, "timer_ns"),
	   "json: host has its keys and types");
	is_str(json_string_value(json_object_get(doc, "command")), "rr",
	       "json: command");
	v = json_object_get(doc, "argv");
	ok(json_is_array(v) && json_array_size(v) == 4 &&
		   !strcmp(json_string_value(json_array_get(v, 3)), "pipe,tcp"),
	   "json: argv is the command line");
	o = json_object_get(doc, "config");
	ok(json_is_object(o) && is_int_key(o, "iterations") &&
		   is_int_key(o, "duration_ns") && is_int_key(o, "warmup") &&
		   is_int_key(o, "runs") && is_int_key(o, "timeout_ns") &&
		   json_is_boolean(json_object_get(o, "verify")) &&
		   json_is_boolean(json_object_get(o, "nodelay")) &&
		   is_int_key(o, "sndbuf") && is_int_key(o, "rcvbuf"),
	   "json: config has its keys and types");
	is_str(json_string_value(json_object_get(o, "placement")), "process",
	       "json: config.placement");
	ok(json_is_null(json_object_get(o, "pin_client")) &&
		   json_integer_value(json_object_get(o, "pin_server")) == 2,
	   "json: an unpinned side is null, a pinned one its CPU");
	v = json_object_get(doc, "skipped");
	ok(json_is_array(v) && json_array_size(v) == 1 &&
		   json_is_string(
			   json_object_get(json_array_get(v, 0), "what")) &&
		   json_is_string(json_object_get(json_array_get(v, 0), "why")),
	   "json: skipped lists {what, why}");

	results = json_object_get(doc, "results");
	if (!ok(json_is_array(results) && json_array_size(results) == 6,
		"json: six results"))
		goto out;
	json_array_foreach(results, i, r)
	{
		const char *status =
			json_string_value(json_object_get(r, "status"));
		bool isok = status && !strcmp(status, "ok");
		const char *pat =
			json_string_value(json_object_get(r, "pattern"));
		json_t *runs = json_object_get(r, "runs"), *run;
		size_t j;
		bool runs_ok = json_is_array(runs) &&
			       json_array_size(runs) == res[i]->nruns;

		ok(pat && json_is_string(json_object_get(r, "transport")) &&
			   json_is_string(json_object_get(r, "engine")),
		   "json: result %zu names pattern, transport, engine", i);
		ok(isok == !json_object_get(r, "error") &&
			   (isok ||
			    json_is_string(json_object_get(r, "error"))),
		   "json: result %zu has an error string only when not ok", i);
		if (pat && !strcmp(pat, "rr"))
			ok(is_int_key(r, "req_size") &&
				   is_int_key(r, "resp_size") &&
				   !json_object_get(r, "msg_size"),
			   "json: result %zu has rr sizes", i);
		else if (pat && !strcmp(pat, "stream"))
			ok(is_int_key(r, "msg_size") &&
				   is_int_key(r, "count") &&
				   !json_object_get(r, "req_size"),
			   "json: result %zu has stream sizes", i);
		else
			ok(is_int_key(r, "total") &&
				   is_int_key(r, "chunk_size"),
			   "json: result %zu has bulk sizes", i);
		json_array_foreach(runs, j, run)
		{
			runs_ok = runs_ok && is_int_key(run, "iterations") &&
				  is_int_key(run, "messages") &&
				  is_int_key(run, "bytes") &&
				  is_int_key(run, "elapsed_ns") &&
				  is_int_key(run, "timer_ns") &&
				  json_is_real(json_object_get(
					  run, "bytes_per_s")) &&
				  lat_ok(json_object_get(run, "latency_ns"));
		}
		ok(runs_ok, "json: result %zu runs[] follow the contract", i);
		sum = json_object_get(r, "summary");
		ok(json_is_object(sum) && is_int_key(sum, "runs") &&
			   json_integer_value(json_object_get(sum, "runs")) ==
				   (json_int_t)res[i]->nruns,
		   "json: result %zu summary.runs", i);
		ok((res[i]->nruns >= 2) == !!json_object_get(sum, "cv"),
		   "json: result %zu has cv only with 2+ runs", i);
		ok(!json_object_get(sum, "ci") || res[i]->nruns >= 6,
		   "json: result %zu has no ci with fewer than 6 runs", i);
	}

	r = json_array_get(results, 0);
	sum = json_object_get(r, "summary");
	ok(is_int_key(sum, "iterations") && is_int_key(sum, "elapsed_ns") &&
		   json_is_real(json_object_get(sum, "msgs_per_s")) &&
		   lat_ok(json_object_get(sum, "latency_ns")),
	   "json: an ok summary has its counts, rates and latency");
	is_int(json_integer_value(json_object_get(
		       json_object_get(sum, "latency_ns"), "mean")),
	       "==", 5401, "json: mean is rounded to an integer ns");

	r = json_array_get(results, 1);
	ci = json_object_get(json_object_get(r, "summary"), "ci");
	ok(json_is_object(ci) && json_is_real(json_object_get(ci, "level")) &&
		   json_is_real(json_object_get(ci, "low")) &&
		   json_is_real(json_object_get(ci, "high")),
	   "json: 8 runs give a ci");
	is_str(json_string_value(json_object_get(ci, "metric")), "bytes_per_s",
	       "json: stream's ci is of the throughput");

	r = json_array_get(results, 2);
	sum = json_object_get(r, "summary");
	is_int(json_object_size(sum), "==", 1,
	       "json: an error with no runs has only summary.runs");
	is_str(json_string_value(json_object_get(r, "error")),
	       "connect 127.0.0.1:40123: Connection refused",
	       "json: the error text");

	r = json_array_get(results, 3);
	sum = json_object_get(r, "summary");
	is_str(json_string_value(json_object_get(r, "status")), "partial",
	       "json: partial status");
	ok(!json_object_get(sum, "msgs_per_s") &&
		   !json_object_get(sum, "bytes_per_s") &&
		   is_int_key(sum, "iterations"),
	   "json: non-finite rates are left out, the counts stay");
	ok(!json_object_get(json_object_get(sum, "latency_ns"), "mean") &&
		   is_int_key(json_object_get(sum, "latency_ns"), "p50"),
	   "json: a non-finite mean is left out, the rest stays");

	r = json_array_get(results, 4);
	is_str(json_string_value(json_object_get(r, "error")),
	       "bad byte ?? in path", "json: bytes that are not UTF-8");

	r = json_array_get(results, 5);
	ci = json_object_get(json_object_get(r, "summary"), "ci");
	ok(json_is_object(ci) && json_is_integer(json_object_get(ci, "low")) &&
		   json_is_integer(json_object_get(ci, "high")) &&
		   json_integer_value(json_object_get(ci, "low")) <=
			   json_integer_value(json_object_get(ci, "high")),
	   "json: rr's ci is a range of integer ns");
	is_str(json_string_value(json_object_get(ci, "metric")), "p50_ns",
	       "json: rr's ci is of the p50");
	ok(out && strstr(out, "\"level\": 0.95,"),
	   "json: reals are written without binary noise");

out:
	json_decref(doc);
	free(out);
	for (i = 0; i < 6; i++)
		ipc_result_free(res[i]);
}

/* Split one CSV record (no embedded newlines) into fields, RFC 4180. */
static size_t csv_fields(const char *line, char f[][256], size_t maxf)
{
	size_t n = 0, k = 0;
	bool q = false;
	const char *p;

	for (p = line;; p++) {
		if (q) {
			if (*p == '"' && p[1] == '"') {
				f[n][k++] = '"';
				p++;
			} else if (*p == '"') {
				q = false;
			} else if (*p) {
				f[n][k++] = *p;
			} else {
				break;
			}
			continue;
		}
		if (*p == '"') {
			q = true;
		} else if (*p == ',' || !*p || *p == '\n') {
			f[n][k] = '\0';
			n++;
			k = 0;
			if (!*p || *p == '\n' || n == maxf)
				break;
		} else {
			f[n][k++] = *p;
		}
		if (k >= 255)
			k = 254;
	}
	return n;
}

/* More than the CSV header has: the fixed columns and the patterns'. */
#define CSV_FIELDS 256

static void test_csv(void)
{
	static char f[CSV_FIELDS][256];
	size_t width = 0, url_col = 0, x_col = 0;
	struct ipc_runopts ro = runopts();
	struct ipc_report_meta meta = {
		.version = "v0",
		.command = "rr",
		.host = &host,
		.ro = &ro,
	};
	struct ipc_result *res[3];
	char *out, *line, *save = NULL;
	size_t n, nlines = 0, i;
	bool counts = true;
	int err;

	res[0] = mk_rr(&tp_pipe, &eng_blocking, 1, 1, 3, 4910);
	res[1] = mk_stream(&tp_tcp, 65536, 1000, 8, 250000);
	res[2] = mk_rr(&tp_tcp, &eng_blocking, 64, 1024, 0, 0);
	fail_result(res[2], IPC_STATUS_ERROR,
		    "connect \"127.0.0.1,40123\": refused");
	res[0]->summary.bytes_per_s = NAN;
	res[0]->diag.flags = 1u << IPC_FLAG_UNSTABLE | 1u << IPC_FLAG_OUTLIERS;
	res[0]->diag.client = (struct ipc_cost){
		.valid = true, .user_ns = 2500, .sys_ns = 1000, .vcsw = 1};

	out = render("csv", &meta, res, 3, NULL, 0, &err);
	is_int(err, "==", 0, "csv: no error");
	ok(out && !strstr(out, "nan") && !strstr(out, "inf"),
	   "csv: no nan or inf");
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		n = csv_fields(line, f, CSV_FIELDS);
		if (nlines == 0)
			width = n;
		if (n < 46 || n != width || n == CSV_FIELDS) {
			counts = false;
			diag("line %zu has %zu fields: %s", nlines, n, line);
		}
		if (nlines == 0) {
			is_str(f[0], "schema",
			       "csv: header starts with schema");
			is_str(f[28], "error",
			       "csv: the original columns end with error");
			is_str(f[29], "metric", "csv: new columns after error");
			is_str(f[34], "flags", "csv: the flags column");
			is_str(f[42], "loadavg_1m", "csv: then load");
			for (i = 46; i < n; i++) {
				if (!strcmp(f[i], "url"))
					url_col = i;
				if (!strcmp(f[i], "failed_timeout"))
					x_col = i;
			}
			ok(url_col && x_col > url_col,
			   "csv: then the patterns' parameters (http's url), "
			   "then their extras (http's failed_timeout)");
			is_str(f[45], "server_cpu",
			       "csv: the fixed columns end with the placement");
		} else {
			is_str(f[0], "1", "csv: row %zu schema 1", nlines);
			ok(url_col && x_col && !f[url_col][0] && !f[x_col][0],
			   "csv: row %zu (not http) leaves them empty", nlines);
		}
		if (nlines == 1) {
			is_str(f[1], "rr", "csv: row 1 pattern");
			is_str(f[5], "1", "csv: row 1 req_size");
			is_str(f[7], "", "csv: row 1 msg_size empty");
			is_str(f[11], "3", "csv: row 1 runs");
			is_str(f[15], "", "csv: a NaN rate is an empty field");
			is_str(f[19], "4910", "csv: row 1 p50");
			is_str(f[25], "", "csv: no ci with 3 runs");
			is_str(f[29], "p50_ns", "csv: row 1 metric");
			is_str(f[34], "unstable;outliers",
			       "csv: flags joined with ';'");
			is_str(f[35], "2500",
			       "csv: client user ns per message");
		}
		if (nlines == 2) {
			is_str(f[8], "1000", "csv: row 2 count");
			is_str(f[25], "0.95", "csv: row 2 ci_level");
		}
		if (nlines == 3) {
			is_str(f[4], "error", "csv: row 3 status");
			is_str(f[12], "", "csv: an error row has no numbers");
			is_str(f[29], "", "csv: ... and no diagnosis");
			is_str(f[28], "connect \"127.0.0.1,40123\": refused",
			       "csv: the error survives quoting");
			ok(strstr(line, ",\"connect \"\"127.0.0.1,40123\"\": "
					"refused\"") != NULL,
			   "csv: the error is quoted as RFC 4180 says");
		}
		nlines++;
	}
	ok(counts, "csv: every line as wide as the header (46 fixed fields, "
		   "then the patterns')");
	is_int(nlines, "==", 4, "csv: a header and one row per result");
	free(out);
	for (i = 0; i < 3; i++)
		ipc_result_free(res[i]);
}

/* Byte offset of display column @col in @p (UTF-8), or -1 past the end. */
static long byte_at(const char *p, size_t len, size_t col)
{
	size_t i, c = 0;

	for (i = 0; i < len; i++) {
		if (((unsigned char)p[i] & 0xc0) == 0x80)
			continue;
		if (c++ == col)
			return (long)i;
	}
	return -1;
}

/*
 * Check that every table (from its "transport" header line to a blank line,
 * a note, a skip or the legend of its headline) is aligned: each row's last column starts at the same
 * display column as the header's last column, after at least two spaces
 * (lines carry no trailing padding, so widths differ).  Rows that carry an
 * error across the numeric columns are not checked.  Returns the number of
 * tables checked, or -1 when one was ragged.
 */
static int check_aligned(const char *out)
{
	const char *p = out, *nl;
	size_t last = 0, len;
	long b;
	int tables = 0;
	bool in = false, bad = false;

	for (; *p; p = *nl ? nl + 1 : nl) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		len = (size_t)(nl - p);
		if (len && p[len - 1] == ' ') {
			diag("trailing space: %.*s", (int)len, p);
			bad = true;
		}
		if (!strncmp(p, "transport ", 10)) {
			const char *q = p + len;

			while (q > p && q[-1] != ' ')
				q--;
			last = dwidth(p, (size_t)(q - p));
			in = true;
			tables++;
		} else if (!len || !strncmp(p, "note:", 5) ||
			   !strncmp(p, "skipped:", 8) ||
			   memmem(p, len, "the median over the runs", 24)) {
			in = false;
		} else if (in && !memmem(p, len, "error:", 6)) {
			b = byte_at(p, len, last);
			if (b < 0 && dwidth(p, len) < last)
				continue; /* an empty last column */
			if (b < 2 || p[b] == ' ' || p[b - 1] != ' ' ||
			    p[b - 2] != ' ') {
				diag("ragged: %.*s", (int)len, p);
				bad = true;
			}
		}
	}
	return bad ? -1 : tables;
}

static size_t count_lines_starting(const char *out, const char *prefix)
{
	const char *p = out;
	size_t n = 0, len = strlen(prefix);

	while (p && *p) {
		if (!strncmp(p, prefix, len))
			n++;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

static void test_table(void)
{
	struct ipc_runopts ro = runopts();
	struct ipc_report_meta meta = {
		.version = "v0",
		.command = "rr",
		.host = &host,
		.ro = &ro,
	};
	struct ipc_skip sk = {"rr udp req=64K", "larger than the largest "
						"UDP datagram (65507 B)"};
	struct ipc_result *res[8];
	char *out;
	int err;
	size_t i;

	res[0] = mk_rr(&tp_pipe, &eng_blocking, 1, 1, 3, 4910);
	res[1] = mk_rr(&tp_unix, &eng_blocking, 64, 1024, 6, 812);
	res[2] = mk_rr(&tp_tcp, &eng_blocking, 64, 1024, 0, 0);
	fail_result(res[2], IPC_STATUS_ERROR,
		    "connect 127.0.0.1:40123: Connection refused by a peer "
		    "that has a very long reason to give, longer than a row");
	res[3] = mk_stream(&tp_pipe, 0, 1000, 8, 250000);
	res[4] = mk_stream(&tp_tcp, 65536, 1000, 8, 25000000);
	res[5] = mk_rr(&tp_udp, &eng_blocking, 64, 64, 2, 15000);
	fail_result(res[5], IPC_STATUS_PARTIAL, "lost 3 of\t10000\nreplies");
	res[5]->summary.msgs_per_s = NAN;
	res[6] = mk_bulk(&tp_tcp, 4 << 20, 1024, 6, 2500000);
	res[7] = mk_bulk(&tp_unix, 4 << 20, 32, 1, 900000);

	out = render("table", &meta, res, 8, &sk, 1, &err);
	is_int(err, "==", 0, "table: no error");
	if (!out)
		out = strdup("");
	diag("table output:");
	for (char *p = out, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		diag("%.*s", (int)(nl - p), p);
	}
	ok(strstr(out, "pipe") && strstr(out, "unix") && strstr(out, "tcp") &&
		   strstr(out, "udp"),
	   "table: every transport is named");
	ok(strstr(out, "µs") != NULL, "table: times in µs");
	ok(!strstr(out, "nan") && !strstr(out, "inf"), "table: never nan");
	ok(strstr(out, "rr: request/response round trips — 3 runs × 10000 "
		       "round trips after 1000 warm-up, peer in a separate "
		       "process") != NULL,
	   "table: the rr heading says what and how");
	ok(strstr(out, "stream: one-way batches of 1000 messages; time per "
		       "batch includes the receiver's 1-byte ack") != NULL,
	   "table: the stream heading");
	ok(strstr(out, "bulk: one request, then 4 MiB back in chunks") != NULL,
	   "table: the bulk heading");
	ok(strstr(out, "error: connect 127.0.0.1:40123") != NULL,
	   "table: an error row");
	ok(strstr(out, "partial: lost 3 of 10000 replies") != NULL,
	   "table: a partial row, its tab and newline made spaces");
	ok(strstr(out, "skipped: rr udp req=64K: larger than") != NULL,
	   "table: skipped cases under the table");
	ok(strstr(out, "size 0 on a byte stream is carried as a 1-byte "
		       "token; rates count payload bytes only") != NULL,
	   "table: the size-0 footnote");
	ok(strstr(out, "95% CI") != NULL, "table: a CI column with 6+ runs");
	ok(!strstr(out, "engine"), "table: no engine column with one engine");
	ok(strstr(out, "2.3%") != NULL, "table: cv as a percent");
	is_int(check_aligned(out), "==", 3,
	       "table: three sections, every line of each the same width");
	free(out);

	/* Two engines: the column appears. */
	ipc_result_free(res[1]);
	res[1] = mk_rr(&tp_unix, &eng_epoll, 64, 1024, 3, 812);
	out = render("table", &meta, res, 3, NULL, 0, &err);
	is_int(err, "==", 0, "table: two engines");
	ok(out && strstr(out, "engine") && strstr(out, "epoll"),
	   "table: an engine column with two engines");
	is_int(check_aligned(out ? out : ""), "==", 1,
	       "table: aligned with an engine column");
	free(out);

	/* Nothing at all. */
	out = render("table", &meta, NULL, 0, NULL, 0, &err);
	is_int(err, "==", 0, "table: an empty report");
	free(out);

	for (i = 0; i < 8; i++)
		ipc_result_free(res[i]);
}

static void test_suite(void)
{
	struct ipc_runopts ro = runopts();
	struct ipc_report_meta meta = {
		.version = "v0",
		.command = "suite",
		.host = &host,
		.ro = &ro,
	};
	struct ipc_skip sk[4] = {
		{"transport tcp6", "no IPv6 loopback on this machine"},
		{"stream udp size=64K",
		 "larger than the largest UDP datagram (65507 B)"},
		{"engine io_uring", "io_uring is disabled on this kernel"},
		{"busy on unix", "busy-polling needs a second CPU"},
	};
	struct ipc_result *res[7];
	char *out;
	int err;
	size_t i;

	res[0] = mk_rr(&tp_pipe, &eng_blocking, 1, 1, 3, 4910);
	res[1] = mk_stream(&tp_pipe, 65536, 1000, 3, 25000000);
	res[2] = mk_rr(&tp_unix, &eng_blocking, 1, 1, 3, 5200);
	res[3] = mk_stream(&tp_unix, 65536, 1000, 3, 21000000);
	res[4] = mk_rr(&tp_tcp, &eng_blocking, 1, 1, 0, 0);
	fail_result(res[4], IPC_STATUS_ERROR, "connect: Connection refused");
	res[5] = mk_stream(&tp_tcp, 65536, 1000, 3, 30000000);
	res[6] = mk_rr(&tp_udp, &eng_blocking, 1, 1, 3, 9000);

	out = render("table", &meta, res, 7, sk, 4, &err);
	is_int(err, "==", 0, "suite: no error");
	if (!out)
		out = strdup("");
	diag("suite output:");
	for (char *p = out, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		diag("%.*s", (int)(nl - p), p);
	}
	ok(strstr(out, "quick suite — peer in a separate process, server on "
		       "CPU 2\n") != NULL,
	   "suite: a heading says where the peer ran");
	ok(strstr(out, "  rr:     request/response, 1 B each way — 3 runs × "
		       "10000 round trips\n") != NULL,
	   "suite: what rr measures and how many runs it took");
	ok(strstr(out, "  stream: one-way batches of 1000 messages of 64 KiB, "
		       "timed with the receiver's 1-byte ack — 3 runs × 10000 "
		       "batches\n") != NULL,
	   "suite: what stream measures and how many runs it took");
	is_int(count_lines_starting(out, "transport "), "==", 1,
	       "suite: one table");
	is_int(count_lines_starting(out, "pipe "), "==", 1,
	       "suite: one row for pipe");
	is_int(count_lines_starting(out, "unix "), "==", 1,
	       "suite: one row for unix");
	is_int(count_lines_starting(out, "tcp "), "==", 1,
	       "suite: one row for tcp");
	is_int(count_lines_starting(out, "udp "), "==", 1,
	       "suite: one row for udp");
	is_int(count_lines_starting(out, "tcp6 "), "==", 1,
	       "suite: a row for a skipped transport");
	ok(strstr(out, "rr failed: connect: Connection refused") != NULL,
	   "suite: an error in the notes");
	ok(strstr(out, "stream skipped: larger than") != NULL,
	   "suite: a skip in the notes");
	ok(strstr(out, "busy skipped: busy-polling needs") != NULL,
	   "suite: an engine skipped on one transport in the notes");
	ok(strstr(out, "\nskipped: engine io_uring: io_uring is disabled") !=
		   NULL,
	   "suite: a skip of no one transport under the table");
	is_int(count_lines_starting(out, "io_uring"), "==", 0,
	       "suite: no row for an engine");
	ok(strstr(out, "rr p50") && strstr(out, "stream bandwidth"),
	   "suite: the columns");
	is_int(check_aligned(out), "==", 1, "suite: aligned");
	free(out);
	for (i = 0; i < 7; i++)
		ipc_result_free(res[i]);
}

/* Formatters must report a write that failed, as a full disk does. */
static void test_full_disk(void)
{
	struct ipc_runopts ro = runopts();
	struct ipc_report_meta meta = {
		.version = "v0",
		.command = "rr",
		.host = &host,
		.ro = &ro,
	};
	struct ipc_result *res = mk_rr(&tp_pipe, &eng_blocking, 1, 1, 3, 4910);
	size_t i;

	for (i = 0; ipc_reports[i]; i++) {
		struct ipc_report r = {0};
		int err;

		r.ops = ipc_reports[i];
		r.meta = &meta;
		r.out = fopen("/dev/full", "w");
		if (!r.out) {
			skip("no /dev/full");
			continue;
		}
		err = ipc_report_begin(&r);
		if (!err)
			err = ipc_report_result(&r, res);
		if (!err)
			err = ipc_report_end(&r);
		else
			ipc_report_end(&r);
		is_int(err, "==", -ENOSPC, "%s: a full disk is reported",
		       ipc_reports[i]->name);
		fclose(r.out);
	}
	ipc_result_free(res);
}

/* The first line of @path into @buf ("" when it cannot be read). */
static const char *first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = '\0';
		fclose(f);
	}
	return buf;
}

/* Write @text through a new outfile to @path; commit's result. */
static int outfile_write(const char *path, const char *text)
{
	struct ipc_outfile of;
	int err = ipc_outfile_open(&of, path);

	if (err)
		return err;
	fputs(text, of.fp);
	return ipc_outfile_commit(&of);
}

static void test_outfile(void)
{
	char dir[200], path[256], other[512], buf[64];
	struct ipc_outfile of;
	struct stat st;
	int err;

	if (tmpdir_make("report", dir, sizeof(dir))) {
		skip("mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/out.json", dir);

	err = ipc_outfile_open(&of, path);
	is_int(err, "==", 0, "outfile: open");
	is_int(count_files(dir), "==", 0,
	       "outfile: no file at all until commit (a killed run leaves "
	       "nothing)");
	fputs("{\"hello\": 1}\n", of.fp);
	err = ipc_outfile_commit(&of);
	is_int(err, "==", 0, "outfile: commit");
	is_str(first_line(path, buf, sizeof(buf)), "{\"hello\": 1}\n",
	       "outfile: the file has it all");
	is_int(count_files(dir), "==", 1, "outfile: no temp file left");
	ok(stat(path, &st) == 0 && (st.st_mode & 0777) != 0600,
	   "outfile: the mode is not mkstemp's 0600 (umask applies)");

	is_int(outfile_write(path, "replaced\n"), "==", 0,
	       "outfile: over an existing file");
	is_str(first_line(path, buf, sizeof(buf)), "replaced\n",
	       "outfile: the old file is replaced");

	err = ipc_outfile_open(&of, path);
	is_int(err, "==", 0, "outfile: open to abort");
	fputs("never seen\n", of.fp);
	ipc_outfile_abort(&of);
	is_str(first_line(path, buf, sizeof(buf)), "replaced\n",
	       "outfile: abort leaves the old file as it was");
	is_int(count_files(dir), "==", 1, "outfile: abort leaves no file");

	/* What -o must not replace or copy. */
	chmod(path, 04755);
	is_int(outfile_write(path, "no setuid\n"), "==", 0,
	       "outfile: over a setuid file");
	ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 0755,
	   "outfile: the permissions are kept, setuid is not (%o)",
	   (unsigned)(st.st_mode & 07777));
	chmod(path, 0444);
	is_int(ipc_outfile_open(&of, path), "==", -EACCES,
	       "outfile: a write-protected file is refused at open, even "
	       "by root");
	is_str(first_line(path, buf, sizeof(buf)), "no setuid\n",
	       "outfile: ... and left as it was");
	unlink(path);

	snprintf(other, sizeof(other), "%s/real.json", dir);
	is_int(outfile_write(other, "old\n"), "==", 0, "outfile: a file");
	ok(!symlink("real.json", path), "outfile: a link to it");
	is_int(outfile_write(path, "through the link\n"), "==", 0,
	       "outfile: written through the link");
	ok(lstat(path, &st) == 0 && S_ISLNK(st.st_mode),
	   "outfile: the link is still a link");
	is_str(first_line(other, buf, sizeof(buf)), "through the link\n",
	       "outfile: the file it names has the report");
	unlink(other);
	is_int(outfile_write(path, "made good\n"), "==", 0,
	       "outfile: a dangling link");
	is_str(first_line(other, buf, sizeof(buf)), "made good\n",
	       "outfile: ... creates the file it names");
	unlink(other);
	unlink(path);

	/* A valid 250-byte name: the temp name must not push it past 255. */
	snprintf(other, sizeof(other), "%s/%0250d.j", dir, 0);
	is_int(outfile_write(other, "long\n"), "==", 0,
	       "outfile: a name of 252 bytes");
	unlink(other);

	/*
	 * Not a regular file: written into, never replaced.  A null device
	 * of our own (as root), so that a failure cannot break the system's.
	 */
	snprintf(path, sizeof(path), "%s/null", dir);
	if (!mknod(path, S_IFCHR | 0666, makedev(1, 3))) {
		is_int(outfile_write(path, "gone\n"), "==", 0,
		       "outfile: a null device is written");
		ok(stat(path, &st) == 0 && S_ISCHR(st.st_mode),
		   "outfile: ... and is still a device");
		unlink(path);
	} else {
		skip("mknod: %s (not root?)", strerror(errno));
	}
	if (stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode))
		is_int(outfile_write("/dev/full", "no room\n"), "==", -ENOSPC,
		       "outfile: a full device fails the commit with ENOSPC");
	else
		skip("no /dev/full");
	is_int(count_files(dir), "==", 0,
	       "outfile: nothing left in the directory");

	snprintf(path, sizeof(path), "%s/missing/out.json", dir);
	is_int(ipc_outfile_open(&of, path), "==", -ENOENT,
	       "outfile: a missing directory is -ENOENT");
	is_int(ipc_outfile_open(&of, dir), "==", -EISDIR,
	       "outfile: a directory is -EISDIR");

	err = ipc_outfile_open(&of, "-");
	ok(!err && of.is_stdout && of.fp == stdout, "outfile: - is stdout");
	is_int(ipc_outfile_commit(&of), "==", 0, "outfile: commit stdout");
	err = ipc_outfile_open(&of, NULL);
	ok(!err && of.fp == stdout, "outfile: NULL is stdout");
	ipc_outfile_abort(&of);

	rmdir(dir);
	is_int(stat(dir, &st), "<", 0, "outfile: the test directory is gone");
}

/*
 * The diagnosis in the table and JSON: the cost columns (cycles only when
 * counted), the flags column, why and hint lines, and --runs auto's
 * heading.
 */
static void test_diagnosis(void)
{
	struct ipc_runopts ro = runopts();
	struct ipc_report_meta meta = {
		.version = "v0",
		.command = "rr",
		.host = &host,
		.ro = &ro,
	};
	struct ipc_cost cost = {.valid = true,
				.user_ns = 900,
				.sys_ns = 1200,
				.vcsw = 1,
				.ivcsw = 0.02,
				.cycles = 12100,
				.instructions = 3400000};
	struct ipc_result *res[2];
	json_t *root, *flags, *f;
	json_error_t jerr;
	char *out;
	int err;

	ro.runs_auto = true;
	ro.min_runs = 5;
	ro.max_runs = 30;
	ro.ci_level = 0.95;
	ro.ci_pct = 1;
	ro.budget_ns = 60000000000ull;
	res[0] = mk_rr(&tp_pipe, &eng_blocking, 1, 1, 6, 4910);
	res[1] = mk_rr(&tp_unix, &eng_blocking, 1, 1, 6, 5200);
	for (int i = 0; i < 2; i++) {
		res[i]->ro = ro;
		res[i]->diag.client = cost;
		res[i]->diag.server = cost;
		res[i]->diag.stop = IPC_STOP_MAX_RUNS;
		res[i]->diag.half_pct = 2.5;
		res[i]->diag.estimate = 4910;
	}
	res[1]->diag.server.cycles = -1; /* one side not counted */
	res[0]->diag.flags = 1u << IPC_FLAG_UNSTABLE | 1u << IPC_FLAG_LOAD;
	res[0]->diag.have_load = true;
	res[0]->diag.other_cpus = 0.75;
	res[0]->diag.loadavg_1m = 1.5;

	out = render("table", &meta, res, 2, NULL, 0, &err);
	is_int(err, "==", 0, "diagnosis table: no error");
	if (!out)
		out = strdup("");
	ok(strstr(out, "runs of 10000 round trips until the 95% CI is within "
		       "±1% (6 to 30 runs, budget 60.0 s)") != NULL,
	   "diagnosis table: the heading says how auto runs end");
	ok(strstr(out, "2.10+2.10 µs") != NULL,
	   "diagnosis table: cpu per round trip, client+server");
	ok(strstr(out, "cycles/rt") && strstr(out, "12.1k+12.1k") &&
		   strstr(out, "3.4M+3.4M"),
	   "diagnosis table: cycles and instructions where counted");
	ok(strstr(out, "12.1k+-") == NULL && strstr(out, "  -  ") != NULL,
	   "diagnosis table: '-' where a side did not count cycles");
	ok(strstr(out, "unstable,load") != NULL,
	   "diagnosis table: the flags column");
	ok(strstr(out, "rr pipe req=1 resp=1: unstable: 95% CI ±2.5% after 6 "
		       "runs (--max-runs); the target is ±1%\n") != NULL,
	   "diagnosis table: why unstable");
	ok(strstr(out,
		  "rr pipe req=1 resp=1: load: other processes kept 0.75 "
		  "CPUs busy during the runs; load average 1.50\n") != NULL,
	   "diagnosis table: why load");
	ok(strstr(out, "hint for unstable: ") && strstr(out, "hint for load: "),
	   "diagnosis table: one hint per kind");
	is_int(check_aligned(out), "==", 1, "diagnosis table: aligned");
	free(out);

	out = render("json", &meta, res, 2, NULL, 0, &err);
	root = out ? json_loads(out, 0, &jerr) : NULL;
	ok(root != NULL, "diagnosis json: parses");
	flags = json_object_get(
		json_array_get(json_object_get(root, "results"), 0), "flags");
	f = json_array_get(flags, 0);
	ok(json_array_size(flags) == 2 &&
		   !strcmp(json_string_value(json_object_get(f, "flag")) ?: "",
			   "unstable") &&
		   strstr(json_string_value(json_object_get(f, "hint")) ?: "",
			  "--pin"),
	   "diagnosis json: flags with names and hints");
	ok(json_array_size(json_object_get(
		   json_array_get(json_object_get(root, "results"), 1),
		   "flags")) == 0,
	   "diagnosis json: an empty flags array when nothing is flagged");
	json_decref(root);
	free(out);

	/* Two groups that follow placement: the reason says so. */
	res[1]->diag.flags = 1u << IPC_FLAG_BIMODAL;
	res[1]->diag.modes = (struct ipc_modes){.bimodal = true,
						.nlow = 8,
						.nhigh = 4,
						.low = 5100,
						.high = 11300,
						.cut = 5200};
	res[1]->diag.mode_same[0] = 8;
	res[1]->diag.mode_split[1] = 4;
	out = render("table", &meta, res, 2, NULL, 0, &err);
	ok(out && strstr(out, "rr unix req=1 resp=1: bimodal: runs in two "
			      "groups: 8 near 5.10 µs, 4 near 11.3 µs; the "
			      "runs near 5.10 µs had both sides on one CPU, "
			      "those near 11.3 µs on two\n"),
	   "diagnosis table: bimodal, explained by placement");
	free(out);
	res[1]->diag.mode_same[1] = 2; /* now the groups do not follow it */
	res[1]->diag.mode_split[1] = 2;
	out = render("table", &meta, res, 2, NULL, 0, &err);
	ok(out && strstr(out, "4 near 11.3 µs\n"),
	   "diagnosis table: bimodal, placement not blamed when it does not "
	   "fit");
	free(out);
	ipc_result_free(res[0]);
	ipc_result_free(res[1]);
}

/* Does formatter @name print @what for @res (@n of them) under @meta? */
static bool prints(const char *name, const struct ipc_report_meta *meta,
		   struct ipc_result **res, size_t n, const char *what)
{
	int err;
	char *out = render(name, meta, res, n, NULL, 0, &err);
	bool found = out && !err && strstr(out, what);

	free(out);
	return found;
}

/* The hint of flag @flag of result @i in a JSON document @out, or "". */
static const char *json_hint(json_t *root, size_t i, const char *flag)
{
	json_t *flags = json_object_get(
		json_array_get(json_object_get(root, "results"), i), "flags");
	size_t k;

	for (k = 0; k < json_array_size(flags); k++) {
		json_t *f = json_array_get(flags, k);

		if (!strcmp(json_string_value(json_object_get(f, "flag")) ?: "",
			    flag))
			return json_string_value(json_object_get(f, "hint"))
				       ?: "";
	}
	return "";
}

/*
 * The hints say what helps for the way each case stopped.  A
 * case out of reach (its runs disagree more than --max-runs runs could
 * narrow) is told that more runs would not help, and why names its
 * groups; -r N is told about -r; the quick suite's short runs about what
 * the suite lets the user set.
 */
static void test_hints(void)
{
	struct ipc_runopts ro = runopts();
	struct ipc_report_meta meta = {
		.version = "v0",
		.command = "rr",
		.host = &host,
		.ro = &ro,
	};
	struct ipc_result *res[3];
	json_t *root;
	json_error_t jerr;
	char *out;
	int err;

	ro.runs_auto = true;
	ro.min_runs = 5;
	ro.max_runs = 30;
	ro.ci_level = 0.95;
	ro.ci_pct = 1;
	ro.budget_ns = 20000000000ull;
	res[0] = mk_rr(&tp_pipe, &eng_blocking, 1, 1, 12, 4910);
	res[1] = mk_rr(&tp_unix, &eng_blocking, 1, 1, 15, 6500);
	res[2] = mk_rr(&tp_tcp, &eng_blocking, 1, 1, 6, 9000);
	for (int i = 0; i < 3; i++) {
		res[i]->ro = ro;
		res[i]->diag.flags = 1u << IPC_FLAG_UNSTABLE;
		res[i]->diag.half_pct = 2.5;
	}
	res[0]->diag.stop = IPC_STOP_MAX_RUNS;
	res[1]->diag.stop = IPC_STOP_OUT_OF_REACH;
	res[1]->diag.half_pct = 40;
	res[1]->diag.flags |= 1u << IPC_FLAG_BIMODAL;
	res[1]->diag.modes = (struct ipc_modes){.bimodal = true,
						.nlow = 8,
						.nhigh = 7,
						.low = 6500,
						.high = 19500,
						.cut = 10000};
	res[1]->cs.place = (struct ipc_place){
		.cpus = IPC_CPUS_TWO, .client_cpu = 0, .server_cpu = 1};
	/* -r 6: a fixed number of runs, no target to run to. */
	res[2]->ro.runs_auto = false;
	res[2]->ro.runs = 6;
	res[2]->diag.stop = IPC_STOP_RUNS;

	out = render("table", &meta, res, 3, NULL, 0, &err);
	is_int(err, "==", 0, "hints table: no error");
	if (!out)
		out = strdup("");
	ok(strstr(out, ": unstable: 95% CI ±40% after 15 runs, about ±28% at "
		       "30, against a target of ±1%: the runs disagree too "
		       "much for more runs to reach it (in two groups, 8 "
		       "near 6.50 µs and 7 near 19.5 µs)\n") != NULL,
	   "hints table: why out of reach: what 30 runs would leave, and the "
	   "groups");
	ok(strstr(out, "rr pipe req=1 resp=1: unstable: 95% CI ±2.5% after 12 "
		       "runs (--max-runs); the target is ±1%\n") != NULL,
	   "hints table: why max-runs, as before");
	ok(strstr(out, "\nhint for unstable: more runs (--max-runs, --budget), "
		       "--pin, or a quieter machine\n") != NULL,
	   "hints table: the general hint for the case that ran out of runs");
	ok(strstr(out, "\nhint for unstable (out-of-reach): more runs would "
		       "not bring it to the target") != NULL,
	   "hints table: the out-of-reach hint, labelled beside it");
	ok(strstr(out, "\nhint for unstable (-r N): more runs (a larger -r, "
		       "or -r auto") != NULL,
	   "hints table: the -r N hint, labelled");
	free(out);

	out = render("table", &meta, &res[1], 1, NULL, 0, &err);
	ok(out &&
		   strstr(out, "\nhint for unstable: more runs would not "
			       "bring it to the target, its runs disagree too "
			       "much: see its bimodal or outliers flag") &&
		   !strstr(out, "--max-runs, --budget"),
	   "hints table: out of reach alone: one hint, unlabelled, and no "
	   "advice to add runs");
	free(out);

	/* No groups: the spread is named instead. */
	res[1]->diag.modes.bimodal = false;
	res[1]->diag.flags &= ~(1u << IPC_FLAG_BIMODAL);
	res[1]->metric.cv = 0.183;
	ok(prints("table", &meta, &res[1], 1,
		  "to reach it (a run-to-run CV of 18.3%)\n"),
	   "hints table: out of reach, one group: the runs' CV");
	res[1]->diag.outliers = 2;
	ok(prints("table", &meta, &res[1], 1,
		  "to reach it (2 of them far from the median of"),
	   "hints table: out of reach, with outliers: those");

	out = render("json", &meta, res, 3, NULL, 0, &err);
	root = out ? json_loads(out, 0, &jerr) : NULL;
	ok(root != NULL, "hints json: parses");
	ok(strstr(json_hint(root, 0, "unstable"), "--max-runs") != NULL,
	   "hints json: max-runs: the general hint");
	ok(strstr(json_hint(root, 1, "unstable"), "would not bring it") &&
		   !strstr(json_hint(root, 1, "unstable"), "--max-runs"),
	   "hints json: out of reach: more runs would not help");
	ok(strstr(json_hint(root, 2, "unstable"), "a larger -r") != NULL,
	   "hints json: -r N: -r");
	json_decref(root);
	free(out);

	/* The quick suite: no why lines, so the notes say out-of-reach. */
	meta.command = "suite";
	res[1]->diag.flags |= 1u << IPC_FLAG_SHORT;
	res[1]->diag.load_res_cpus = 0.4;
	res[1]->diag.other_cpus = 0.3;
	out = render("table", &meta, &res[1], 1, NULL, 0, &err);
	ok(out && strstr(out, "  rr unstable (out-of-reach), short\n"),
	   "hints suite: the notes say the case stopped out of reach");
	ok(out && strstr(out, "\nhint for short: the suite's runs are short "
			      "by design: more of them (--max-runs, --budget), "
			      "or measure the case alone with -d 1s\n"),
	   "hints suite: short: what the suite lets the user set");
	free(out);
	out = render("json", &meta, &res[1], 1, NULL, 0, &err);
	root = out ? json_loads(out, 0, &jerr) : NULL;
	ok(strstr(json_hint(root, 0, "short"), "the suite's runs") != NULL,
	   "hints json: short in the suite: the suite's hint");
	json_decref(root);
	free(out);
	meta.command = "rr";
	ok(prints("table", &meta, &res[1], 1,
		  "\nhint for short: measure longer (-d 1s"),
	   "hints table: short outside the suite: measure longer");
	for (int i = 0; i < 3; i++)
		ipc_result_free(res[i]);
}

/* What the diagnosis stores of the early wake-up, for a made-up result. */
static void store_wake(struct ipc_result *res)
{
	double v;

	res->diag.early_wake_vcsw = ipc_result_early_wake(res, &v) ? v : 0;
}

/*
 * rr over a unix stream on two CPUs through blocking reads, where a side
 * blocks more than 1.2 times a round trip, gets one note naming the
 * kernel's early wake-up and -e poll, in every format that prints notes
 * (from what the diagnosis stored); not poll, not one CPU, not tcp, not
 * 1.05 switches.
 */
static void test_wake_note(void)
{
	struct ipc_runopts ro = runopts();
	struct ipc_report_meta meta = {
		.version = "v0",
		.command = "rr",
		.host = &host,
		.ro = &ro,
	};
	const struct ipc_place two = {
		.cpus = IPC_CPUS_TWO, .client_cpu = 0, .server_cpu = 1};
	const struct ipc_cost once = {.valid = true, .vcsw = 1.0};
	const char *note = "a side blocked up to 1.38 times a round trip, not "
			   "once: the kernel wakes a blocking unix stream "
			   "reader before its data (unix_write_space)";
	struct ipc_result *res[2];
	double v = 0;
	char *out;
	int err;

	res[0] = mk_rr(&tp_unix, &eng_blocking, 1, 1, 6, 19500);
	res[1] = mk_rr(&tp_pipe, &eng_blocking, 1, 1, 6, 5000);
	res[0]->cs.place = two;
	res[0]->diag.client = once;
	res[0]->diag.server = once;
	res[0]->diag.server.vcsw = 1.38;
	ok(ipc_result_early_wake(res[0], &v), "wake: unix, blocking, two CPUs");
	is_near(v, 1.38, 1e-12, "wake: the most switches of the two sides");
	store_wake(res[0]);
	out = render("table", &meta, res, 2, NULL, 0, &err);
	ok(out && strstr(out, note) &&
		   strstr(out, "-e poll measures the socket without it "
			       "(docs/methodology.md, \"unix stream rr on two "
			       "CPUs\")\n"),
	   "wake: a note under the table, with the remedy and the section");
	ok(out && strstr(out, "note: rr unix req=1 resp=1"),
	   "wake: the note names the case");
	is_int(out ? (int)count_lines_starting(out, "note: rr unix") : -1,
	       "==", 1, "wake: one note");
	free(out);
	ok(prints("markdown", &meta, res, 2, "unix\\_write\\_space") ||
		   prints("markdown", &meta, res, 2, "unix_write_space"),
	   "wake: in markdown");
	ok(prints("html", &meta, res, 2, "unix_write_space"), "wake: in html");
	meta.command = "suite";
	ok(prints("table", &meta, res, 2, note), "wake: under the suite too");
	meta.command = "rr";

	res[0]->cs.eng = &eng_epoll;
	store_wake(res[0]);
	ok(!ipc_result_early_wake(res[0], NULL) &&
		   !prints("table", &meta, res, 2, "unix_write_space"),
	   "wake: not through another engine");
	res[0]->cs.eng = &eng_blocking;
	res[0]->cs.place.cpus = IPC_CPUS_ONE;
	ok(!ipc_result_early_wake(res[0], NULL), "wake: not on one CPU");
	res[0]->cs.place.cpus = IPC_CPUS_ANY;
	res[0]->diag.split_cpu_runs = 5;
	res[0]->diag.same_cpu_runs = 1;
	ok(ipc_result_early_wake(res[0], NULL),
	   "wake: unpinned, most runs ending on two CPUs");
	res[0]->cs.place = two;
	res[0]->diag.server.vcsw = 1.05;
	store_wake(res[0]);
	ok(!ipc_result_early_wake(res[0], NULL) &&
		   !prints("table", &meta, res, 2, "unix_write_space"),
	   "wake: not at 1.05 switches a round trip");
	res[0]->diag.server.vcsw = 1.38;
	res[0]->cs.tp = &tp_tcp;
	ok(!ipc_result_early_wake(res[0], NULL), "wake: not over tcp");
	ipc_result_free(res[0]);
	ipc_result_free(res[1]);
}

/*
 * The headline: with runs in two groups the pooled p50 (7.50 us, most
 * samples fast) lies outside the interval of the runs' p50s (50-60 us);
 * every format shows the estimate with its interval as the case's
 * number, and the pooled figures only as such.
 */
static void test_headline(void)
{
	struct ipc_runopts ro = runopts();
	struct ipc_report_meta meta = {
		.version = "v0",
		.command = "rr",
		.host = &host,
		.ro = &ro,
	};
	struct ipc_result *res = mk_rr(&tp_pipe, &eng_blocking, 1, 1, 6, 55000);
	json_t *root, *sum, *h;
	json_error_t jerr;
	char *out, *line;
	int err;

	res->summary.lat.p50 = 7500;
	res->diag.estimate = 55000;
	res->metric.median = 55000;
	res->metric.have_ci = true;
	res->metric.ci_level = 0.95;
	res->metric.ci_low = 50000;
	res->metric.ci_high = 60000;
	res->diag.half_pct = 9.09;

	out = render("table", &meta, &res, 1, NULL, 0, &err);
	is_int(err, "==", 0, "headline table: no error");
	line = out ? strstr(out, "\npipe ") : NULL;
	ok(line && strstr(line, "55.0 µs  50.0–60.0 µs ±9.1%") != NULL,
	   "headline table: the estimate, then its interval");
	ok(line && !strstr(line, "7.50 µs"),
	   "headline table: the pooled p50 is not shown as the case's p50");
	ok(out && strstr(out, "p50 and its 95% CI: the median over the runs of "
			      "each run's p50; pooled over every round trip "
			      "of all runs: p90, p99"),
	   "headline table: which figures are pooled, in words");
	free(out);

	out = render("json", &meta, &res, 1, NULL, 0, &err);
	root = out ? json_loads(out, 0, &jerr) : NULL;
	sum = json_object_get(
		json_array_get(json_object_get(root, "results"), 0), "summary");
	h = json_object_get(sum, "headline");
	ok(h && json_integer_value(json_object_get(h, "value")) == 55000 &&
		   json_integer_value(json_object_get(h, "low")) == 50000 &&
		   json_integer_value(json_object_get(h, "high")) == 60000 &&
		   !strcmp(json_string_value(json_object_get(h, "metric"))
				   ?: "",
			   "p50_ns") &&
		   json_integer_value(json_object_get(h, "runs")) == 6,
	   "headline json: value, interval, metric and runs");
	is_int(json_integer_value(json_object_get(
		       json_object_get(sum, "latency_ns"), "p50")),
	       "==", 7500, "headline json: the pooled p50 stays in latency_ns");
	json_decref(root);
	free(out);

	meta.command = "suite";
	out = render("table", &meta, &res, 1, NULL, 0, &err);
	ok(out && strstr(out, "55.0 µs ±9.1%") && !strstr(out, "7.50 µs"),
	   "headline suite: the estimate with its half-width");
	free(out);
	ipc_result_free(res);
}

/* A made-up explanation: 10 us measured, three phases and a residue. */
static struct ipc_explain_result *mk_explain(void)
{
	static const struct ipc_xphase ph[] = {
		{"user", "client", 2000, 0.2, -1, ""},
		{"receive", "server", 5000, 0.5, 9000, ""},
		{"wake-up: run queue", "server", 2500, 0.25, 7000,
		 "hog (pid 42)"},
		{"unexplained", "kernel", 500, 0.05, -1, ""},
	};
	struct ipc_explain_result *x = ipc_explain_result_new();

	if (!x)
		abort();
	x->measured_ns = 10000;
	x->sum_ns = 9500;
	x->nphases = 4;
	memcpy(x->phases, ph, sizeof(ph));
	return x;
}

/*
 * --explain in every format: CSV's four fields, Markdown's phase table,
 * the HTML page's stacked bar (one mark per positive phase); where
 * explain could not run, CSV says why.
 */
static void test_explain_out(void)
{
	struct ipc_runopts ro = runopts();
	struct ipc_report_meta meta = {
		.version = "v0", .command = "rr", .host = &host, .ro = &ro};
	struct ipc_result *res = mk_rr(&tp_unix, &eng_blocking, 1, 1, 6, 9000);
	char *out;
	int err;

	res->explain = mk_explain();
	out = render("csv", &meta, &res, 1, NULL, 0, &err);
	ok(out && strstr(out, ",explain_measured_ns,explain_sum_ns,"
			      "explain_phases,explain_why\n"),
	   "explain csv: the columns end the header");
	ok(out && strstr(out, ",10000,9500,client:user=2000;server:receive="
			      "5000;server:wake-up: run queue=2500;kernel:"
			      "unexplained=500,\n"),
	   "explain csv: measured, sum and each phase per round trip");
	free(out);
	ok(prints("markdown", &meta, &res, 1,
		  "| side   | phase              | per round trip |"),
	   "explain markdown: the phases as a table");
	out = render("html", &meta, &res, 1, NULL, 0, &err);
	ok(out && strstr(out, "class=\"chart stack\""),
	   "explain html: a stacked bar chart");
	ok(out && strstr(out, "<title>server receive: 5.00 µs</title>") &&
		   strstr(out, "<title>measured 10.0 µs</title>"),
	   "explain html: a phase's part and the measured mean marked");
	ok(out && strstr(out, "<th>behind</th>") && strstr(out, "hog (pid 42)"),
	   "explain html: the phase table names whom it waited behind");
	free(out);
	ipc_explain_unavailable(res->explain, "not root");
	out = render("csv", &meta, &res, 1, NULL, 0, &err);
	ok(out && strstr(out, ",,,,not root\n"),
	   "explain csv: where it could not run, why");
	free(out);
	out = render("html", &meta, &res, 1, NULL, 0, &err);
	ok(out && !strstr(out, "chart stack"),
	   "explain html: no chart without an explanation");
	free(out);
	ipc_result_free(res);
}

int main(void)
{
	test_registry();
	test_json();
	test_csv();
	test_table();
	test_suite();
	test_diagnosis();
	test_hints();
	test_wake_note();
	test_headline();
	test_full_disk();
	test_outfile();
	test_explain_out();
	return done_testing();
}

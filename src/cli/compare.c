/*
 * `ipcperf compare A.json B.json`: read two result documents, match their
 * cases by parameters, and for each pair say whether B is faster, slower or
 * not significantly different from A, with the ratio of the medians of the
 * per-run values, its bootstrap interval, and the Mann-Whitney p-value.
 *
 *   A: rr pipe req=1, rr pipe req=64        B: rr tcp req=1, rr tcp req=64
 *   transport is one value in each file and differs: it is what is compared,
 *   so the cases match by the rest:  req=1 <-> req=1,  req=64 <-> req=64
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"

/* The parameters that identify a case, in the order labels name them. */
enum {
	K_PATTERN,
	K_TRANSPORT,
	K_ENGINE,
	K_REQ,
	K_RESP,
	K_SIZE,
	K_COUNT,
	K_TOTAL,
	K_CHUNK,
	NKEY
};

static const char *const key_json[NKEY] = {
	"pattern",  "transport", "engine", "req_size",	 "resp_size",
	"msg_size", "count",	 "total",  "chunk_size",
};

/* How a label writes each size: "req=64". */
static const char *const key_word[NKEY] = {
	NULL, NULL, NULL, "req", "resp", "size", "count", "total", "size",
};

/* A fixed seed: the same two files always give the same interval. */
#define CMP_SEED 0x6970637065726631ull

struct rcase {
	char key[NKEY][64]; /* "" when the result has no such field */
	json_t *res;	    /* borrowed from the document */
	bool measured;	    /* status ok or partial, with runs */
	bool used;	    /* paired with a case of the other file */
};

struct rfile {
	const char *path;
	json_t *root;
	struct rcase *cases;
	size_t n;
};

/* One matched pair and what the statistics say about it. */
struct pair {
	struct rcase *a, *b;
	const char *metric; /* p50, p99, mean, throughput */
	const char *unit;   /* ns, bytes/s, msgs/s */
	bool lower_better;
	struct ipc_cmp cmp;
	double change_pct;   /* (ratio - 1) * 100 */
	const char *verdict; /* faster, slower, no significant difference */
	char note[320];	     /* why no verdict, or a caveat */
	bool gate;	     /* trips --fail-if-slower */
};

__attribute__((format(printf, 3, 4))) static int
bad_file(const char *path, const char *hint, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return usage_error(hint, "%s: %s", path, msg);
}

static const char hint_json[] =
	"compare reads files written by ipcperf with -f json (-o FILE)";

/* A field of @o as a key string: strings as they are, integers in decimal. */
static void key_of(json_t *o, const char *field, char *buf, size_t len)
{
	json_t *v = json_object_get(o, field);

	buf[0] = '\0';
	if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
}

static int load(struct rfile *f, const char *path)
{
	json_error_t jerr;
	json_t *top, *schema, *results, *r;
	size_t i;

	memset(f, 0, sizeof(*f));
	f->path = path;
	f->root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!f->root) {
		if (jerr.line < 0 || strstr(jerr.text, "unable to open"))
			return bad_file(path, hint_json, "cannot read: %s",
					jerr.text);
		return bad_file(path, hint_json,
				"not valid JSON (line %d, column %d: %s)",
				jerr.line, jerr.column, jerr.text);
	}
	top = json_object_get(f->root, "ipcperf");
	schema = json_object_get(top, "schema");
	if (!json_is_object(f->root) || !json_is_integer(schema))
		return bad_file(path, hint_json,
				"not an ipcperf result (no ipcperf.schema)");
	if (json_integer_value(schema) != IPC_JSON_SCHEMA)
		return bad_file(path, "use the ipcperf that wrote it",
				"schema %lld, but this ipcperf reads schema "
				"%d",
				(long long)json_integer_value(schema),
				IPC_JSON_SCHEMA);
	results = json_object_get(f->root, "results");
	if (!json_is_array(results))
		return bad_file(path, hint_json,
				"not an ipcperf result (no results array)");
	f->n = json_array_size(results);
	f->cases = calloc(f->n ? f->n : 1, sizeof(*f->cases));
	if (!f->cases)
		return cli_error("out of memory");
	json_array_foreach(results, i, r)
	{
		struct rcase *c = &f->cases[i];
		const char *st =
			json_string_value(json_object_get(r, "status"));

		if (!json_is_object(r) ||
		    !json_is_string(json_object_get(r, "pattern")) ||
		    !json_is_string(json_object_get(r, "transport")))
			return bad_file(path, hint_json,
					"result %zu has no pattern or "
					"transport",
					i + 1);
		for (int k = 0; k < NKEY; k++)
			key_of(r, key_json[k], c->key[k], sizeof(c->key[k]));
		c->res = r;
		c->measured = st && strcmp(st, "error") &&
			      json_array_size(json_object_get(r, "runs")) > 0;
	}
	return 0;
}

static void unload(struct rfile *f)
{
	free(f->cases);
	json_decref(f->root);
}

/* "64", "4k", "1M" from a decimal string. */
static void size_word(const char *dec, char *buf, size_t len)
{
	unsigned long long v = strtoull(dec, NULL, 10);

	if (v >= (1u << 20) && v % (1u << 20) == 0)
		snprintf(buf, len, "%lluM", v >> 20);
	else if (v >= 1024 && v % 1024 == 0)
		snprintf(buf, len, "%lluk", v >> 10);
	else
		snprintf(buf, len, "%llu", v);
}

/*
 * "rr pipe req=1 resp=1" (engine named when not blocking), leaving out the
 * keys in @skip (those the two files differ in as a whole).
 */
static void label(const struct rcase *c, const bool *skip, char *buf,
		  size_t len)
{
	char w[64];
	size_t n = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; k < NKEY && n < len; k++) {
		if ((skip && skip[k]) || !c->key[k][0])
			continue;
		if (k == K_ENGINE && !strcmp(c->key[k], "blocking"))
			continue;
		if (key_word[k]) {
			if (k == K_COUNT)
				snprintf(w, sizeof(w), "%s", c->key[k]);
			else
				size_word(c->key[k], w, sizeof(w));
			n += (size_t)snprintf(buf + n, len - n, "%s%s=%s",
					      n ? " " : "", key_word[k], w);
		} else {
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
					      n ? " " : "", c->key[k]);
		}
	}
}

/*
 * The keys that hold one value in all of A and another in all of B: what
 * the two files compare.  They are left out when matching cases.  The
 * pattern never is (p50s are not compared with throughputs).
 */
static void differing(const struct rfile *a, const struct rfile *b, bool *skip)
{
	size_t i;
	int k;

	memset(skip, 0, NKEY * sizeof(*skip));
	if (!a->n || !b->n)
		return;
	for (k = K_PATTERN + 1; k < NKEY; k++) {
		bool one = true;

		for (i = 1; one && i < a->n; i++)
			one = !strcmp(a->cases[i].key[k], a->cases[0].key[k]);
		for (i = 1; one && i < b->n; i++)
			one = !strcmp(b->cases[i].key[k], b->cases[0].key[k]);
		skip[k] = one && strcmp(a->cases[0].key[k], b->cases[0].key[k]);
	}
}

static bool same_case(const struct rcase *x, const struct rcase *y,
		      const bool *skip)
{
	for (int k = 0; k < NKEY; k++)
		if (!skip[k] && strcmp(x->key[k], y->key[k]))
			return false;
	return true;
}

/* The metric of a case: the one asked for, or its pattern's own. */
static const char *metric_of(const struct cli_config *cfg,
			     const struct rcase *c)
{
	const char *m = json_string_value(
		json_object_get(json_object_get(c->res, "summary"), "metric"));

	if (cfg->cmp_metric)
		return cfg->cmp_metric;
	if (m)
		return strcmp(m, "p50_ns") ? "throughput" : "p50";
	return strcmp(c->key[K_PATTERN], "rr") ? "throughput" : "p50";
}

/*
 * Throughput of rr is round trips per second; of the others, payload
 * bytes per second, or messages per second when they move no payload.
 */
static const char *rate_field(const struct rcase *c)
{
	json_t *bytes =
		json_object_get(json_object_get(c->res, "summary"), "bytes");

	if (!strcmp(c->key[K_PATTERN], "rr"))
		return "msgs_per_s";
	if (json_is_integer(bytes) && json_integer_value(bytes) == 0)
		return "msgs_per_s";
	return "bytes_per_s";
}

/* The per-run values of @metric in @c, NaN where a run lacks it. */
static double *run_values(const struct rcase *c, const char *metric,
			  const char *rate, size_t *n)
{
	json_t *runs = json_object_get(c->res, "runs"), *r, *v;
	double *x;
	size_t i;

	*n = json_array_size(runs);
	x = malloc((*n ? *n : 1) * sizeof(*x));
	if (!x)
		return NULL;
	json_array_foreach(runs, i, r)
	{
		if (!strcmp(metric, "throughput"))
			v = json_object_get(r, rate);
		else
			v = json_object_get(json_object_get(r, "latency_ns"),
					    metric);
		x[i] = json_is_number(v) ? json_number_value(v) : NAN;
	}
	return x;
}

/* "bimodal, load": the flags a result was written with. */
static size_t flag_list(const struct rcase *c, char *buf, size_t len)
{
	json_t *flags = json_object_get(c->res, "flags"), *f;
	size_t i, n = 0;
	const char *name;

	buf[0] = '\0';
	json_array_foreach(flags, i, f)
	{
		name = json_string_value(json_object_get(f, "flag"));
		/* Unstable only says the spread is wide; the test sees that. */
		if (name && strcmp(name, "unstable") && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
					      n ? ", " : "", name);
	}
	return n;
}

/*
 * A verdict between results that ipcperf flagged rests on runs that were
 * not alike (another load, two placements): say so next to it.
 */
static void flagged(const struct pair *p, char *note, size_t len)
{
	char fa[64], fb[64];
	size_t na = flag_list(p->a, fa, sizeof(fa));
	size_t nb = flag_list(p->b, fb, sizeof(fb));

	if (!na && !nb)
		return;
	snprintf(note, len,
		 "%s%s%s%s%s: the runs may reflect the machine "
		 "more than what was measured",
		 na ? "A flagged " : "", fa, na && nb ? "; " : "",
		 nb ? "B flagged " : "", fb);
}

static int judge(const struct cli_config *cfg, struct pair *p)
{
	double *xa, *xb, alpha;
	size_t na, nb;
	bool diff, beyond;
	int err;

	p->metric = metric_of(cfg, p->a);
	p->lower_better = strcmp(p->metric, "throughput") != 0;
	p->unit = p->lower_better ? "ns" : rate_field(p->a);
	xa = run_values(p->a, p->metric, p->unit, &na);
	xb = run_values(p->b, p->metric, p->unit, &nb);
	if (!xa || !xb) {
		free(xa);
		free(xb);
		return -ENOMEM;
	}
	err = ipc_compare_runs(xa, na, xb, nb, 0.95, CMP_SEED, &p->cmp);
	free(xa);
	free(xb);
	if (err)
		return err;
	alpha = 1 - p->cmp.level;
	p->change_pct = p->cmp.have_ratio ? (p->cmp.ratio - 1) * 100 : 0;
	diff = p->cmp.p < alpha && p->cmp.have_ci &&
	       (p->cmp.ci_low > 1 || p->cmp.ci_high < 1);
	beyond = fabs(p->change_pct) >= cfg->cmp_threshold_pct;
	p->verdict = "no significant difference";
	if (!p->cmp.na || !p->cmp.nb)
		snprintf(p->note, sizeof(p->note), "no %s in %s", p->metric,
			 p->cmp.na ? "B" : "A");
	else if (!p->cmp.have_ratio)
		snprintf(p->note, sizeof(p->note), "A's median is 0: no ratio");
	else if (p->cmp.p_min >= alpha)
		snprintf(p->note, sizeof(p->note),
			 "too few runs to tell (%zu and %zu: p is at least "
			 "%.2g)",
			 p->cmp.na, p->cmp.nb, p->cmp.p_min);
	else if (diff && !beyond)
		snprintf(p->note, sizeof(p->note),
			 "significant but within the ±%g%% threshold",
			 cfg->cmp_threshold_pct);
	if (diff && beyond)
		p->verdict = (p->cmp.ratio > 1) == p->lower_better ? "slower"
								   : "faster";
	if (!p->note[0])
		flagged(p, p->note, sizeof(p->note));
	p->gate = cfg->cmp_fail_set && !strcmp(p->verdict, "slower") &&
		  fabs(p->change_pct) >= cfg->cmp_fail_pct;
	return 0;
}

/* A value of @p's metric for people. */
static char *fmt_val(const struct pair *p, double v, char *buf, size_t len)
{
	if (p->lower_better)
		return ipc_fmt_ns(v, buf, len);
	if (!strcmp(p->unit, "bytes_per_s"))
		return ipc_fmt_bps(v, buf, len);
	return ipc_fmt_rate(v, buf, len);
}

/* Columns of the table, kept simple: every cell is a short string. */
enum { COLS = 8 };

struct row {
	char cell[COLS][96];
};

/* Display width: UTF-8 continuation bytes take no column. */
static size_t dwidth(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void print_rows(FILE *out, const struct row *rows, size_t n)
{
	static const bool left[COLS] = {true,  false, false, false,
					false, false, false, true};
	size_t w[COLS] = {0}, i, c, d;

	for (i = 0; i < n; i++)
		for (c = 0; c < COLS; c++)
			if (dwidth(rows[i].cell[c]) > w[c])
				w[c] = dwidth(rows[i].cell[c]);
	for (i = 0; i < n; i++) {
		for (c = 0; c < COLS; c++) {
			d = dwidth(rows[i].cell[c]);
			if (c)
				fputs("  ", out);
			if (!left[c])
				fprintf(out, "%*s", (int)(w[c] - d), "");
			fputs(rows[i].cell[c], out);
			if (left[c] && c + 1 < COLS)
				fprintf(out, "%*s", (int)(w[c] - d), "");
		}
		fputc('\n', out);
	}
}

/* "the 'started' of the document, its command and host", for a heading. */
static void about(const struct rfile *f, char *buf, size_t len)
{
	json_t *host = json_object_get(f->root, "host");
	const char *cmd =
		json_string_value(json_object_get(f->root, "command"));
	const char *start = json_string_value(json_object_get(host, "started"));
	const char *name = json_string_value(json_object_get(host, "hostname"));

	snprintf(buf, len, "%s%s%s%s%s", cmd ? cmd : "?", start ? ", " : "",
		 start ? start : "", name ? ", host " : "", name ? name : "");
}

static void print_table(FILE *out, const struct cli_config *cfg,
			const struct rfile *a, const struct rfile *b,
			const bool *skip, struct pair *pairs, size_t np)
{
	struct row *rows = calloc(np + 1, sizeof(*rows));
	char buf[256], x[32], y[32];
	bool any_skip = false, few = false;
	size_t i, gates = 0;
	int k;

	if (!rows) {
		cli_error("out of memory");
		return;
	}
	about(a, buf, sizeof(buf));
	fprintf(out, "compare  A: %s (%s)\n", a->path, buf);
	about(b, buf, sizeof(buf));
	fprintf(out, "         B: %s (%s)\n", b->path, buf);
	for (k = 0; k < NKEY; k++) {
		if (!skip[k])
			continue;
		fprintf(out, "%s %s: %s in A, %s in B\n",
			any_skip ? "        " : "A and B differ in",
			key_json[k], a->cases[0].key[k], b->cases[0].key[k]);
		any_skip = true;
	}
	for (i = 1; i < np && !strcmp(pairs[i].metric, pairs[0].metric); i++)
		;
	if (i == np)
		fprintf(out,
			"B/A: ratio of the medians of the per-run %s (%s is "
			"better), 95%% bootstrap interval; p: two-sided "
			"Mann-Whitney U\n",
			pairs[0].metric,
			pairs[0].lower_better ? "lower" : "higher");
	else
		fprintf(out,
			"B/A: ratio of the medians of the per-run metric "
			"(lower p50, higher throughput is better), 95%% "
			"bootstrap interval; p: two-sided Mann-Whitney U\n");
	snprintf(rows[0].cell[0], 96, "case");
	snprintf(rows[0].cell[1], 96, "runs A/B");
	snprintf(rows[0].cell[2], 96, "A");
	snprintf(rows[0].cell[3], 96, "B");
	snprintf(rows[0].cell[4], 96, "B/A");
	snprintf(rows[0].cell[5], 96, "95%% CI");
	snprintf(rows[0].cell[6], 96, "p");
	snprintf(rows[0].cell[7], 96, "verdict");
	for (i = 0; i < np; i++) {
		struct pair *p = &pairs[i];
		struct row *r = &rows[i + 1];

		label(p->a, skip, r->cell[0], sizeof(r->cell[0]));
		if (strcmp(p->metric, "p50") || !p->lower_better)
			snprintf(r->cell[0] + strlen(r->cell[0]),
				 96 - strlen(r->cell[0]), " (%s)", p->metric);
		snprintf(r->cell[1], 96, "%zu/%zu", p->cmp.na, p->cmp.nb);
		if (p->cmp.na && p->cmp.nb) {
			snprintf(r->cell[2], 96, "%s",
				 fmt_val(p, p->cmp.median_a, x, sizeof(x)));
			snprintf(r->cell[3], 96, "%s",
				 fmt_val(p, p->cmp.median_b, y, sizeof(y)));
		} else {
			snprintf(r->cell[2], 96, "-");
			snprintf(r->cell[3], 96, "-");
		}
		if (p->cmp.have_ratio)
			snprintf(r->cell[4], 96, "%.3f", p->cmp.ratio);
		else
			snprintf(r->cell[4], 96, "-");
		if (p->cmp.have_ci)
			snprintf(r->cell[5], 96, "%.3f–%.3f", p->cmp.ci_low,
				 p->cmp.ci_high);
		else
			snprintf(r->cell[5], 96, "-");
		if (p->cmp.p < 0.0001)
			snprintf(r->cell[6], 96, "<0.0001");
		else
			snprintf(r->cell[6], 96, "%.2g", p->cmp.p);
		if (strcmp(p->verdict, "no significant difference"))
			snprintf(r->cell[7], 96, "%s (%+.1f%%)", p->verdict,
				 p->change_pct);
		else
			snprintf(r->cell[7], 96, "%s", p->verdict);
		few |= p->cmp.p_min >= 1 - p->cmp.level;
		gates += p->gate;
	}
	print_rows(out, rows, np + 1);
	for (i = 0; i < np; i++)
		if (pairs[i].note[0]) {
			label(pairs[i].a, skip, buf, sizeof(buf));
			fprintf(out, "note: %s: %s\n", buf, pairs[i].note);
		}
	if (few)
		fprintf(out, "hint: measure with --runs auto (the default) or "
			     "-r 5 or more to tell results apart\n");
	for (i = 0; i < a->n; i++) {
		label(&a->cases[i], NULL, buf, sizeof(buf));
		if (!a->cases[i].used)
			fprintf(out, "only in A: %s\n", buf);
		else if (!a->cases[i].measured)
			fprintf(out, "not measured in A: %s\n", buf);
	}
	for (i = 0; i < b->n; i++) {
		label(&b->cases[i], NULL, buf, sizeof(buf));
		if (!b->cases[i].used)
			fprintf(out, "only in B: %s\n", buf);
		else if (!b->cases[i].measured)
			fprintf(out, "not measured in B: %s\n", buf);
	}
	if (cfg->cmp_fail_set) {
		if (gates)
			fprintf(out,
				"gate: %zu case%s of B slower than A by "
				"%g%% or more: failed\n",
				gates, gates == 1 ? "" : "s",
				cfg->cmp_fail_pct);
		else
			fprintf(out,
				"gate: no case of B slower than A by %g%% "
				"or more: passed\n",
				cfg->cmp_fail_pct);
	}
	free(rows);
}

/* A real for JSON: left out when not finite (never NaN or Inf). */
static void jreal(json_t *o, const char *key, double v)
{
	if (isfinite(v))
		json_object_set_new(o, key, json_real(v));
}

static json_t *file_obj(const struct rfile *f)
{
	json_t *o = json_object(), *host = json_object_get(f->root, "host");

	json_object_set_new(o, "file", json_string(f->path));
	json_object_set(o, "command", json_object_get(f->root, "command"));
	json_object_set(o, "version",
			json_object_get(json_object_get(f->root, "ipcperf"),
					"version"));
	if (json_object_get(host, "started"))
		json_object_set(o, "started", json_object_get(host, "started"));
	if (json_object_get(host, "hostname"))
		json_object_set(o, "hostname",
				json_object_get(host, "hostname"));
	return o;
}

static int print_json(FILE *out, const struct cli_config *cfg,
		      const struct rfile *a, const struct rfile *b,
		      const bool *skip, const struct pair *pairs, size_t np)
{
	json_t *root = json_object(), *top = json_object(), *diff, *cases,
	       *only_a, *only_b, *unmeasured, *o, *ci;
	char buf[256];
	size_t i, gates = 0;
	int k, err = 0;

	if (!root || !top)
		return -ENOMEM;
	json_object_set_new(top, "version", json_string(IPCPERF_VERSION));
	json_object_set_new(top, "schema", json_integer(IPC_JSON_SCHEMA));
	json_object_set_new(root, "ipcperf", top);
	json_object_set_new(root, "command", json_string("compare"));
	json_object_set_new(root, "a", file_obj(a));
	json_object_set_new(root, "b", file_obj(b));
	json_object_set_new(root, "level", json_real(0.95));
	jreal(root, "threshold_pct", cfg->cmp_threshold_pct);
	if (cfg->cmp_fail_set)
		jreal(root, "fail_if_slower_pct", cfg->cmp_fail_pct);
	json_object_set_new(root, "test", json_string("mann-whitney-u"));
	json_object_set_new(root, "interval",
			    json_string("bootstrap, ratio of medians"));
	diff = json_array();
	for (k = 0; diff && k < NKEY; k++) {
		if (!skip[k])
			continue;
		o = json_object();
		json_object_set_new(o, "field", json_string(key_json[k]));
		json_object_set_new(o, "a", json_string(a->cases[0].key[k]));
		json_object_set_new(o, "b", json_string(b->cases[0].key[k]));
		json_array_append_new(diff, o);
	}
	json_object_set_new(root, "differ", diff);
	cases = json_array();
	for (i = 0; cases && i < np; i++) {
		const struct pair *p = &pairs[i];

		o = json_object();
		label(p->a, skip, buf, sizeof(buf));
		json_object_set_new(o, "case", json_string(buf));
		label(p->a, NULL, buf, sizeof(buf));
		json_object_set_new(o, "a_case", json_string(buf));
		label(p->b, NULL, buf, sizeof(buf));
		json_object_set_new(o, "b_case", json_string(buf));
		json_object_set_new(o, "metric", json_string(p->metric));
		json_object_set_new(o, "unit", json_string(p->unit));
		json_object_set_new(o, "lower_is_better",
				    json_boolean(p->lower_better));
		json_object_set_new(o, "runs_a",
				    json_integer((json_int_t)p->cmp.na));
		json_object_set_new(o, "runs_b",
				    json_integer((json_int_t)p->cmp.nb));
		if (p->cmp.na && p->cmp.nb) {
			jreal(o, "median_a", p->cmp.median_a);
			jreal(o, "median_b", p->cmp.median_b);
		}
		if (p->cmp.have_ratio) {
			jreal(o, "ratio", p->cmp.ratio);
			jreal(o, "change_pct", p->change_pct);
		}
		if (p->cmp.have_ci) {
			ci = json_object();
			jreal(ci, "level", p->cmp.level);
			jreal(ci, "low", p->cmp.ci_low);
			jreal(ci, "high", p->cmp.ci_high);
			json_object_set_new(o, "ci", ci);
		}
		jreal(o, "p", p->cmp.p);
		json_object_set_new(o, "exact", json_boolean(p->cmp.exact));
		json_object_set_new(o, "verdict", json_string(p->verdict));
		if (p->note[0])
			json_object_set_new(o, "note", json_string(p->note));
		json_array_append_new(cases, o);
		gates += p->gate;
	}
	json_object_set_new(root, "cases", cases);
	only_a = json_array();
	only_b = json_array();
	unmeasured = json_array();
	for (i = 0; i < a->n; i++) {
		label(&a->cases[i], NULL, buf, sizeof(buf));
		if (!a->cases[i].used)
			json_array_append_new(only_a, json_string(buf));
		else if (!a->cases[i].measured)
			json_array_append_new(unmeasured, json_string(buf));
	}
	for (i = 0; i < b->n; i++) {
		label(&b->cases[i], NULL, buf, sizeof(buf));
		if (!b->cases[i].used)
			json_array_append_new(only_b, json_string(buf));
		else if (!b->cases[i].measured)
			json_array_append_new(unmeasured, json_string(buf));
	}
	json_object_set_new(root, "only_in_a", only_a);
	json_object_set_new(root, "only_in_b", only_b);
	json_object_set_new(root, "not_measured", unmeasured);
	if (cfg->cmp_fail_set)
		json_object_set_new(root, "gate_failed", json_boolean(gates));
	errno = 0;
	if (json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) <
		    0 ||
	    fputc('\n', out) == EOF)
		err = errno ? -errno : -EIO;
	json_decref(root);
	return err;
}

int cli_compare(const struct cli_config *cfg)
{
	struct rfile a, b;
	struct ipc_outfile of;
	struct pair *pairs = NULL;
	bool skip[NKEY];
	size_t i, j, np = 0, gates = 0;
	int rc = EXIT_OK, err;

	memset(&b, 0, sizeof(b));
	if (load(&a, cfg->cmp_files[0])) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (load(&b, cfg->cmp_files[1])) {
		rc = EXIT_USAGE;
		goto out;
	}
	differing(&a, &b, skip);
	pairs = calloc(a.n ? a.n : 1, sizeof(*pairs));
	if (!pairs) {
		cli_error("out of memory");
		rc = EXIT_MEASURE;
		goto out;
	}
	for (i = 0; i < a.n; i++) {
		for (j = 0; j < b.n; j++)
			if (!b.cases[j].used &&
			    same_case(&a.cases[i], &b.cases[j], skip))
				break;
		if (j == b.n)
			continue;
		a.cases[i].used = b.cases[j].used = true;
		if (!a.cases[i].measured || !b.cases[j].measured)
			continue;
		pairs[np].a = &a.cases[i];
		pairs[np].b = &b.cases[j];
		if (judge(cfg, &pairs[np])) {
			cli_error("out of memory");
			rc = EXIT_MEASURE;
			goto out;
		}
		gates += pairs[np].gate;
		np++;
	}
	if (!np) {
		rc = usage_error("compare results of the same cases, or of "
				 "the same cases on two transports (or "
				 "engines) as a whole",
				 "no measured case of %s matches one of %s",
				 a.path, b.path);
		goto out;
	}
	err = ipc_outfile_open(&of, cfg->output);
	if (err) {
		rc = usage_error("check that the directory exists and is "
				 "writable",
				 "--output: cannot write '%s': %s", cfg->output,
				 strerror(-err));
		goto out;
	}
	if (!strcmp(cfg->format, "json"))
		err = print_json(of.fp, cfg, &a, &b, skip, pairs, np);
	else
		print_table(of.fp, cfg, &a, &b, skip, pairs, np);
	if (!err && ferror(of.fp))
		err = -EIO;
	if (!err)
		err = ipc_outfile_commit(&of);
	else
		ipc_outfile_abort(&of);
	if (err) {
		cli_error("cannot write the comparison: %s", strerror(-err));
		rc = EXIT_MEASURE;
	} else if (gates) {
		rc = EXIT_MEASURE;
	}
out:
	free(pairs);
	unload(&a);
	unload(&b);
	return rc;
}

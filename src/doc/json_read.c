/* SPDX-License-Identifier: MIT */
/*
 * The reader of result documents: the JSON formatter's output turned back
 * into result records, through the same schema tables (schema.c) and the
 * same pattern descriptions that wrote it: the document's host, options
 * and command, and each result's case (pattern, transport, engine,
 * parameters, link, framing).  Every problem is one sentence naming the
 * file and the field.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explain_json.h"
#include "intervals_json.h"
#include "streams_json.h"
#include "jread.h"
#include "base/lib_internal.h"
#include "doc/lib_internal.h"
#include "pattern/lib_internal.h"
#include "run/lib_internal.h"
#include "stats/lib_internal.h"

static void read_host(struct rd *r, json_t *o, struct ipc_host *h)
{
	json_t *la, *perf, *q;
	const char *s;

	memset(h, 0, sizeof(*h));
	h->pm_qos.fd = -1;
	h->pm_qos.request_us = -1;
	h->pm_qos.before_us = -1;
	h->cores = h->packages = h->smt = -1;
	h->loadavg[0] = h->loadavg[1] = h->loadavg[2] = -1;
	if (!o)
		return;
	jr_table(r, o, "host", h, &js_host);
	la = jr_arr(r, o, "host", KEY_LOADAVG);
	for (size_t i = 0; la && i < 3 && i < json_array_size(la); i++) {
		json_t *v = json_array_get(la, i);

		if (!json_is_number(v))
			jr_bad(r, "host", KEY_LOADAVG, "not numbers");
		else
			h->loadavg[i] = json_number_value(v);
	}
	perf = jr_obj(r, o, "host", KEY_PERF, false);
	if (perf) {
		h->perf_hw =
			json_is_true(json_object_get(perf, KEY_PERF_CYCLES));
		h->perf_sw = json_is_true(json_object_get(perf, KEY_PERF_MIGR));
		s = jr_str(r, perf, "host.perf", KEY_PERF_NOTE);
		snprintf(h->perf, sizeof(h->perf), "%s", s ? s : "");
	}
	q = jr_obj(r, o, "host", KEY_PM_QOS, false);
	if (q) {
		jr_table(r, q, "host.pm_qos", &h->pm_qos, &js_pmqos);
		if (h->pm_qos.state == IPC_PMQOS_UNKNOWN)
			jr_bad(r, "host.pm_qos", "state", "unknown");
	}
	s = jr_str(r, o, "host", KEY_STARTED);
	snprintf(h->started, sizeof(h->started), "%s", s ? s : "");
	s = jr_str(r, o, "host", KEY_ENDED);
	snprintf(h->ended, sizeof(h->ended), "%s", s ? s : "");
}

/* The options of a case or of the whole document. */
static void read_config(struct rd *r, json_t *o, const char *at,
			struct ipc_runopts *ro)
{
	uint64_t runs;
	json_t *dev;

	ipc_runopts_default(ro);
	if (!o)
		return;
	jr_table(r, o, at, ro, &js_config);
	jr_table(r, o, at, ro, &js_config1);
	jr_table(r, o, at, ro, &js_config2);
	if (jr_u64(r, o, at, KEY_CFG_RUNS, false, &runs))
		ro->runs = (unsigned)runs;
	dev = json_object_get(o, KEY_CFG_DEVICE);
	if (json_is_array(dev) && json_array_size(dev) == 2 &&
	    json_is_string(json_array_get(dev, 0)) &&
	    json_is_string(json_array_get(dev, 1))) {
		ro->tp.device[0] = jr_keep_str(
			r, json_string_value(json_array_get(dev, 0)));
		ro->tp.device[1] = jr_keep_str(
			r, json_string_value(json_array_get(dev, 1)));
	} else if (dev && !json_is_null(dev)) {
		jr_bad(r, at, KEY_CFG_DEVICE, "not two strings or null");
	}
}

/*
 * A transport or engine this build lacks (io_uring, a serial port of
 * another host): an entry that has its name and nothing else.
 */
static const void *stand_in(struct rd *r, size_t size, const char *name)
{
	void *ops = jr_keep(r, calloc(1, size));

	/* Both ops structs start with their name. */
	if (ops)
		*(const char **)ops = jr_keep_str(r, name);
	return ops;
}

static void read_link(struct rd *r, json_t *o, const char *at,
		      struct ipc_case *cs)
{
	const char *name = jr_str(r, o, at, KEY_LINK);
	char sat[64];
	struct ipc_link *l;
	json_t *p;
	double loss;

	if (!name || !strcmp(name, "none"))
		return;
	l = jr_keep(r, calloc(1, sizeof(*l)));
	if (!l)
		return;
	snprintf(l->name, sizeof(l->name), "%s", name);
	p = jr_obj(r, o, at, KEY_LINK_PARAMS, false);
	if (p) {
		jr_at(sat, sizeof(sat), at, KEY_LINK_PARAMS);
		l->relay = true;
		jr_table(r, p, sat, l, &js_link);
		jr_table(r, p, sat, l, &js_link2);
		loss = jr_num(r, p, sat, KEY_LINK_LOSS);
		if (loss > 1)
			jr_bad(r, sat, KEY_LINK_LOSS, "%g is more than all",
			       loss);
		l->loss_ppm = isfinite(loss) && loss <= 1
				      ? (uint32_t)lround(loss * 1e6)
				      : 0;
	}
	cs->link = l;
}

/* The case's parameters, as its pattern describes them. */
/*
 * Does the result @o have the pattern's own block?  It may be optional
 * (replay's is there only against a live stub): a result without any of
 * its keys has none.
 */
static bool has_cfg(json_t *o, const struct ipc_pattern_ops *pat)
{
	for (const struct ipc_param *p = pat->params; p && p->key; p++)
		if (p->in == IPC_IN_CFG && json_object_get(o, p->key))
			return true;
	return false;
}

static void read_params(struct rd *r, json_t *o, const char *at,
			struct ipc_case *cs)
{
	const struct ipc_param *p;
	const char *s;
	uint64_t v;
	int i;

	if (cs->pat->flags & IPC_PAT_TRACE)
		cs->trace = jr_keep(r, calloc(1, sizeof(struct ipc_trace)));
	if (cs->pat->cfg_size && has_cfg(o, cs->pat))
		cs->cfg = jr_keep(r, calloc(1, cs->pat->cfg_size));
	for (p = cs->pat->params; p && p->key && !r->rc; p++) {
		if ((p->flags & IPC_PARAM_DERIVED) || !ipc_param_at(cs, p))
			continue;
		if (p->type == IPC_VT_STR || p->type == IPC_VT_CHARS) {
			s = jr_str(r, o, at, p->key);
			if (!s)
				jr_bad(r, at, p->key, "missing");
			else if (p->type == IPC_VT_STR)
				*(char **)ipc_param_at(cs, p) =
					jr_keep_str(r, s);
			else if (strlen(s) >= p->len)
				jr_bad(r, at, p->key, "longer than %zu bytes",
				       p->len - 1);
			else
				strcpy(ipc_param_at(cs, p), s);
			continue;
		}
		if (p->fmt == IPC_FMT_NAME && p->names) {
			s = jr_str(r, o, at, p->key);
			if (!s && (p->flags & IPC_PARAM_JSON_DFLT) &&
			    !json_object_get(o, p->key)) {
				/* Left out as the default (or older). */
				ipc_param_set_u64(cs, p, p->dflt);
				continue;
			}
			if (!s) {
				jr_bad(r, at, p->key, "missing");
				continue;
			}
			for (i = 0; p->names[i] && strcmp(p->names[i], s); i++)
				;
			if (!p->names[i])
				jr_bad(r, at, p->key, "'%s' is unknown", s);
			else
				ipc_param_set_u64(cs, p, (uint64_t)i);
			continue;
		}
		if (jr_u64(r, o, at, p->key, !(p->flags & IPC_PARAM_JSON_DFLT),
			   &v))
			ipc_param_set_u64(cs, p, v);
		else if (!r->rc)
			ipc_param_set_u64(cs, p, p->dflt);
	}
}

/* An integer of at least -1, or *v unchanged when absent. */
static void read_cpu(struct rd *r, json_t *o, const char *at, const char *key,
		     int *v)
{
	json_t *x = json_object_get(o, key);

	if (!x)
		return;
	if (!json_is_integer(x) || json_integer_value(x) < 0 ||
	    json_integer_value(x) >= 1 << 20)
		jr_bad(r, at, key, "not a CPU number");
	else
		*v = (int)json_integer_value(x);
}

/*
 * Where the sides ran: "cpus" 1 or 2 with "pin", or null (or absent, as
 * documents before placement was a parameter): the scheduler's choice.
 */
static void read_place(struct rd *r, json_t *o, const char *at,
		       struct ipc_place *pl)
{
	json_t *c = json_object_get(o, KEY_CPUS), *p, *smt;
	char sat[96];

	*pl = (struct ipc_place){.cpus = IPC_CPUS_ANY, .smt = -1};
	if (!c || json_is_null(c))
		return;
	if (!json_is_integer(c) ||
	    (json_integer_value(c) != 1 && json_integer_value(c) != 2)) {
		jr_bad(r, at, KEY_CPUS, "not 1, 2 or null");
		return;
	}
	pl->cpus = json_integer_value(c) == 1 ? IPC_CPUS_ONE : IPC_CPUS_TWO;
	p = jr_obj(r, o, at, KEY_PIN, false);
	if (!p)
		return;
	jr_at(sat, sizeof(sat), at, KEY_PIN);
	read_cpu(r, p, sat, KEY_CLIENT, &pl->client_cpu);
	read_cpu(r, p, sat, KEY_SERVER, &pl->server_cpu);
	pl->chosen = !strcmp(jr_str(r, p, sat, KEY_PIN_BY) ?: "", "ipcperf");
	smt = json_object_get(p, KEY_PIN_SMT);
	if (json_is_boolean(smt))
		pl->smt = json_is_true(smt);
}

/* The case a result is about: pattern, transport, engine, parameters. */
static void read_case(struct rd *r, json_t *o, const char *at,
		      struct ipc_case *cs)
{
	const char *pat = jr_str(r, o, at, KEY_PATTERN);
	const char *tp = jr_str(r, o, at, KEY_TRANSPORT);
	const char *eng = jr_str(r, o, at, KEY_ENGINE);
	const char *fr;

	memset(cs, 0, sizeof(*cs));
	if (!pat || !tp || !eng) {
		jr_bad(r, at,
		       !pat  ? KEY_PATTERN
		       : !tp ? KEY_TRANSPORT
			     : KEY_ENGINE,
		       "missing");
		return;
	}
	cs->pat = ipc_pattern_find(pat);
	if (!cs->pat) {
		jr_bad(r, at, KEY_PATTERN, "unknown pattern '%s'", pat);
		return;
	}
	cs->tp = ipc_transport_find(tp);
	if (!cs->tp)
		cs->tp = stand_in(r, sizeof(*cs->tp), tp);
	cs->eng = ipc_engine_find(eng);
	if (!cs->eng)
		cs->eng = stand_in(r, sizeof(*cs->eng), eng);
	read_params(r, o, at, cs);
	read_place(r, o, at, &cs->place);
	read_link(r, o, at, cs);
	fr = jr_str(r, o, at, KEY_FRAMING);
	if (fr && (cs->pat->flags & IPC_PAT_FRAMED)) {
		cs->framing = ipc_framing_find(fr);
		if (!cs->framing)
			jr_bad(r, at, KEY_FRAMING, "unknown framing '%s'", fr);
		cs->framing_noack = json_is_false(json_object_get(o, KEY_ACKS));
	}
}

/*
 * Documents written before each run's outlier mark and the early wake-up
 * were stored (their runs lack "outlier"): this build's rules decide both
 * from what the document holds.  Out of memory, the runs stay unmarked.
 */
static void older_marks(struct ipc_result *res, json_t *first)
{
	double *v, wake;
	bool *far;
	size_t i, n = res->nruns;

	if (!first || !n || json_object_get(first, KEY_OUTLIER))
		return;
	if (ipc_result_early_wake(res, &wake))
		res->diag.early_wake_vcsw = wake;
	v = malloc(n * sizeof(*v));
	far = calloc(n, sizeof(*far));
	if (v && far) {
		for (i = 0; i < n; i++)
			v[i] = ipc_run_metric(res, i);
		ipc_runs_outliers(v, n, far);
		for (i = 0; i < n; i++)
			res->runs[i].outlier = far[i];
	}
	free(v);
	free(far);
}

/* One result, or NULL (r->rc says why). */
static struct ipc_result *read_result(struct rd *r, json_t *o, size_t idx)
{
	struct ipc_result *res;
	struct ipc_case cs;
	json_t *runs, *run;
	const char *st, *err;
	char at[48], sat[96];
	unsigned unworded;
	int k;
	size_t i;

	snprintf(at, sizeof(at), "results[%zu]", idx);
	if (!json_is_object(o)) {
		jr_bad(r, at, NULL, "not an object");
		return NULL;
	}
	read_case(r, o, at, &cs);
	if (r->rc)
		return NULL;
	res = ipc_result_new(&cs);
	if (!res) {
		jr_keep(r, NULL);
		return NULL;
	}
	/*
	 * A document holds replay's exchanges as a summary, never their
	 * histogram: an empty one would be half of a read result's memory.
	 * jr_hist gives the result a histogram of the buckets in use; freed
	 * now, the whole ones go back to the top of the heap rather than
	 * leave holes between the results.
	 */
	ipc_hist_free(res->xhist);
	res->xhist = NULL;
	ipc_hist_free(res->hist);
	res->hist = NULL;
	st = jr_str(r, o, at, KEY_STATUS);
	k = st ? jr_name_index(r, at, KEY_STATUS, js_status_names, st) : -1;
	if (!st)
		jr_bad(r, at, KEY_STATUS, "missing");
	res->status = k >= 0 ? (enum ipc_status)k : IPC_STATUS_ERROR;
	err = jr_str(r, o, at, KEY_ERROR);
	snprintf(res->error, sizeof(res->error), "%s", err ? err : "");
	err = jr_str(r, o, at, "first_mismatch");
	snprintf(res->mismatch, sizeof(res->mismatch), "%s", err ? err : "");
	err = jr_str(r, o, at, "tls_session");
	snprintf(res->session, sizeof(res->session), "%s", err ? err : "");
	jr_extras(r, o, at, &res->cs, &res->summary, 0);
	read_config(r, jr_obj(r, o, at, KEY_CONFIG, false),
		    jr_at(sat, sizeof(sat), at, KEY_CONFIG), &res->ro);
	runs = jr_arr(r, o, at, KEY_RUNS);
	res->nruns = json_array_size(runs);
	if (res->nruns) {
		res->runs = calloc(res->nruns, sizeof(*res->runs));
		res->runs_cap = res->nruns;
		if (!res->runs) {
			res->nruns = 0;
			jr_keep(r, NULL);
		}
	}
	json_array_foreach(runs, i, run)
	{
		if (!res->runs || r->rc)
			break;
		snprintf(sat, sizeof(sat), "%s.runs[%zu]", at, i);
		jr_run(r, run, sat, &res->cs, &res->runs[i]);
	}
	if (res->runs) {
		intervals_json_get(r, runs, at, res);
		streams_json_get(r, runs, at, res);
	}
	run = jr_obj(r, o, at, KEY_SOCKET, false);
	if (run && res->nruns) {
		res->runs[0].sock.valid = true;
		jr_table(r, run, jr_at(sat, sizeof(sat), at, KEY_SOCKET),
			 &res->runs[0].sock, &js_sock);
	}
	run = jr_obj(r, o, at, KEY_SUMMARY, false);
	jr_summary(r, run, jr_at(sat, sizeof(sat), at, KEY_SUMMARY), res);
	jr_hist(r, run, sat, res);
	unworded = jr_flags(r, o, at, &res->diag);
	jr_u64(r, o, at, KEY_REFUSED, false, &res->refused);
	jr_peer(r, o, at, res);
	explain_json_get(r, o, at, &res->explain);
	if (r->rc) {
		ipc_result_free(res);
		return NULL;
	}
	/* Older documents did not store why: today's rules word it. */
	ipc_result_word_flags(res, unworded);
	older_marks(res, json_array_get(runs, 0));
	return res;
}

/* The document's own fields: what ran, where and how. */
static void read_meta(struct rd *r, json_t *root, struct ipc_doc *doc)
{
	struct ipc_report_meta *m = &doc->meta;
	json_t *top = json_object_get(root, KEY_IPCPERF), *argv, *v;
	const char *s;
	char **words;
	size_t i;

	s = jr_str(r, top, KEY_IPCPERF, KEY_VERSION);
	m->version = s ? jr_keep_str(r, s) : NULL;
	s = jr_str(r, top, KEY_IPCPERF, KEY_BUILD);
	m->build = s ? jr_keep_str(r, s) : NULL;
	s = jr_str(r, root, "", KEY_COMMAND);
	m->command = s ? jr_keep_str(r, s) : NULL;
	read_host(r, jr_obj(r, root, "", KEY_HOST, false), &r->st->host);
	m->host = &r->st->host;
	read_config(r, jr_obj(r, root, "", KEY_CONFIG, false), KEY_CONFIG,
		    &r->st->ro);
	m->ro = &r->st->ro;
	argv = jr_arr(r, root, "", KEY_ARGV);
	words = jr_keep(r, calloc(json_array_size(argv) + 1, sizeof(*words)));
	json_array_foreach(argv, i, v)
	{
		if (!words)
			break;
		if (!json_is_string(v)) {
			jr_bad(r, "", KEY_ARGV, "not strings");
			break;
		}
		words[i] = jr_keep_str(r, json_string_value(v));
	}
	m->argv = words;
	m->argc = words ? (int)json_array_size(argv) : 0;
}

static void read_skips(struct rd *r, json_t *root, struct ipc_doc *doc)
{
	json_t *a = jr_arr(r, root, "", KEY_SKIPPED), *s;
	const char *what, *why;
	size_t i;

	doc->skips =
		jr_keep(r, calloc(json_array_size(a) + 1, sizeof(*doc->skips)));
	json_array_foreach(a, i, s)
	{
		if (!doc->skips)
			break;
		what = jr_clean(
			r, json_string_value(json_object_get(s, KEY_WHAT)));
		why = jr_clean(r,
			       json_string_value(json_object_get(s, KEY_WHY)));
		if (!what || !why) {
			jr_bad(r, "", KEY_SKIPPED,
			       "an entry without what and why");
			break;
		}
		snprintf(doc->skips[i].what, sizeof(doc->skips[i].what), "%s",
			 what);
		snprintf(doc->skips[i].why, sizeof(doc->skips[i].why), "%s",
			 why);
		doc->nskips++;
	}
}

void ipc_doc_free(struct ipc_doc *doc)
{
	if (!doc)
		return;
	for (size_t i = 0; i < doc->nresults; i++)
		ipc_result_free(doc->results[i]);
	free(doc->results);
	if (doc->store) {
		for (size_t i = 0; i < doc->store->n; i++)
			free(doc->store->p[i]);
		free(doc->store->p);
		free(doc->store);
	}
	free(doc);
}

/* A document from its parsed JSON @root, into @doc. */
static void read_doc(struct rd *r, json_t *root, struct ipc_doc *doc)
{
	json_t *schema =
		json_object_get(json_object_get(root, KEY_IPCPERF), KEY_SCHEMA);
	json_t *results, *o;
	size_t i;

	if (!json_is_object(root) || !json_is_integer(schema)) {
		jr_bad(r, "", NULL,
		       "not an ipcperf result (no ipcperf.schema)");
		return;
	}
	if (json_integer_value(schema) != IPC_JSON_SCHEMA) {
		snprintf(r->err, r->err_len,
			 "%s: schema %lld, but this ipcperf reads schema %d",
			 r->file, (long long)json_integer_value(schema),
			 IPC_JSON_SCHEMA);
		r->rc = -EPROTO;
		return;
	}
	results = json_object_get(root, KEY_RESULTS);
	if (!json_is_array(results)) {
		jr_bad(r, "", NULL, "not an ipcperf result (no results array)");
		return;
	}
	if (json_array_size(results) > IPC_DOC_RESULTS_MAX) {
		snprintf(r->err, r->err_len, "%s: more than %u results",
			 r->file, IPC_DOC_RESULTS_MAX);
		r->rc = -EFBIG;
		return;
	}
	read_meta(r, root, doc);
	read_skips(r, root, doc);
	doc->results =
		calloc(json_array_size(results) + 1, sizeof(*doc->results));
	if (!doc->results) {
		jr_keep(r, NULL);
		return;
	}
	json_array_foreach(results, i, o)
	{
		if (r->rc)
			break;
		doc->results[i] = read_result(r, o, i);
		if (doc->results[i])
			doc->nresults++;
		/*
		 * Nothing read keeps a pointer into the tree (it is freed
		 * at the end): freed result by result, the parsed JSON and
		 * the results read from it are not both held whole.
		 */
		json_array_set_new(results, i, json_null());
	}
}

static int finish(struct rd *r, json_t *root, json_error_t *jerr,
		  struct ipc_doc *doc, struct ipc_doc **out)
{
	if (!root && jerr->line < 0) {
		/* Not a parse error: reading failed (a directory). */
		snprintf(r->err, r->err_len, "%s: cannot read: %s", r->file,
			 jerr->text);
		r->rc = -EIO;
	} else if (!root) {
		snprintf(r->err, r->err_len,
			 "%s: not valid JSON (line %d, column %d: %s)", r->file,
			 jerr->line, jerr->column, jerr->text);
		r->rc = -EINVAL;
	} else {
		read_doc(r, root, doc);
	}
	json_decref(root);
	ipc_hist_free(r->hist);
	if (r->rc) {
		ipc_doc_free(doc);
		return r->rc;
	}
	*out = doc;
	return 0;
}

/* A new empty document called @name, or NULL. */
static struct ipc_doc *doc_new(struct rd *r, const char *name)
{
	struct ipc_doc *doc = calloc(1, sizeof(*doc));

	if (doc)
		doc->store = calloc(1, sizeof(*doc->store));
	if (!doc || !doc->store) {
		free(doc);
		snprintf(r->err, r->err_len, "%s: out of memory", name);
		return NULL;
	}
	r->st = doc->store;
	doc->path = jr_keep_str(r, name);
	r->file = doc->path ? doc->path : name;
	return doc;
}

int ipc_doc_values_check(const char *text, size_t len, const char *name,
			 char *err, size_t err_len)
{
	size_t n = 1;
	bool in_str = false;

	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (in_str) {
			if (c == '\\')
				i++; /* the escaped character, '"' or not */
			else if (c == '"')
				in_str = false;
		} else if (c == '"') {
			in_str = true;
		} else if ((c == '{' || c == '[' || c == ',') &&
			   ++n > IPC_DOC_VALUES_MAX) {
			snprintf(err, err_len, "%s: more than %u JSON values",
				 name, IPC_DOC_VALUES_MAX);
			return -EFBIG;
		}
	}
	return 0;
}

int ipc_doc_parse(const char *text, size_t len, const char *name,
		  struct ipc_doc **out, char *err, size_t err_len)
{
	struct rd r = {.file = name, .err = err, .err_len = err_len};
	struct ipc_doc *doc;
	json_error_t jerr;
	int rc = ipc_doc_values_check(text, len, name, err, err_len);

	if (rc)
		return rc;
	doc = doc_new(&r, name);
	if (!doc)
		return -ENOMEM;
	return finish(&r, json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr),
		      &jerr, doc, out);
}

int ipc_doc_read(const char *path, struct ipc_doc **out, char *err,
		 size_t err_len)
{
	char *text;
	size_t len;
	int rc = ipc_file_read(path, IPC_DOC_FILE_MAX, &text, &len, err,
			       err_len);

	*out = NULL;
	if (rc)
		return rc;
	rc = ipc_doc_parse(text, len, path, out, err, err_len);
	free(text);
	return rc;
}

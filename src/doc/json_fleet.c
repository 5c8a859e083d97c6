/* SPDX-License-Identifier: MIT */
/*
 * What merging results of many hosts needs from a result in JSON: its
 * latency histogram (the summary's "histogram", the buckets that are not
 * empty, written and read back, so that percentiles of merged runs come
 * from the merged histogram) and the peer it measured against (docs/json.md).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jread.h"
#include "stats/lib_internal.h"

#define SCHEME "log-linear"

static json_t *jint(uint64_t v)
{
	return json_integer(v > (uint64_t)LLONG_MAX ? LLONG_MAX
						    : (json_int_t)v);
}

static int set(json_t *o, const char *key, json_t *v)
{
	return v ? json_object_set_new(o, key, v) : -1;
}

json_t *jh_hist_obj(const struct ipc_hist *h)
{
	size_t len = ipc_hist_buckets_format(h, NULL, 0) + 1;
	char *text = malloc(len);
	json_t *o = json_object();
	int bad = !text || !o;

	if (!bad) {
		ipc_hist_buckets_format(h, text, len);
		bad |= set(o, KEY_HIST_SCHEME, json_string(SCHEME));
		bad |= set(o, KEY_HIST_SUB_BITS, jint(IPC_HIST_SUB_BITS));
		bad |= set(o, KEY_HIST_TOP_BITS, jint(IPC_HIST_TOP_BITS));
		bad |= set(o, KEY_HIST_TOTAL, jint(h->total));
		bad |= set(o, KEY_HIST_MIN, jint(h->min));
		bad |= set(o, KEY_HIST_MAX, jint(h->max));
		bad |= set(o, KEY_HIST_SUM, jint(h->sum));
		bad |= set(o, KEY_HIST_OVERFLOW, jint(h->overflow));
		bad |= set(o, KEY_HIST_BUCKETS, json_string(text));
	}
	free(text);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The first and last bucket that hold samples; false when none does. */
static bool span(const struct ipc_hist *h, size_t *lo, size_t *hi)
{
	size_t i;

	for (i = 0; i < IPC_HIST_BUCKETS && !h->counts[i]; i++)
		;
	if (i == IPC_HIST_BUCKETS)
		return false;
	*lo = i;
	for (i = IPC_HIST_BUCKETS - 1; !h->counts[i]; i--)
		;
	*hi = i;
	return true;
}

/*
 * Do the totals agree with the buckets?  min and max must fall in the
 * first and last bucket that hold samples, sum between total * min and
 * total * max, the overflow in the last bucket.  A histogram that fails
 * would give merged percentiles that no sample supports.
 */
static const char *disagrees(const struct ipc_hist *h)
{
	size_t lo, hi;

	if (!span(h, &lo, &hi))
		return "no buckets";
	if (h->min > h->max)
		return "min is above max";
	if (ipc_hist_index(h->min) != lo || ipc_hist_index(h->max) != hi)
		return "min or max outside the buckets that hold samples";
	if ((unsigned __int128)h->sum < (unsigned __int128)h->total * h->min ||
	    (unsigned __int128)h->sum > (unsigned __int128)h->total * h->max)
		return "sum outside total * min .. total * max";
	if (h->overflow > h->counts[IPC_HIST_BUCKETS - 1] ||
	    (h->overflow > 0) != (h->max >> IPC_HIST_TOP_BITS > 0))
		return "overflow does not match the last bucket and max";
	return NULL;
}

/*
 * The sum of squares is not written (it needs 128 bits); it is made
 * again from the summary's mean and standard deviation, n * (sd^2 +
 * mean^2), which is what a merged standard deviation needs.
 */
static void sumsq_from(struct ipc_hist *h, const struct ipc_lat *lat)
{
	long double n = (long double)h->total;
	long double m = (long double)h->sum / n;
	long double sd = isfinite(lat->stddev) && lat->stddev > 0
				 ? (long double)lat->stddev
				 : 0.0L;
	long double sq = n * (sd * sd + m * m);

	h->sumsq =
		sq >= 3.4e38L ? ~(unsigned __int128)0 : (unsigned __int128)sq;
}

static void read_hist(struct rd *r, json_t *summary, const char *at,
		      struct ipc_result *res, struct ipc_hist *h)
{
	json_t *o = jr_obj(r, summary, at, KEY_HIST, false);
	uint64_t total = 0, sub = 0, top = 0;
	const char *scheme, *text, *why;
	char sat[96];
	size_t bad_at = 0;

	if (!o)
		return;
	jr_at(sat, sizeof(sat), at, KEY_HIST);
	scheme = jr_str(r, o, sat, KEY_HIST_SCHEME);
	jr_u64(r, o, sat, KEY_HIST_SUB_BITS, true, &sub);
	jr_u64(r, o, sat, KEY_HIST_TOP_BITS, true, &top);
	if (r->rc)
		return;
	if (!scheme || strcmp(scheme, SCHEME) || sub != IPC_HIST_SUB_BITS ||
	    top != IPC_HIST_TOP_BITS) {
		jr_bad(r, sat, KEY_HIST_SCHEME,
		       "not this ipcperf's buckets (%s, %d and %d bits)",
		       SCHEME, IPC_HIST_SUB_BITS, IPC_HIST_TOP_BITS);
		return;
	}
	text = jr_str(r, o, sat, KEY_HIST_BUCKETS);
	if (!text) {
		jr_bad(r, sat, KEY_HIST_BUCKETS, "missing");
		return;
	}
	if (ipc_hist_buckets_parse(h, text, &bad_at)) {
		jr_bad(r, sat, KEY_HIST_BUCKETS,
		       "not index:count pairs in increasing order (at byte "
		       "%zu)",
		       bad_at);
		return;
	}
	jr_u64(r, o, sat, KEY_HIST_TOTAL, true, &total);
	jr_u64(r, o, sat, KEY_HIST_MIN, true, &h->min);
	jr_u64(r, o, sat, KEY_HIST_MAX, true, &h->max);
	jr_u64(r, o, sat, KEY_HIST_SUM, true, &h->sum);
	jr_u64(r, o, sat, KEY_HIST_OVERFLOW, true, &h->overflow);
	if (!r->rc && total != h->total)
		jr_bad(r, sat, KEY_HIST_TOTAL,
		       "%llu, but the buckets hold %llu samples",
		       (unsigned long long)total, (unsigned long long)h->total);
	why = r->rc ? NULL : disagrees(h);
	if (why)
		jr_bad(r, sat, NULL, "%s", why);
	if (r->rc) {
		ipc_hist_reset(h);
		return;
	}
	sumsq_from(h, &res->summary.lat);
}

/*
 * Read into the reader's one whole histogram, then copied with only the
 * buckets in use: a read result is never recorded into, and all 4736
 * buckets would be most of its memory.
 */
void jr_hist(struct rd *r, json_t *summary, const char *at,
	     struct ipc_result *res)
{
	if (!r->hist)
		r->hist = ipc_hist_new();
	if (!r->hist) {
		jr_keep(r, NULL);
		return;
	}
	ipc_hist_reset(r->hist);
	read_hist(r, summary, at, res, r->hist);
	ipc_hist_free(res->hist);
	res->hist = ipc_hist_compact(r->hist);
	if (!res->hist)
		jr_keep(r, NULL);
}

/*
 * The other end when it was on another host: its kind stands in for the
 * peer kind (the formatters need only its name and that it was
 * elsewhere), its address, the fingerprint it sent, kept as compact JSON
 * text as the client kept it, and how many other tests it ran.
 */
void jr_peer(struct rd *r, json_t *o, const char *at, struct ipc_result *res)
{
	json_t *p = jr_obj(r, o, at, KEY_PEER, false), *host;
	struct ipc_peer_ops *ops;
	const char *kind, *target;
	char sat[96], *text;

	if (!p)
		return;
	jr_at(sat, sizeof(sat), at, KEY_PEER);
	kind = jr_str(r, p, sat, KEY_PEER_KIND);
	target = jr_str(r, p, sat, KEY_PEER_TARGET);
	if (!kind || !target) {
		jr_bad(r, sat, !kind ? KEY_PEER_KIND : KEY_PEER_TARGET,
		       "missing");
		return;
	}
	ops = jr_keep(r, calloc(1, sizeof(*ops)));
	if (!ops)
		return;
	ops->name = jr_keep_str(r, jr_clean(r, kind));
	ops->flags = IPC_PEER_ELSEWHERE;
	res->cs.peer = ops;
	res->cs.target = jr_keep_str(r, jr_clean(r, target));
	jr_u64(r, p, sat, KEY_PEER_OTHERS, false, &res->peer_others);
	host = json_object_get(p, KEY_PEER_HOST);
	if (host && !json_is_null(host) && !json_is_object(host)) {
		jr_bad(r, sat, KEY_PEER_HOST, "not an object or null");
		return;
	}
	if (!json_is_object(host))
		return;
	text = json_dumps(host, JSON_COMPACT | JSON_SORT_KEYS);
	/* A fingerprint too long to keep is left out, not cut. */
	if (text && strlen(text) < sizeof(res->peer_host))
		strcpy(res->peer_host, text);
	free(text);
}

/* A string field of the peer's fingerprint into @buf ("" when none). */
char *jr_peer_host_field(const struct ipc_result *res, const char *key,
			 char *buf, size_t len)
{
	json_t *h =
		res->peer_host[0] ? json_loads(res->peer_host, 0, NULL) : NULL;
	const char *s = json_string_value(json_object_get(h, key));

	snprintf(buf, len, "%s", s ? s : "");
	json_decref(h);
	return buf;
}

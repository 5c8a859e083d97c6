/* SPDX-License-Identifier: MIT */
/*
 * Numbers with units, both ways: what people type (sizes, counts, times,
 * rates) read by one grammar, and what tables print, from one table of
 * units per kind, so every option, --link item and column follows the same
 * rules.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ipcperf/base.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/*
 * One unit of a kind, in increasing order.  The parser takes any of
 * @names ('|' between them, compared without case; "" is a number
 * without unit); the formatter writes @show after the number; messages
 * write limits with @label.  A NULL member: not used that way.
 */
struct unit {
	const char *names;
	const char *show;
	const char *label;
	double mult; /* the unit in the kind's base unit */
};

struct kind {
	const char *what; /* "size", in messages */
	const struct unit *u;
	size_t n;
	bool fraction;	  /* decimals are taken: "1.5ms" */
	const char *hint; /* the units, for an unknown one */
	const char *res;  /* the smallest step, for a value below it */
	double step;	  /* formatter: 1000 or 1024 between shown units */
	bool trim;	  /* formatter: "4 KiB", not "4.00 KiB", when exact */
};

static const struct unit size_units[] = {
	{"|b", " B", "", 1},
	{"k|kb|kib", " KiB", "k", 1024.0},
	{"m|mb|mib", " MiB", "M", 1048576.0},
	{"g|gb|gib", " GiB", "G", 1073741824.0},
	{NULL, " TiB", NULL, 1099511627776.0},
	{NULL, " PiB", NULL, 1125899906842624.0},
	{NULL, " EiB", NULL, 1152921504606846976.0},
};

static const struct unit count_units[] = {
	{"", NULL, "", 1},
	{"k", NULL, "k", 1e3},
	{"m", NULL, "M", 1e6},
	{"g", NULL, "G", 1e9},
};

/* µ is U+00B5 (micro sign) or U+03BC (Greek mu): they look the same. */
static const struct unit time_units[] = {
	{"ns", " ns", "ns", 1},	     {"us|\u00b5s|\u03bcs", " µs", "us", 1e3},
	{"ms", " ms", "ms", 1e6},    {"s|", " s", "s", 1e9},
	{"m|min", NULL, NULL, 60e9}, {"h", NULL, "h", 3600e9},
};

static const struct unit bitrate_units[] = {
	{"|bit", NULL, "bit", 1},
	{"kbit", NULL, "kbit", 1e3},
	{"mbit", NULL, "mbit", 1e6},
	{"gbit", NULL, "gbit", 1e9},
};

static const struct unit percent_units[] = {
	{"%", NULL, "%", 1e4},
};

/* Where the option itself says it is a percentage: "2" is 2% too. */
static const struct unit pct_units[] = {
	{"|%", NULL, "%", 1e4},
};

/* Only printed: messages or bytes per second. */
static const struct unit rate_units[] = {
	{NULL, "/s", NULL, 1},	    {NULL, " k/s", NULL, 1e3},
	{NULL, " M/s", NULL, 1e6},  {NULL, " G/s", NULL, 1e9},
	{NULL, " T/s", NULL, 1e12}, {NULL, " P/s", NULL, 1e15},
};

static const struct unit bps_units[] = {
	{NULL, " B/s", NULL, 1},
	{NULL, " KiB/s", NULL, 1024.0},
	{NULL, " MiB/s", NULL, 1048576.0},
	{NULL, " GiB/s", NULL, 1073741824.0},
	{NULL, " TiB/s", NULL, 1099511627776.0},
	{NULL, " PiB/s", NULL, 1125899906842624.0},
};

/* Indexed by enum ipc_unit_kind. */
static const struct kind kinds[] = {
	[IPC_UNIT_SIZE] = {"size", size_units, NELEM(size_units), false,
			   "use k, M or G", "1 byte", 1024, true},
	[IPC_UNIT_COUNT] = {"count", count_units, NELEM(count_units), false,
			    "use k, M or G", "1", 1000, false},
	[IPC_UNIT_TIME] = {"time", time_units, NELEM(time_units), true,
			   "use ns, us, ms, s, m or h", "1ns", 1000, false},
	[IPC_UNIT_BITRATE] = {"rate", bitrate_units, NELEM(bitrate_units), true,
			      "use bit, kbit, mbit or gbit", "1bit", 1000,
			      false},
	[IPC_UNIT_PERCENT] = {"percentage", percent_units, NELEM(percent_units),
			      true, "write it with %, such as 1%", "0.0001%",
			      1000, false},
	[IPC_UNIT_PCT] = {"percentage", pct_units, NELEM(pct_units), true,
			  "such as 2 or 2%", "0.0001%", 1000, false},
};

static const struct kind rate_kind = {
	.what = "rate", .u = rate_units, .n = NELEM(rate_units), .step = 1000};
static const struct kind bps_kind = {
	.what = "rate", .u = bps_units, .n = NELEM(bps_units), .step = 1024};

/* ---- parsing --------------------------------------------------------- */

/* Is @suf (@len bytes) one of the '|'-separated @names, without case? */
static bool name_is(const char *names, const char *suf, size_t len)
{
	const char *p = names, *bar;
	size_t n;

	for (;;) {
		bar = strchr(p, '|');
		n = bar ? (size_t)(bar - p) : strlen(p);
		if (n == len && !strncasecmp(p, suf, len))
			return true;
		if (!bar)
			return false;
		p = bar + 1;
	}
}

static const struct unit *unit_find(const struct kind *k, const char *suf,
				    size_t len)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->u[i].names && name_is(k->u[i].names, suf, len))
			return &k->u[i];
	return NULL;
}

/*
 * @v written with the largest unit that divides it exactly, as it would be
 * typed: "1G", "60s", "24h", "0".
 */
static void label(const struct kind *k, uint64_t v, char *buf, size_t len)
{
	const struct unit *best = NULL;

	for (size_t i = 0; i < k->n; i++) {
		uint64_t m = (uint64_t)k->u[i].mult;

		if (k->u[i].label && m && v >= m && v % m == 0)
			best = &k->u[i];
	}
	if (!best)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(buf, len, "%llu%s",
			 (unsigned long long)(v / (uint64_t)best->mult),
			 best->label);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/*
 * The number in @s (@len bytes, not NUL-terminated) into *out, or -EINVAL
 * with the reason alone in @why ("negative", "must be at most 1G").
 */
static int number(const struct kind *k, const char *s, size_t len, uint64_t min,
		  uint64_t max, uint64_t *out, char *why, size_t why_len)
{
	const struct unit *u;
	char tok[48], lim[32];
	size_t i = 0, digits_end;
	bool frac = false, nonzero = false;
	uint64_t v;

	if (len == 0) {
		snprintf(why, why_len, "empty");
		return -EINVAL;
	}
	for (size_t j = 0; j < len; j++)
		if (is_space(s[j])) {
			snprintf(why, why_len, "a space is not allowed");
			return -EINVAL;
		}
	if (s[0] == '-' || s[0] == '+') {
		snprintf(why, why_len, "%s",
			 s[0] == '-' ? "negative" : "a sign is not allowed");
		return -EINVAL;
	}
	if (len > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		snprintf(why, why_len,
			 "hexadecimal is not taken (write it in decimal)");
		return -EINVAL;
	}
	while (i < len && is_digit(s[i]))
		nonzero |= s[i++] != '0';
	digits_end = i;
	if (i < len && s[i] == '.' && i > 0) {
		if (i + 1 >= len || !is_digit(s[i + 1]))
			goto nan;
		for (i++; i < len && is_digit(s[i]); i++)
			nonzero |= s[i] != '0';
		frac = true;
	}
	if (digits_end == 0)
		goto nan;
	u = unit_find(k, s + i, len - i);
	if (!u && i == len) {
		snprintf(why, why_len, "a unit is needed (%s)", k->hint);
		return -EINVAL;
	}
	if (!u) {
		snprintf(why, why_len, "unknown unit '%.*s' (%s)",
			 (int)(len - i), s + i, k->hint);
		return -EINVAL;
	}
	if (frac && !k->fraction) {
		snprintf(why, why_len, "a whole number is needed");
		return -EINVAL;
	}
	if (i >= sizeof(tok))
		goto too_large;
	memcpy(tok, s, i);
	tok[i] = '\0';
	if (!frac) {
		uint64_t m = (uint64_t)u->mult;

		errno = 0;
		v = strtoull(tok, NULL, 10);
		if (errno || v > UINT64_MAX / m)
			goto too_large;
		v *= m;
	} else {
		double x = strtod(tok, NULL) * u->mult;

		if (!(x < 18446744073709549568.0)) /* the largest below 2^64 */
			goto too_large;
		v = (uint64_t)(x + 0.5);
	}
	if (v == 0 && nonzero) {
		snprintf(why, why_len, "below the resolution of %s", k->res);
		return -EINVAL;
	}
	if (v > max)
		goto too_large;
	if (v < min) {
		label(k, min, lim, sizeof(lim));
		if (min == 1)
			snprintf(why, why_len, "must be more than 0");
		else
			snprintf(why, why_len, "must be at least %s", lim);
		return -EINVAL;
	}
	*out = v;
	return 0;
nan:
	snprintf(why, why_len, "not a number");
	return -EINVAL;
too_large:
	label(k, max, lim, sizeof(lim));
	snprintf(why, why_len, "must be at most %s", lim);
	return -EINVAL;
}

int ipc_units_parse(enum ipc_unit_kind kind, const char *s, uint64_t min,
		    uint64_t max, uint64_t *out, char *err, size_t err_len)
{
	const struct kind *k = &kinds[kind];
	char why[128];

	if (!number(k, s, strlen(s), min, max, out, why, sizeof(why)))
		return 0;
	snprintf(err, err_len, "bad %s '%.60s': %s", k->what, s, why);
	return -EINVAL;
}

void ipc_u64_list_free(struct ipc_u64_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static int list_add(struct ipc_u64_list *l, uint64_t v, const char *whole,
		    char *err, size_t err_len)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] == v)
			return 0;
	if (l->n == IPC_UNITS_LIST_MAX) {
		snprintf(err, err_len, "list '%.60s' has more than %d values",
			 whole, IPC_UNITS_LIST_MAX);
		return -EINVAL;
	}
	if (l->n % 64 == 0) {
		uint64_t *n = realloc(l->v, (l->n + 64) * sizeof(*n));

		if (!n) {
			snprintf(err, err_len, "out of memory");
			return -ENOMEM;
		}
		l->v = n;
	}
	l->v[l->n++] = v;
	return 0;
}

/* ":x4" or ":+10" of a range: *mul says which, *step the number. */
static int range_step(const struct kind *k, const char *st, size_t slen,
		      uint64_t max, bool *mul, uint64_t *step, const char *elem,
		      size_t elen, char *err, size_t err_len)
{
	char why[128];

	if (slen < 1 || (st[0] != 'x' && st[0] != '+')) {
		snprintf(err, err_len,
			 "bad step '%.*s' in '%.*s': use :xFACTOR or :+STEP",
			 (int)slen, st, (int)elen, elem);
		return -EINVAL;
	}
	*mul = st[0] == 'x';
	if (*mul ? number(&kinds[IPC_UNIT_COUNT], st + 1, slen - 1, 2,
			  UINT64_MAX, step, why, sizeof(why))
		 : number(k, st + 1, slen - 1, 1, max, step, why,
			  sizeof(why))) {
		snprintf(err, err_len, "bad %s '%.*s' in '%.*s': %s",
			 *mul ? "factor" : "step", (int)slen - 1, st + 1,
			 (int)elen, elem, why);
		return -EINVAL;
	}
	return 0;
}

/* One element of a list: a value or a range with an optional step. */
static int list_elem(const struct kind *k, const char *s, size_t len,
		     uint64_t min, uint64_t max, const char *whole,
		     struct ipc_u64_list *out, char *err, size_t err_len)
{
	const char *dots = NULL, *colon, *end = s + len;
	uint64_t a, b, step = 2, v;
	bool mul = true;
	char why[128];
	int e;

	for (size_t i = 0; i + 1 < len; i++)
		if (s[i] == '.' && s[i + 1] == '.') {
			dots = s + i;
			break;
		}
	if (!dots) {
		if (number(k, s, len, min, max, &v, why, sizeof(why))) {
			snprintf(err, err_len, "bad %s '%.*s'%s%.60s%s: %s",
				 k->what, (int)len, s,
				 len == strlen(whole) ? "" : " in '",
				 len == strlen(whole) ? "" : whole,
				 len == strlen(whole) ? "" : "'", why);
			return -EINVAL;
		}
		return list_add(out, v, whole, err, err_len);
	}
	colon = memchr(dots, ':', (size_t)(end - dots));
	if (number(k, s, (size_t)(dots - s), min, max, &a, why, sizeof(why)) ||
	    number(k, dots + 2, (size_t)((colon ? colon : end) - (dots + 2)),
		   min, max, &b, why, sizeof(why))) {
		snprintf(err, err_len, "bad range '%.*s': %s", (int)len, s,
			 why);
		return -EINVAL;
	}
	if (colon && range_step(k, colon + 1, (size_t)(end - colon - 1), max,
				&mul, &step, s, len, err, err_len))
		return -EINVAL;
	if (a > b) {
		snprintf(err, err_len, "bad range '%.*s': %llu is above %llu",
			 (int)len, s, (unsigned long long)a,
			 (unsigned long long)b);
		return -EINVAL;
	}
	v = a;
	if (mul && v == 0) {
		e = list_add(out, 0, whole, err, err_len);
		if (e)
			return e;
		v = 1;
	}
	while (v <= b) {
		e = list_add(out, v, whole, err, err_len);
		if (e)
			return e;
		if (mul ? v > b / step : step > b - v)
			break;
		v = mul ? v * step : v + step;
	}
	return list_add(out, b, whole, err, err_len); /* the end, always */
}

int ipc_units_parse_list(enum ipc_unit_kind kind, const char *s, uint64_t min,
			 uint64_t max, struct ipc_u64_list *out, char *err,
			 size_t err_len)
{
	const struct kind *k = &kinds[kind];
	const char *p = s, *comma;
	int e = 0;

	out->v = NULL;
	out->n = 0;
	if (!*s) {
		snprintf(err, err_len, "empty %s list", k->what);
		return -EINVAL;
	}
	for (;;) {
		comma = strchr(p, ',');
		e = list_elem(k, p, comma ? (size_t)(comma - p) : strlen(p),
			      min, max, s, out, err, err_len);
		if (e || !comma)
			break;
		p = comma + 1;
	}
	if (e)
		ipc_u64_list_free(out);
	return e;
}

/* ---- formatting ------------------------------------------------------ */

/*
 * Print @v (0 <= v) with three significant digits into @num and return the
 * value as printed.  printf does the rounding, and the number of decimals
 * is chosen again when rounding carried into another digit: 9.996 prints
 * as "10.0", not "10.00".
 */
static double sig3(char *num, size_t len, double v)
{
	int d = v < 10 ? 2 : v < 100 ? 1 : 0;
	double r;

	for (;;) {
		snprintf(num, len, "%.*f", d, v);
		r = strtod(num, NULL);
		if (d == 0 || r < (d == 2 ? 10 : 100))
			return r;
		d--;
	}
}

static void trim_zeros(char *num)
{
	char *end;

	if (!strchr(num, '.'))
		return;
	end = num + strlen(num);
	while (end > num && end[-1] == '0')
		*--end = '\0';
	if (end > num && end[-1] == '.')
		*--end = '\0';
}

/*
 * @v in the kind's shown units: the first whose rounded value stays below
 * the next step, or the last one.
 */
static char *scaled(double v, const struct kind *k, char *buf, size_t len)
{
	const struct unit *u = NULL;
	char num[64];
	double r = 0;

	if (!len)
		return buf;
	if (!isfinite(v) || v < 0) {
		snprintf(buf, len, "-");
		return buf;
	}
	for (size_t i = 0; i < k->n; i++) {
		if (!k->u[i].show)
			continue;
		if (u)
			v /= k->step;
		u = &k->u[i];
		r = v == 0 ? 0 : sig3(num, sizeof(num), v);
		if (v == 0 || r < k->step)
			break;
	}
	if (v == 0) {
		snprintf(buf, len, "0%s", u->show);
		return buf;
	}
	/*
	 * Sizes print as integers when exact ("4 KiB", "1.5 MiB") and keep
	 * their zeros when rounded, so 1048575 B reads "1.00 MiB".
	 */
	if (k->trim && r == v)
		trim_zeros(num);
	snprintf(buf, len, "%s%s", num, u->show);
	return buf;
}

char *ipc_fmt_ns(double ns, char *buf, size_t len)
{
	/*
	 * Whole nanoseconds are the clock's resolution: "812 ns" and "5 ns",
	 * not "5.00 ns"; a fraction (a mean) keeps three digits, "12.3 ns".
	 */
	if (isfinite(ns) && ns >= 0 && ns < 999.5 && ns == floor(ns)) {
		if (len)
			snprintf(buf, len, "%.0f ns", ns);
		return buf;
	}
	return scaled(ns, &kinds[IPC_UNIT_TIME], buf, len);
}

char *ipc_fmt_bytes(double bytes, char *buf, size_t len)
{
	return scaled(bytes, &kinds[IPC_UNIT_SIZE], buf, len);
}

char *ipc_fmt_rate(double per_s, char *buf, size_t len)
{
	return scaled(per_s, &rate_kind, buf, len);
}

char *ipc_fmt_bps(double bytes_per_s, char *buf, size_t len)
{
	return scaled(bytes_per_s, &bps_kind, buf, len);
}

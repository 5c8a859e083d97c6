/*
 * The one place where sizes, counts and durations typed on the command line
 * become numbers, so every option accepts the same suffixes and says the
 * same thing about a bad value.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

void u64_list_free(struct u64_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/*
 * One number with an optional suffix; @base is 1024 for sizes and 1000 for
 * counts.  @what names the kind of value in the error ("size", "count").
 */
static int parse_scaled(const char *s, size_t len, uint64_t base, uint64_t max,
			const char *what, uint64_t *out, char *err,
			size_t err_len)
{
	char tok[64], *end;
	unsigned long long v;
	uint64_t mul = 1;

	if (len == 0 || len >= sizeof(tok)) {
		snprintf(err, err_len, "empty or overlong %s '%.*s'", what,
			 (int)(len > 40 ? 40 : len), s);
		return -EINVAL;
	}
	memcpy(tok, s, len);
	tok[len] = '\0';
	if (tok[0] < '0' || tok[0] > '9') {
		snprintf(err, err_len, "bad %s '%s': not a number", what, tok);
		return -EINVAL;
	}
	errno = 0;
	v = strtoull(tok, &end, 10);
	if (errno) {
		snprintf(err, err_len, "bad %s '%s': too large", what, tok);
		return -EINVAL;
	}
	if (*end) {
		switch (*end) {
		case 'k':
		case 'K':
			mul = base;
			break;
		case 'm':
		case 'M':
			mul = base * base;
			break;
		case 'g':
		case 'G':
			mul = base * base * base;
			break;
		default:
			snprintf(err, err_len,
				 "bad %s '%s': unknown suffix '%s' (use k, M "
				 "or G)",
				 what, tok, end);
			return -EINVAL;
		}
		/* Tolerate "4kB", "4KiB", "1MB" as people write them. */
		if (end[1] && strcmp(end + 1, "B") && strcmp(end + 1, "iB") &&
		    strcmp(end + 1, "b")) {
			snprintf(err, err_len,
				 "bad %s '%s': unknown suffix '%s' (use k, M "
				 "or G)",
				 what, tok, end);
			return -EINVAL;
		}
	}
	if (v > max / mul) {
		snprintf(err, err_len,
			 "bad %s '%s': larger than the limit "
			 "of %llu",
			 what, tok, (unsigned long long)max);
		return -EINVAL;
	}
	*out = v * mul;
	return 0;
}

int parse_size(const char *s, uint64_t *out, char *err, size_t err_len)
{
	return parse_scaled(s, strlen(s), 1024, UNITS_SIZE_MAX, "size", out,
			    err, err_len);
}

int parse_count(const char *s, uint64_t *out, char *err, size_t err_len)
{
	int e = parse_scaled(s, strlen(s), 1000, UINT64_MAX / 2, "count", out,
			     err, err_len);

	if (!e && *out == 0) {
		snprintf(err, err_len, "bad count '%s': must be at least 1", s);
		return -EINVAL;
	}
	return e;
}

static int list_add(struct u64_list *l, uint64_t v, const char *whole,
		    char *err, size_t err_len)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] == v)
			return 0;
	if (l->n == UNITS_LIST_MAX) {
		snprintf(err, err_len, "list '%.60s' has more than %d values",
			 whole, UNITS_LIST_MAX);
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

/* One list element: a value or a range with an optional :xF / :+N step. */
static int parse_elem(const char *s, size_t len, uint64_t base, uint64_t max,
		      const char *what, const char *whole, struct u64_list *out,
		      char *err, size_t err_len)
{
	const char *dots = NULL, *colon = NULL;
	uint64_t a, b, step = 2, v;
	bool mul = true;
	int e;

	for (size_t i = 0; i + 1 < len; i++)
		if (s[i] == '.' && s[i + 1] == '.') {
			dots = s + i;
			break;
		}
	if (!dots) {
		e = parse_scaled(s, len, base, max, what, &v, err, err_len);
		return e ? e : list_add(out, v, whole, err, err_len);
	}
	colon = memchr(dots, ':', len - (size_t)(dots - s));
	e = parse_scaled(s, (size_t)(dots - s), base, max, what, &a, err,
			 err_len);
	if (e)
		return e;
	e = parse_scaled(dots + 2,
			 (size_t)((colon ? colon : s + len) - (dots + 2)), base,
			 max, what, &b, err, err_len);
	if (e)
		return e;
	if (colon) {
		const char *st = colon + 1;
		size_t slen = len - (size_t)(st - s);
		char *end;
		unsigned long long k;

		if (slen < 2 || (st[0] != 'x' && st[0] != '+')) {
			snprintf(err, err_len,
				 "bad step '%.*s' in '%.*s': use :xFACTOR or "
				 ":+STEP",
				 (int)slen, st, (int)len, s);
			return -EINVAL;
		}
		mul = st[0] == 'x';
		errno = 0;
		k = strtoull(st + 1, &end, 10);
		if (errno || end != s + len || k < (mul ? 2u : 1u)) {
			snprintf(err, err_len, "bad step '%.*s' in '%.*s': %s",
				 (int)slen, st, (int)len, s,
				 mul ? "the factor must be a whole number of "
				       "at least 2"
				     : "the step must be a whole number of at "
				       "least 1");
			return -EINVAL;
		}
		step = k;
	}
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

static int parse_list(const char *s, uint64_t base, uint64_t max, uint64_t min,
		      const char *what, struct u64_list *out, char *err,
		      size_t err_len)
{
	const char *p = s, *comma;
	int e = 0;

	out->v = NULL;
	out->n = 0;
	if (!*s) {
		snprintf(err, err_len, "empty %s list", what);
		return -EINVAL;
	}
	for (;;) {
		comma = strchr(p, ',');
		e = parse_elem(p, comma ? (size_t)(comma - p) : strlen(p), base,
			       max, what, s, out, err, err_len);
		if (e)
			break;
		if (!comma)
			break;
		p = comma + 1;
	}
	for (size_t i = 0; !e && i < out->n; i++)
		if (out->v[i] < min) {
			snprintf(err, err_len,
				 "bad %s %llu in '%s': must be "
				 "at least %llu",
				 what, (unsigned long long)out->v[i], s,
				 (unsigned long long)min);
			e = -EINVAL;
		}
	if (e)
		u64_list_free(out);
	return e;
}

int parse_size_list(const char *s, struct u64_list *out, char *err,
		    size_t err_len)
{
	return parse_list(s, 1024, UNITS_SIZE_MAX, 0, "size", out, err,
			  err_len);
}

int parse_count_list(const char *s, struct u64_list *out, char *err,
		     size_t err_len)
{
	return parse_list(s, 1000, UINT64_MAX / 2, 1, "count", out, err,
			  err_len);
}

int parse_duration(const char *s, uint64_t *ns, char *err, size_t err_len)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {
		{"", 1e9},   {"s", 1e9},    {"ms", 1e6},
		{"us", 1e3}, {"µs", 1e3},   {"ns", 1},
		{"m", 60e9}, {"min", 60e9}, {"h", 3600e9},
	};
	char *end;
	double v;

	errno = 0;
	if (!*s || !((*s >= '0' && *s <= '9') || *s == '.'))
		goto bad;
	v = strtod(s, &end);
	if (errno || !isfinite(v))
		goto bad;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		v *= units[i].ns;
		if (v < 1 || v > 86400e9) {
			snprintf(err, err_len,
				 "bad duration '%s': must be more than 0 and "
				 "at most 24 hours",
				 s);
			return -EINVAL;
		}
		*ns = (uint64_t)llround(v);
		return 0;
	}
	snprintf(err, err_len,
		 "bad duration '%s': unknown unit '%s' (use s, ms, us, ns, m "
		 "or h)",
		 s, end);
	return -EINVAL;
bad:
	snprintf(err, err_len, "bad duration '%s': not a number", s);
	return -EINVAL;
}

/*
 * Human units for the table: times, sizes and rates scaled to the unit that
 * leaves three significant digits.  JSON and CSV never come through here;
 * they carry raw integers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcperf/report.h"

/* A scale: unit names from the smallest up, and the step between them. */
struct scale {
	const char *const *unit;
	size_t nunit;
	double step;  /* 1000 or 1024 */
	double limit; /* a rounded value at or above this moves up a unit */
	bool trim;    /* drop trailing zeros when exact ("1.5 MiB") */
};

static const char *const time_units[] = {" ns", " µs", " ms", " s"};
static const char *const byte_units[] = {" B",	 " KiB", " MiB", " GiB",
					 " TiB", " PiB", " EiB"};
static const char *const rate_units[] = {"/s",	 " k/s", " M/s",
					 " G/s", " T/s", " P/s"};
static const char *const bps_units[] = {" B/s",	  " KiB/s", " MiB/s",
					" GiB/s", " TiB/s", " PiB/s"};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

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

static char *scaled(double v, const struct scale *sc, char *buf, size_t len)
{
	char num[64];
	size_t i = 0;
	double r;

	if (!len)
		return buf;
	if (!isfinite(v) || v < 0) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (v == 0) {
		snprintf(buf, len, "0%s", sc->unit[0]);
		return buf;
	}
	for (;;) {
		r = sig3(num, sizeof(num), v);
		if (r < sc->limit || i + 1 == sc->nunit)
			break;
		v /= sc->step;
		i++;
	}
	/*
	 * Sizes print as integers when exact ("4 KiB", "1.5 MiB") and keep
	 * their zeros when rounded, so 1048575 B reads "1.00 MiB".
	 */
	if (sc->trim && r == v)
		trim_zeros(num);
	snprintf(buf, len, "%s%s", num, sc->unit[i]);
	return buf;
}

char *ipc_fmt_ns(double ns, char *buf, size_t len)
{
	static const struct scale sc = {time_units, NELEM(time_units), 1000,
					1000, false};

	/*
	 * Whole nanoseconds are the clock's resolution: "812 ns" and "5 ns",
	 * not "5.00 ns"; a fraction (a mean) keeps three digits, "12.3 ns".
	 */
	if (isfinite(ns) && ns >= 0 && ns < 999.5 && ns == floor(ns)) {
		if (len)
			snprintf(buf, len, "%.0f ns", ns);
		return buf;
	}
	return scaled(ns, &sc, buf, len);
}

char *ipc_fmt_bytes(double bytes, char *buf, size_t len)
{
	static const struct scale sc = {byte_units, NELEM(byte_units), 1024,
					1024, true};

	return scaled(bytes, &sc, buf, len);
}

char *ipc_fmt_rate(double per_s, char *buf, size_t len)
{
	static const struct scale sc = {rate_units, NELEM(rate_units), 1000,
					1000, false};

	return scaled(per_s, &sc, buf, len);
}

char *ipc_fmt_bps(double bytes_per_s, char *buf, size_t len)
{
	static const struct scale sc = {bps_units, NELEM(bps_units), 1024, 1024,
					false};

	return scaled(bytes_per_s, &sc, buf, len);
}

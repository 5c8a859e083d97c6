/* SPDX-License-Identifier: MIT */
/*
 * The SVG charts: escaping of hostile strings, scales and ticks, and each
 * chart's marks (how many, where) from arrays made up here.  With
 * "--gallery FILE" it also writes every chart kind and a table into one
 * HTML page of made-up data, for the browser test (tests/e2e/html.sh).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "report/html_page.h"
#include "report/svg.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const char hostile[] = "<script>alert(\"x\")</script>&'";

/* Plain nanoseconds with a unit, enough for these checks. */
static char *fmt_ns(double v, char *buf, size_t len)
{
	if (v >= 1e6)
		snprintf(buf, len, "%.3g ms", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, len, "%.3g \xc2\xb5s", v / 1e3);
	else
		snprintf(buf, len, "%.0f ns", v);
	return buf;
}

static char *fmt_bytes(double v, char *buf, size_t len)
{
	if (v >= 1024)
		snprintf(buf, len, "%.0f KiB", v / 1024);
	else
		snprintf(buf, len, "%.0f B", v);
	return buf;
}

static char *fmt_s(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%.3g s", v);
	return buf;
}

/* A chart drawn into memory: its text, or NULL with *rc its error. */
struct drawn {
	char *buf;
	size_t len;
	FILE *f;
};

static FILE *draw_begin(struct drawn *d)
{
	d->buf = NULL;
	d->len = 0;
	d->f = open_memstream(&d->buf, &d->len);
	return d->f;
}

static char *draw_end(struct drawn *d)
{
	fclose(d->f);
	return d->buf;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	while (hay && (hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

/* The i-th value of attribute @attr (e.g. "cx=\"") after "class=\"mark". */
static double mark_attr(const char *svg, size_t i, const char *attr)
{
	const char *p = svg, *a;

	for (;;) {
		p = strstr(p, "class=\"mark");
		if (!p)
			return NAN;
		if (!i--)
			break;
		p++;
	}
	a = strstr(p, attr);
	return a ? strtod(a + strlen(attr), NULL) : NAN;
}

static char *escaped(const char *s)
{
	struct drawn d;

	draw_begin(&d);
	svg_escape(d.f, s);
	return draw_end(&d);
}

static void test_escape(void)
{
	char *e;

	e = escaped(hostile);
	is_str(e, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;",
	       "markup characters become entities");
	free(e);
	e = escaped("4.56 \xc2\xb5s \xe2\x80\x94 ok");
	is_str(e, "4.56 \xc2\xb5s \xe2\x80\x94 ok", "UTF-8 is kept as it is");
	free(e);
	e = escaped("a\x01"
		    "b\x7f"
		    "c");
	is_str(e,
	       "a\xef\xbf\xbd"
	       "b\xef\xbf\xbd"
	       "c",
	       "control characters become U+FFFD");
	free(e);
	e = escaped("x\xc0\xafy\xed\xa0\x80z\xff");
	is_str(e,
	       "x\xef\xbf\xbd\xef\xbf\xbdy\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
	       "z\xef\xbf\xbd",
	       "overlong forms, surrogates and stray bytes become U+FFFD");
	free(e);
	e = escaped("cut \xe2\x80");
	is_str(e, "cut \xef\xbf\xbd\xef\xbf\xbd",
	       "a sequence cut short by the end becomes U+FFFD");
	free(e);
	e = escaped(NULL);
	is_str(e, "", "NULL writes nothing");
	free(e);
}

static void test_scales(void)
{
	struct svg_scale q = {SVG_QUANTILE, 0, 4, 0, 400, false};
	struct svg_scale l2 = {SVG_LOG2, 6, 12, 100, 700, false};
	struct svg_scale lin = {SVG_LINEAR, 0, 10, 0, 100, false};
	struct svg_scale lg = {SVG_LOG10, log10(4000), log10(130000),
			       0,	  1,	       false};
	struct svg_scale lgw = {SVG_LOG10, 0, 9, 0, 1, false};
	double t[16];
	size_t n;

	is_near(svg_scale_at(&q, 0.9), 100, 1e-9, "90%% is one decade in");
	is_near(svg_scale_at(&q, 0.99), 200, 1e-9, "99%% two decades");
	is_near(svg_scale_at(&q, 0.999), 300, 1e-9, "99.9%% three");
	is_near(svg_scale_at(&l2, 64), 100, 1e-9, "64 at the left end");
	is_near(svg_scale_at(&l2, 512), 400, 1e-9, "512 half way to 4096");
	ok(svg_scale_at(&l2, 0) == 100, "0 has no place on log2: at r0");
	ok(isnan(svg_transform(SVG_QUANTILE, 1)), "quantile 1 has no place");

	n = svg_ticks(&lin, t, 6);
	ok(n == 6 && t[0] == 0 && t[1] == 2 && t[5] == 10,
	   "linear 0..10: 0, 2, ..., 10 (got %zu)", n);
	n = svg_ticks(&lg, t, 16);
	ok(n == 5 && t[0] == 5000 && t[1] == 10000 && t[2] == 20000 &&
		   t[3] == 50000 && t[4] == 100000,
	   "log10 over 1.5 decades: 5k 10k 20k 50k 100k (got %zu)", n);
	n = svg_ticks(&lgw, t, 5);
	ok(n <= 5 && n >= 3 && t[0] == 1 && t[1] == 100,
	   "log10 over 9 decades, at most 5 ticks: every second decade "
	   "(got %zu: %g %g)",
	   n, t[0], t[1]);
	n = svg_ticks(&q, t, 16);
	ok(n == 5 && t[0] == 0 && fabs(t[1] - 0.9) < 1e-12 &&
		   fabs(t[3] - 0.999) < 1e-12,
	   "quantile ticks 0, 90%%, 99%%, 99.9%%, 99.99%% (got %zu)", n);
	n = svg_ticks(&(struct svg_scale){SVG_LINEAR, 0, 3.73 * (1 << 30), 0, 1,
					  true},
		      t, 6);
	ok(n == 4 && t[1] == 1 << 30 && t[3] == 3.0 * (1 << 30),
	   "binary linear 0..3.73 GiB: 0, 1, 2, 3 GiB (got %zu)", n);
	n = svg_ticks(&(struct svg_scale){SVG_LOG10, 6 * log10(2),
					  32 * log10(2), 0, 1, true},
		      t, 6);
	ok(n >= 4 && n <= 6 && t[0] == 64 && log2(t[1]) == floor(log2(t[1])),
	   "binary log 64 B..4 GiB: powers of two (got %zu: %g %g)", n, t[0],
	   t[1]);
	n = svg_ticks(&l2, t, 16);
	ok(n == 7 && t[0] == 64 && t[6] == 4096, "log2 ticks 64..4096");
}

/* Every mark's @attr within [lo, hi] (inside the chart). */
static bool marks_inside(const char *svg, size_t n, const char *attr, double lo,
			 double hi)
{
	size_t i;
	double v;

	for (i = 0; i < n; i++) {
		v = mark_attr(svg, i, attr);
		if (!(v >= lo && v <= hi))
			return false;
	}
	return true;
}

static void test_spectrum(void)
{
	static const double p[] = {0, 0.5, 0.9, 0.99, 0.999, 1 - 1.0 / 5000};
	static const double a[] = {4300, 4600, 8000, 12600, 31000, 127000};
	static const double b[] = {4100, 4400, 7000, 9000, 20000, 60000};
	static const char *const tips[] = {"min", "p50",   "p90",
					   "p99", "p99.9", "max"};
	struct svg_series s[2] = {{"A", p, a, 6, tips},
				  {hostile, p, b, 6, NULL}};
	struct svg_frame fr = {hostile, "percentile", "latency",
			       NULL,	fmt_ns,	      0,
			       0,	false,	      false};
	double nan6[6] = {NAN, NAN, NAN, NAN, NAN, NAN};
	struct svg_series none = {"none", p, nan6, 6, NULL};
	struct drawn d;
	double x0, x90, x99;
	char *svg;
	int rc;

	draw_begin(&d);
	rc = svg_spectrum(d.f, &fr, s, 2);
	svg = draw_end(&d);
	is_int(rc, "==", 0, "spectrum drawn");
	is_int(count(svg, "class=\"mark"), "==", 12, "a dot per point");
	is_int(count(svg, "<polyline"), "==", 2, "a line per series");
	ok(!strstr(svg, "<script"), "a hostile title and name stay text");
	is_int(count(svg, "&lt;script&gt;"), ">=", 3,
	       "... escaped in title, aria-label and legend");
	ok(strstr(svg, "p99.9, ") == NULL && strstr(svg, "A, p99.9: ") != NULL,
	   "points named by their tips in tooltips");
	x0 = mark_attr(svg, 0, "cx=\"");
	x90 = mark_attr(svg, 2, "cx=\"");
	x99 = mark_attr(svg, 3, "cx=\"");
	is_near(x99 - x90, x90 - x0, 0.01,
		"0 to 90%% as far as 90%% to 99%% (log 1/(1-p) axis)");
	ok(marks_inside(svg, 12, "cx=\"", 0, 480) &&
		   marks_inside(svg, 12, "cy=\"", 0, 300),
	   "every dot inside the chart");
	ok(strstr(svg, ">99%</text>") && strstr(svg, ">99.9%</text>"),
	   "x ticks labelled 99%% and 99.9%%");
	free(svg);

	draw_begin(&d);
	rc = svg_spectrum(d.f, &fr, &none, 1);
	svg = draw_end(&d);
	is_int(rc, "==", -ENODATA, "nothing to draw: -ENODATA");
	is_int(strlen(svg), "==", 0, "... and nothing written");
	free(svg);
}

static void test_strip(void)
{
	static const double two[12] = {10.1e3, 10.2e3, 10.0e3, 19.8e3,
				       20.1e3, 10.3e3, 20.0e3, 19.9e3,
				       10.1e3, 20.2e3, 10.2e3, 19.7e3};
	static const double one[6] = {5000, 5100, 5050, 4990, 5020, 9000};
	static const bool far[6] = {false, false, false, false, false, true};
	struct svg_strip_row rows[2] = {
		{"rr fifo (bimodal)", two, 12, 15e3, 10.1e3, 19.9e3, 15e3,
		 NULL},
		{hostile, one, 6, 5035, NAN, NAN, NAN, far},
	};
	struct svg_frame fr = {"runs", "p50 latency", NULL, fmt_ns, NULL, 0,
			       0,      false,	      false};
	struct drawn d;
	char *svg;

	draw_begin(&d);
	is_int(svg_strip(d.f, &fr, rows, 2), "==", 0, "strip drawn");
	svg = draw_end(&d);
	is_int(count(svg, "class=\"mark"), "==", 18, "a dot per run");
	is_int(count(svg, "class=\"mark outlier"), "==", 1,
	       "the outlier drawn as one");
	is_int(count(svg, "class=\"interval"), "==", 1,
	       "an interval band only where there is one");
	is_int(count(svg, "class=\"estimate"), "==", 2, "an estimate per row");
	is_int(count(svg, "fill=\"#e69f00\""), "==", 6,
	       "the upper group of the bimodal row in its own colour");
	ok(!strstr(svg, "<script"), "a hostile row label stays text");
	free(svg);
}

static void test_lines(void)
{
	static const double x[] = {0, 64, 128, 256};
	static const double y1[] = {1000, 2000, 4000, 8000};
	static const double y2[] = {1500, NAN, 6000, 12000};
	struct svg_series s[2] = {{"count=100", x, y1, 4, NULL},
				  {"count=1000", x, y2, 4, NULL}};
	struct svg_frame fr = {"stream fifo",
			       "message size",
			       "time per batch",
			       fmt_bytes,
			       fmt_ns,
			       0,
			       0,
			       false,
			       false};
	struct drawn d;
	double c0, c64, c128;
	char *svg;

	draw_begin(&d);
	is_int(svg_lines(d.f, &fr, s, 2), "==", 0, "lines drawn");
	svg = draw_end(&d);
	is_int(count(svg, "class=\"mark"), "==", 7,
	       "a dot per measured point, none for NaN");
	is_int(count(svg, "<polyline"), "==", 3,
	       "the second line breaks at its gap");
	c0 = mark_attr(svg, 0, "cx=\"");
	c64 = mark_attr(svg, 1, "cx=\"");
	c128 = mark_attr(svg, 2, "cx=\"");
	ok(c0 < c64, "size 0 drawn left of 64 (%.1f < %.1f)", c0, c64);
	is_near(c128 - c64, c64 - c0, 0.01, "one log2 step from 0 to 64");
	ok(strstr(svg, ">0 B</text>") && strstr(svg, ">64 B</text>"),
	   "ticks at the sizes measured");
	free(svg);
}

static void test_heatmap(void)
{
	static const char *const lab[] = {"0", "1", "2", "4"};
	double v[16];
	struct svg_heat h = {lab, lab, 4, 4, v};
	struct svg_frame fr = {"rr tcp", "response size", "request size",
			       NULL,	 fmt_ns,	  0,
			       0,	 false,		  false};
	struct drawn d;
	char *svg;
	size_t i;

	for (i = 0; i < 16; i++)
		v[i] = 1000 * (double)(i + 1);
	v[5] = NAN;
	draw_begin(&d);
	is_int(svg_heatmap(d.f, &fr, &h), "==", 0, "heat map drawn");
	svg = draw_end(&d);
	is_int(count(svg, "class=\"mark"), "==", 15, "a cell per value");
	is_int(count(svg, "class=\"missing"), "==", 1, "a grey cell for NaN");
	ok(strstr(svg, "fill=\"#440154\" stroke=\"#fff\"><title>request size "
		       "0, response "
		       "size 0: 1 \xc2\xb5s") != NULL,
	   "the smallest value in the darkest colour, with its tooltip");
	ok(strstr(svg, "fill=\"#fde725\" stroke=\"#fff\"><title>request size "
		       "4, response "
		       "size 4: 16 \xc2\xb5s") != NULL,
	   "the largest in the lightest");
	free(svg);
}

/*
 * One link: the legend's width was measured over two series, the second
 * one uninitialised stack (fuzz_json found a use after free through it;
 * valgrind, make valgrind, sees the read of uninitialised memory).
 */
static void test_bars_one_series(void)
{
	static const char *const traces[] = {"a.log", "b.log"};
	static const char *const links[] = {"wan"};
	static const double v[] = {0.5, 0.7};
	struct svg_bars b = {traces, 2, links, 1, v, NULL, NULL};
	struct svg_frame fr = {"replay", "trace", "time per replay",
			       NULL,	 fmt_s,	  0,
			       0,	 false,	  false};
	struct drawn d;
	char *svg;

	draw_begin(&d);
	is_int(svg_bars(d.f, &fr, &b), "==", 0, "bars of one series drawn");
	svg = draw_end(&d);
	is_int(count(svg, "class=\"mark"), "==", 2, "... a bar per value");
	ok(strstr(svg, ">wan<") != NULL, "... and its legend names the link");
	free(svg);
}

static void test_bars(void)
{
	static const char *const traces[] = {"step.log", hostile};
	static const char *const links[] = {"localhost", "wan", "serial-9600"};
	static const double v[] = {0.01, 0.5, 30, 0.02, NAN, 45};
	static const double lo[] = {0.009, 0.45, 29, NAN, NAN, 44};
	static const double hi[] = {0.011, 0.55, 31, NAN, NAN, 46};
	struct svg_bars b = {traces, 2, links, 3, v, lo, hi};
	struct svg_frame fr = {"replay", "trace", "time per replay",
			       NULL,	 fmt_s,	  0,
			       0,	 false,	  false};
	struct drawn d;
	double y_small, y_big;
	char *svg;

	draw_begin(&d);
	is_int(svg_bars(d.f, &fr, &b), "==", 0, "bars drawn");
	svg = draw_end(&d);
	is_int(count(svg, "class=\"mark"), "==", 5, "a bar per value");
	is_int(count(svg, "class=\"interval"), "==", 4,
	       "whiskers where an interval was given");
	y_small = mark_attr(svg, 0, "y=\"");
	y_big = mark_attr(svg, 2, "y=\"");
	ok(y_big < y_small, "the slower replay's bar is taller");
	ok(!strstr(svg, "<script"), "a hostile trace name stays text");
	free(svg);
}

static void test_forest(void)
{
	struct svg_forest_row rows[] = {
		{"rr tcp", 1.20, 1.12, 1.30, IPC_VERDICT_SLOWER,
		 "1.20x slower"},
		{"rr fifo", 0.80, 0.75, 0.86, IPC_VERDICT_FASTER,
		 "0.80x faster"},
		{"rr pipe", 1.01, 0.97, 1.05, IPC_VERDICT_SAME,
		 "no difference"},
		{hostile, 1.5, NAN, NAN, IPC_VERDICT_UNDECIDED, hostile},
	};
	struct svg_frame fr = {"compare", "ratio B/A", NULL,  NULL, NULL,
			       0,	  0,	       false, false};
	struct drawn d;
	double x_slow, x_fast, x_same;
	char *svg;

	draw_begin(&d);
	is_int(svg_forest(d.f, &fr, rows, 4, 2), "==", 0, "forest drawn");
	svg = draw_end(&d);
	is_int(count(svg, "class=\"mark"), "==", 4, "a mark per case");
	is_int(count(svg, "class=\"interval"), "==", 3,
	       "an interval where there is one");
	is_int(count(svg, "class=\"threshold"), "==", 1, "the threshold band");
	x_slow = mark_attr(svg, 0, "x=\"");
	x_fast = mark_attr(svg, 1, "x=\"");
	x_same = mark_attr(svg, 2, "x=\"");
	ok(x_fast < x_same && x_same < x_slow,
	   "faster left of 1, slower right of it");
	ok(strstr(svg, "class=\"mark slower\"") &&
		   strstr(svg, "class=\"mark faster\""),
	   "verdicts as classes");
	ok(!strstr(svg, "<script"), "hostile label and note stay text");
	free(svg);
}

/* Every chart kind in one page, for the browser test. */
static int gallery(const char *path)
{
	static const double p[] = {0, 0.5, 0.9, 0.99, 0.999, 1 - 1.0 / 5000};
	static const double a[] = {4300, 4600, 8000, 12600, 31000, 127000};
	static const char *const tips[] = {"min", "p50",   "p90",
					   "p99", "p99.9", "max"};
	static const char *const sz[] = {"0",	"1",   "2",   "4",
					 "8",	"16",  "32",  "64",
					 "128", "256", "512", "1 KiB"};
	static const double sizes[] = {64, 128, 256, 512, 1024, 2048, 4096};
	static const char *const traces[] = {"gdb-step.log", "gdb-attach.log",
					     "gdb-bt.log"};
	static const char *const links[] = {"localhost",     "lan-100m",
					    "wifi-g",	     "wan",
					    "serial-115200", "serial-9600"};
	static const double run_v[12] = {10.1e3, 10.2e3, 10.0e3, 19.8e3,
					 20.1e3, 10.3e3, 20.0e3, 19.9e3,
					 10.1e3, 20.2e3, 10.2e3, 19.7e3};
	static const double run_w[8] = {5000, 5100, 5050, 4990,
					5020, 9000, 5010, 5070};
	static const bool far[8] = {0, 0, 0, 0, 0, 1, 0, 0};
	double heat[144], ly[5][7], bars[18];
	struct svg_series spec = {"rr tcp", p, a, 6, tips}, ls[5];
	struct svg_strip_row rows[2] = {
		{"rr fifo (bimodal)", run_v, 12, 15e3, 10.1e3, 19.9e3, 15e3,
		 NULL},
		{hostile, run_w, 8, 5040, 5000, 5070, NAN, far},
	};
	struct svg_heat h = {sz, sz, 12, 12, heat};
	struct svg_bars b = {traces, 3, links, 6, bars, NULL, NULL};
	struct svg_forest_row fo[] = {
		{"rr tcp req=64 resp=1024", 1.20, 1.12, 1.30,
		 IPC_VERDICT_SLOWER, "1.20x [1.12, 1.30] slower"},
		{"rr fifo", 0.80, 0.75, 0.86, IPC_VERDICT_FASTER,
		 "0.80x [0.75, 0.86] faster"},
		{"rr pipe", 1.01, 0.97, 1.05, IPC_VERDICT_SAME,
		 "no difference"},
		{hostile, 1.5, NAN, NAN, IPC_VERDICT_UNDECIDED, hostile},
	};
	static const char *const counts[] = {"count=100", "count=1000",
					     "count=5000", "count=10000",
					     "count=100000"};
	struct svg_frame f_spec = {"percentile spectrum: rr tcp",
				   "percentile",
				   "latency",
				   NULL,
				   fmt_ns,
				   0,
				   0,
				   false,
				   false};
	struct svg_frame f_strip = {
		"per-run p50", "p50 latency", NULL, fmt_ns, NULL, 0, 0,
		false,	       false};
	struct svg_frame f_lines = {"stream fifo: time per batch",
				    "message size",
				    "time per batch",
				    fmt_bytes,
				    fmt_ns,
				    0,
				    0,
				    false,
				    false};
	struct svg_frame f_heat = {"rr tcp: p50 round trip",
				   "response size",
				   "request size",
				   NULL,
				   fmt_ns,
				   0,
				   0,
				   false,
				   false};
	struct svg_frame f_bars = {"replay: time per replay",
				   "trace",
				   "time per replay",
				   NULL,
				   fmt_s,
				   0,
				   0,
				   false,
				   false};
	struct svg_frame f_forest = {"compare: B / A",
				     "ratio of p50 latency",
				     NULL,
				     NULL,
				     NULL,
				     0,
				     0,
				     false,
				     false};
	static const char *const thead[] = {"case", "p50", "flags"};
	static const enum md_align talign[] = {MD_LEFT, MD_RIGHT, MD_LEFT};
	static const char *const tcells[] = {
		"rr tcp", "4.56 \xc2\xb5s", NULL, hostile, "1 ms", hostile};
	size_t i, j;
	FILE *f;

	for (i = 0; i < 12; i++)
		for (j = 0; j < 12; j++)
			heat[i * 12 + j] =
				30000 + 40.0 * (double)(i + j) *
						(double)(1u << (i > j ? i : j));
	for (i = 0; i < 5; i++) {
		for (j = 0; j < 7; j++)
			ly[i][j] = (2000 + sizes[j] * 3) * pow(10, (double)i);
		ls[i] = (struct svg_series){counts[i], sizes, ly[i], 7, NULL};
	}
	for (i = 0; i < 3; i++)
		for (j = 0; j < 6; j++)
			bars[i * 6 + j] =
				0.002 * (double)(i + 1) * pow(6, (double)j);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	html_begin(f, "ipcperf chart gallery (made-up data)");
	fputs("<p>Made-up data, to test that each chart kind renders.</p>\n",
	      f);
	html_table(f, hostile, 3, thead, talign, tcells, 2);
	fputs("<figure id=\"spectrum\">", f);
	svg_spectrum(f, &f_spec, &spec, 1);
	fputs("</figure>\n<figure id=\"strip\">", f);
	svg_strip(f, &f_strip, rows, 2);
	fputs("</figure>\n<figure id=\"lines\">", f);
	svg_lines(f, &f_lines, ls, 5);
	fputs("</figure>\n<figure id=\"heatmap\">", f);
	svg_heatmap(f, &f_heat, &h);
	fputs("</figure>\n<figure id=\"bars\">", f);
	svg_bars(f, &f_bars, &b);
	fputs("</figure>\n<figure id=\"forest\">", f);
	svg_forest(f, &f_forest, fo, NELEM(fo), 2);
	fputs("</figure>\n", f);
	html_end(f);
	return fclose(f) ? -errno : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--gallery")) {
		int rc = gallery(argv[2]);

		if (rc)
			fprintf(stderr, "test_svg: %s: %s\n", argv[2],
				strerror(-rc));
		return rc ? 1 : 0;
	}
	test_escape();
	test_scales();
	test_spectrum();
	test_strip();
	test_lines();
	test_heatmap();
	test_bars();
	test_bars_one_series();
	test_forest();
	return done_testing();
}

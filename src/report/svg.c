/* SPDX-License-Identifier: MIT */
/*
 * The drawing under every chart: escaping, scales and their ticks, the
 * <svg> element with its title, axes, legend and colours.  Coordinates are
 * px in the chart's viewBox, written with one decimal.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "grid.h"
#include "svg_draw.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Okabe and Ito's palette, which stays distinct for the common kinds of
 * colour blindness and in greyscale print; yellow is left out (it vanishes
 * on white).  Series past the seventh repeat the colours dashed.
 */
static const char *const colors[] = {"#0072b2", "#e69f00", "#009e73", "#cc79a7",
				     "#56b4e9", "#d55e00", "#000000"};
static const char *const dashes[] = {"none", "6 3", "2 2", "8 3 2 3"};

const char svg_css[] =
	"svg.chart{max-width:100%;height:auto;font-family:sans-serif;"
	"background:#fff}\n"
	"svg.chart text{fill:#222}\n"
	"svg.chart .grid{stroke:#ddd;stroke-width:1}\n"
	"svg.chart .axis{stroke:#444;stroke-width:1}\n"
	"svg.chart .mark:hover{stroke:#000;stroke-width:2}\n";

const char *svg_color(size_t i)
{
	return colors[i % NELEM(colors)];
}

const char *svg_dash(size_t i)
{
	return dashes[(i / NELEM(colors)) % NELEM(dashes)];
}

/* Length of the UTF-8 sequence led by @c, 0 when @c cannot lead one. */
static size_t utf8_len(unsigned char c)
{
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return 2;
	if (c >= 0xe0 && c <= 0xef)
		return 3;
	if (c >= 0xf0 && c <= 0xf4)
		return 4;
	return 0;
}

/*
 * Whether @s starts a well-formed UTF-8 sequence of @n bytes: continuation
 * bytes, no overlong form, no surrogate, nothing above U+10FFFF.
 */
static bool utf8_ok(const unsigned char *s, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return false;
	if (n == 3 && s[0] == 0xe0 && s[1] < 0xa0)
		return false;
	if (n == 3 && s[0] == 0xed && s[1] >= 0xa0)
		return false;
	if (n == 4 && s[0] == 0xf0 && s[1] < 0x90)
		return false;
	if (n == 4 && s[0] == 0xf4 && s[1] >= 0x90)
		return false;
	return true;
}

void svg_escape(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	if (!s)
		return;
	while (*p) {
		switch (*p) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			n = utf8_len(*p);
			if (*p == '\t' || *p == '\n') {
				fputc(*p, out);
			} else if (*p < 0x20 || *p == 0x7f || !n ||
				   !utf8_ok(p, n)) {
				/* One replacement per bad byte, as a browser. */
				fputs("\xef\xbf\xbd", out);
				n = 1;
			} else {
				fwrite(p, 1, n, out);
			}
			p += n ? n : 1;
			continue;
		}
		p++;
	}
}

double svg_text_px(const char *s)
{
	return (double)grid_dwidth(s) * SVG_CHAR_PX;
}

double svg_transform(enum svg_axis_kind kind, double v)
{
	switch (kind) {
	case SVG_LINEAR:
		return v;
	case SVG_LOG10:
		return v > 0 ? log10(v) : NAN;
	case SVG_LOG2:
		return v > 0 ? log2(v) : NAN;
	case SVG_QUANTILE:
		return v >= 0 && v < 1 ? -log10(1 - v) : NAN;
	}
	return NAN;
}

/* The inverse of svg_transform. */
static double untransform(enum svg_axis_kind kind, double t)
{
	switch (kind) {
	case SVG_LINEAR:
		return t;
	case SVG_LOG10:
		return pow(10, t);
	case SVG_LOG2:
		return exp2(t);
	case SVG_QUANTILE:
		return 1 - pow(10, -t);
	}
	return NAN;
}

double svg_scale_at(const struct svg_scale *sc, double v)
{
	double t = svg_transform(sc->kind, v);

	if (!isfinite(t) || sc->d1 == sc->d0)
		return sc->r0;
	return sc->r0 + (t - sc->d0) / (sc->d1 - sc->d0) * (sc->r1 - sc->r0);
}

/* 1, 2 or 5 times a power of ten, the smallest at least @raw. */
static double nice_step(double raw)
{
	double p = pow(10, floor(log10(raw))), f = raw / p;

	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

/*
 * Binary: the same steps in the unit of the axis's top (a power of
 * 1024), so that 2 GiB/s of range ticks at 0.5, 1, 1.5 and 2 GiB/s and
 * not at 500, 1000, 1500 MiB/s.
 */
static double step_of(double raw, bool binary, double top)
{
	double u = 1;

	while (binary && top / u >= 1024)
		u *= 1024;
	return nice_step(raw / u) * u;
}

static size_t linear_ticks(double d0, double d1, double *t, size_t max,
			   bool binary)
{
	double step, v;
	size_t n = 0, k;

	if (!(d1 > d0) || max < 2)
		return 0;
	step = step_of((d1 - d0) / (double)(max - 1), binary,
		       fmax(fabs(d0), fabs(d1)));
	for (k = 0; n < max; k++) {
		v = (ceil(d0 / step - 1e-9) + (double)k) * step;
		if (v > d1 + step * 1e-9)
			break;
		t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	}
	return n;
}

/*
 * Log10 ticks: 1, 2 and 5 in each decade over at most two decades,
 * otherwise every decade (or every second, third, ... to stay under @max);
 * linear ticks when the domain is too short to hold two of either.
 */
static size_t log10_ticks(double d0, double d1, double *t, size_t max)
{
	static const double mant[] = {1, 2, 5};
	double e, v;
	size_t n = 0, i, every;

	if (d1 - d0 <= 2.2) {
		for (e = floor(d0); e <= ceil(d1) && n < max; e++)
			for (i = 0; i < NELEM(mant) && n < max; i++) {
				v = mant[i] * pow(10, e);
				if (log10(v) >= d0 - 1e-9 &&
				    log10(v) <= d1 + 1e-9)
					t[n++] = v;
			}
		if (n >= 2)
			return n;
		return linear_ticks(pow(10, d0), pow(10, d1), t,
				    max < 5 ? max : 5, false);
	}
	every = (size_t)ceil((floor(d1) - ceil(d0) + 1) / (double)max);
	if (every < 1)
		every = 1;
	for (e = ceil(d0 - 1e-9); e <= d1 + 1e-9 && n < max; e += (double)every)
		t[n++] = pow(10, e);
	return n;
}

static size_t log2_ticks(double d0, double d1, double *t, size_t max)
{
	double e;
	size_t n = 0, every;

	every = (size_t)ceil((floor(d1) - ceil(d0) + 1) / (double)max);
	if (every < 1)
		every = 1;
	for (e = ceil(d0 - 1e-9); e <= d1 + 1e-9 && n < max; e += (double)every)
		t[n++] = exp2(e);
	return n;
}

size_t svg_ticks(const struct svg_scale *sc, double *ticks, size_t max)
{
	size_t n = 0, every;
	double e;

	if (!max || !isfinite(sc->d0) || !isfinite(sc->d1) ||
	    !(sc->d1 > sc->d0))
		return 0;
	switch (sc->kind) {
	case SVG_LINEAR:
		return linear_ticks(sc->d0, sc->d1, ticks, max, sc->binary);
	case SVG_LOG10:
		if (sc->binary && sc->d1 - sc->d0 > log10(4))
			return log2_ticks(sc->d0 / log10(2), sc->d1 / log10(2),
					  ticks, max);
		return log10_ticks(sc->d0, sc->d1, ticks, max);
	case SVG_LOG2:
		return log2_ticks(sc->d0, sc->d1, ticks, max);
	case SVG_QUANTILE:
		every = (size_t)ceil((floor(sc->d1) - ceil(sc->d0) + 1) /
				     (double)max);
		if (every < 1)
			every = 1;
		for (e = ceil(sc->d0 - 1e-9); e <= sc->d1 + 1e-9 && n < max;
		     e += (double)every)
			ticks[n++] = untransform(SVG_QUANTILE, e);
		return n;
	}
	return 0;
}

bool svg_range(const double *v, size_t n, double *lo, double *hi)
{
	bool any = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			continue;
		if (!any || v[i] < *lo)
			*lo = v[i];
		if (!any || v[i] > *hi)
			*hi = v[i];
		any = true;
	}
	return any;
}

bool svg_wide(double lo, double hi, double ratio)
{
	return lo > 0 && hi / lo > ratio;
}

void svg_domain(enum svg_axis_kind kind, double lo, double hi, bool zero,
		double *d0, double *d1)
{
	double a, b, pad, step;

	if (kind == SVG_LINEAR) {
		a = zero && lo >= 0 ? 0 : lo;
		b = hi;
		if (b <= a) {
			/* One value: a span around it, or 0..1 for 0. */
			pad = a ? fabs(a) * 0.1 : 1;
			a = zero && lo >= 0 ? 0 : a - pad;
			b = b + pad;
		}
		pad = (b - a) * 0.05;
		if (!(zero && lo >= 0)) {
			/* Zoomed on the values: the spread is the point. */
			*d0 = a - pad;
			*d1 = b + pad;
			return;
		}
		step = nice_step((b - a + 2 * pad) / 5);
		*d0 = 0;
		*d1 = ceil((b + pad) / step) * step;
		return;
	}
	a = svg_transform(kind, lo);
	b = svg_transform(kind, hi);
	if (!isfinite(a) || !isfinite(b)) {
		*d0 = 0;
		*d1 = 1;
		return;
	}
	pad = (b - a) * 0.06;
	if (kind == SVG_LOG10 && pad < 0.03)
		pad = 0.03;
	if (kind == SVG_LOG2 && pad < 0.3)
		pad = 0.3;
	*d0 = a - pad;
	*d1 = b + pad;
}

char *plot_fmt(svg_fmt_fn *fmt, double v, char *buf, size_t len)
{
	if (fmt)
		return fmt(v, buf, len);
	snprintf(buf, len, "%.4g", v);
	return buf;
}

void plot_text(struct plot *p, double x, double y, const char *anchor,
	       const char *attrs, const char *s)
{
	fprintf(p->out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s%s>",
		x, y, anchor, attrs ? " " : "", attrs ? attrs : "");
	svg_escape(p->out, s);
	fputs("</text>\n", p->out);
}

/* A label cut to @max_px with an ellipsis; the whole of it as tooltip. */
void plot_text_fit(struct plot *p, double x, double y, const char *anchor,
		   const char *s, double max_px)
{
	size_t keep = (size_t)(max_px / SVG_CHAR_PX), n = 0, i = 0;
	char cut[256];

	if (!s)
		return;
	if (svg_text_px(s) <= max_px || keep < 2) {
		plot_text(p, x, y, anchor, NULL, s);
		return;
	}
	while (s[i] && i + 4 < sizeof(cut)) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 && ++n >= keep)
			break;
		cut[i] = s[i];
		i++;
	}
	snprintf(cut + i, sizeof(cut) - i, "\xe2\x80\xa6");
	fputs("<g>", p->out);
	plot_tip(p, s);
	plot_text(p, x, y, anchor, NULL, cut);
	fputs("</g>\n", p->out);
}

void plot_tip(struct plot *p, const char *s)
{
	fputs("<title>", p->out);
	svg_escape(p->out, s);
	fputs("</title>", p->out);
}

void plot_open(struct plot *p, FILE *out, const struct svg_frame *fr,
	       const char *kind, int w, int h, double left, double right,
	       double top, double bottom)
{
	memset(p, 0, sizeof(*p));
	p->out = out;
	p->fr = fr;
	p->w = fr->width > 0 ? fr->width : w;
	p->h = fr->height > 0 ? fr->height : h;
	p->x0 = left;
	p->x1 = p->w - right;
	p->y0 = top;
	p->y1 = p->h - bottom;
	p->zero_x = NAN;
	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart %s\" "
		"viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
		"role=\"img\" font-family=\"sans-serif\" font-size=\"%d\" "
		"aria-label=\"",
		kind, p->w, p->h, p->w, p->h, SVG_FONT_PX);
	svg_escape(out, fr->title);
	fputs("\">", out);
	plot_tip(p, fr->title);
	fprintf(out, "\n<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n",
		p->w, p->h);
	plot_text(p, 8, 16, "start", "font-weight=\"bold\"", fr->title);
}

void plot_close(struct plot *p)
{
	fputs("</svg>\n", p->out);
}

void plot_xscale(struct plot *p, enum svg_axis_kind kind, double d0, double d1)
{
	p->xs = (struct svg_scale){kind, d0, d1, p->x0, p->x1, p->fr->bin_x};
}

void plot_yscale(struct plot *p, enum svg_axis_kind kind, double d0, double d1)
{
	p->ys = (struct svg_scale){kind, d0, d1, p->y1, p->y0, p->fr->bin_y};
}

/* A tick's label: a percentile on the quantile axis, else the unit's. */
static char *tick_label(enum svg_axis_kind kind, svg_fmt_fn *fmt, double v,
			char *buf, size_t len)
{
	int decimals;

	if (kind != SVG_QUANTILE)
		return plot_fmt(fmt, v, buf, len);
	decimals = (int)lround(-log10(1 - v)) - 2;
	snprintf(buf, len, "%.*f%%", decimals > 0 ? decimals : 0, v * 100);
	return buf;
}

double plot_x(const struct plot *p, double v)
{
	if (v == 0 && isfinite(p->zero_x))
		return p->zero_x;
	return svg_scale_at(&p->xs, v);
}

void plot_xticks(struct plot *p, const double *t, size_t n)
{
	double x, half, last = -1e9;
	char lab[64];
	size_t i;

	for (i = 0; i < n; i++) {
		x = plot_x(p, t[i]);
		tick_label(p->xs.kind, p->fr->fmt_x, t[i], lab, sizeof(lab));
		fprintf(p->out,
			"<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"/>\n",
			x, p->y0, x, p->y1);
		/* A label that would run into the previous one is left out. */
		half = svg_text_px(lab) / 2;
		if (x - half < last + 4)
			continue;
		if (x + half > p->w - 2) {
			/* The last label ends at the chart's edge. */
			plot_text(p, p->w - 2, p->y1 + 16, "end", NULL, lab);
			last = p->w;
			continue;
		}
		plot_text(p, x, p->y1 + 16, "middle", NULL, lab);
		last = x + half;
	}
	fprintf(p->out,
		"<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\" stroke=\"#444\"/>\n",
		p->x0, p->y1, p->x1, p->y1);
	if (p->fr->xlabel)
		plot_text(p, (p->x0 + p->x1) / 2, p->y1 + 34, "middle", NULL,
			  p->fr->xlabel);
}

void plot_xaxis(struct plot *p)
{
	double t[16];
	size_t n, max;

	/* About one tick per 70 px. */
	max = (size_t)((p->x1 - p->x0) / 70) + 1;
	n = svg_ticks(&p->xs, t, max < NELEM(t) ? max : NELEM(t));
	plot_xticks(p, t, n);
}

void plot_yaxis(struct plot *p)
{
	double t[16], y;
	char lab[64];
	size_t i, n, max;

	max = (size_t)((p->y1 - p->y0) / 30) + 1;
	n = svg_ticks(&p->ys, t, max < NELEM(t) ? max : NELEM(t));
	for (i = 0; i < n; i++) {
		y = svg_scale_at(&p->ys, t[i]);
		fprintf(p->out,
			"<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"/>\n",
			p->x0, y, p->x1, y);
		plot_text(p, p->x0 - 6, y + 4, "end", NULL,
			  tick_label(p->ys.kind, p->fr->fmt_y, t[i], lab,
				     sizeof(lab)));
	}
	fprintf(p->out,
		"<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\" stroke=\"#444\"/>\n",
		p->x0, p->y0, p->x0, p->y1);
	if (p->fr->ylabel) {
		char attrs[96];

		snprintf(attrs, sizeof(attrs),
			 "transform=\"rotate(-90 12 %.1f)\"",
			 (p->y0 + p->y1) / 2);
		plot_text(p, 12, (p->y0 + p->y1) / 2, "middle", attrs,
			  p->fr->ylabel);
	}
}

void plot_legend(struct plot *p, double x, double y, const struct svg_series *s,
		 size_t n)
{
	size_t i;

	for (i = 0; i < n; i++, y += 18) {
		fprintf(p->out,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"%s\" stroke-width=\"2\" "
			"stroke-dasharray=\"%s\"/>\n",
			x, y - 4, x + 18, y - 4, svg_color(i), svg_dash(i));
		plot_text(p, x + 24, y, "start", "class=\"legend\"", s[i].name);
	}
}

double plot_legend_px(const struct svg_series *s, size_t n)
{
	double w = 0, t;
	size_t i;

	if (n < 2)
		return 16;
	for (i = 0; i < n; i++) {
		t = svg_text_px(s[i].name);
		if (t > w)
			w = t;
	}
	return fmin(w, 200) + 56;
}

bool svg_series_yrange(const struct svg_series *s, size_t ns, double *lo,
		       double *hi)
{
	bool any = false;
	double a, b;
	size_t k;

	for (k = 0; k < ns; k++) {
		if (!s[k].y || !s[k].x || !svg_range(s[k].y, s[k].n, &a, &b))
			continue;
		if (!any || a < *lo)
			*lo = a;
		if (!any || b > *hi)
			*hi = b;
		any = true;
	}
	return any;
}

/* Whether point (x, y) has a place on the plot's axes. */
static bool drawable(const struct plot *p, double x, double y)
{
	if (!isfinite(y) || !isfinite(svg_transform(p->ys.kind, y)))
		return false;
	if (x == 0 && isfinite(p->zero_x))
		return true;
	return isfinite(svg_transform(p->xs.kind, x));
}

/* One series' points as a polyline, broken where a value is missing. */
static void polyline(struct plot *p, const struct svg_series *s, size_t k)
{
	bool open = false;
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (!drawable(p, s->x[i], s->y[i])) {
			if (open)
				fputs("\"/>\n", p->out);
			open = false;
			continue;
		}
		if (!open)
			fprintf(p->out,
				"<polyline class=\"line\" fill=\"none\" "
				"stroke=\"%s\" stroke-width=\"2\" "
				"stroke-dasharray=\"%s\" points=\"",
				svg_color(k), svg_dash(k));
		fprintf(p->out, "%s%.1f,%.1f", open ? " " : "",
			plot_x(p, s->x[i]), svg_scale_at(&p->ys, s->y[i]));
		open = true;
	}
	if (open)
		fputs("\"/>\n", p->out);
}

void plot_series(struct plot *p, const struct svg_series *s, size_t k)
{
	char tip[256], xs[64], ys[64];
	size_t i;

	polyline(p, s, k);
	for (i = 0; i < s->n; i++) {
		if (!drawable(p, s->x[i], s->y[i]))
			continue;
		if (s->tips && s->tips[i])
			snprintf(xs, sizeof(xs), "%s", s->tips[i]);
		else
			tick_label(p->xs.kind, p->fr->fmt_x, s->x[i], xs,
				   sizeof(xs));
		plot_fmt(p->fr->fmt_y, s->y[i], ys, sizeof(ys));
		snprintf(tip, sizeof(tip), "%s%s%s: %s", s->name ? s->name : "",
			 s->name ? ", " : "", xs, ys);
		fprintf(p->out,
			"<circle class=\"mark\" cx=\"%.1f\" cy=\"%.1f\" "
			"r=\"3.5\" fill=\"%s\">",
			plot_x(p, s->x[i]), svg_scale_at(&p->ys, s->y[i]),
			svg_color(k));
		plot_tip(p, tip);
		fputs("</circle>\n", p->out);
	}
}

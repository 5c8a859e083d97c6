/* SPDX-License-Identifier: MIT */
/*
 * The sweep charts' plan: find the keys that vary, choose the chart kind
 * by how many of them are sizes, and split the cases into charts and
 * series by the words of the other varying keys.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chartplan.h"

static const char *lab(const struct cp_case *c, size_t k)
{
	return c->label[k] ? c->label[k] : "";
}

static double num(const struct cp_case *c, size_t k)
{
	return c->num ? c->num[k] : NAN;
}

/*
 * The words of case @c's values of the @n keys @ks: "count=1000" or, for
 * a key without a word, the value alone; joined by ", ".  A new string, or
 * NULL when out of memory.
 */
static char *words(const struct cp_key *keys, const size_t *ks, size_t n,
		   const struct cp_case *c)
{
	char *s = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	for (i = 0; i < n; i++) {
		const char *w = keys[ks[i]].word;

		fprintf(f, "%s%s%s%s", i ? ", " : "", w && *w ? w : "",
			w && *w ? "=" : "", lab(c, ks[i]));
	}
	if (fclose(f))
		return NULL;
	return s;
}

/* Index of @s in @names (n of them), or n when it is not there. */
static size_t find(char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n && strcmp(names[i], s); i++)
		;
	return i;
}

static void chart_free(struct cp_chart *c)
{
	size_t i;

	free(c->title);
	free(c->cases);
	free(c->series_of);
	for (i = 0; i < c->nseries; i++)
		free(c->series[i]);
	free(c->series);
}

void cp_free(struct cp_chart *charts, size_t n)
{
	size_t i;

	for (i = 0; charts && i < n; i++)
		chart_free(&charts[i]);
	free(charts);
}

/* Add case @ci to chart @c as a member of the series named @name. */
static int add_case(struct cp_chart *c, size_t ci, char *name, size_t cap)
{
	size_t s = find(c->series, c->nseries, name);

	if (s == c->nseries) {
		c->series[c->nseries++] = name;
	} else {
		free(name);
	}
	if (c->ncases >= cap)
		return -ENOMEM;
	c->series_of[c->ncases] = s;
	c->cases[c->ncases++] = ci;
	return 0;
}

/* A new chart of @kind with room for @cap cases and series. */
static int chart_new(struct cp_chart **charts, size_t *n, enum cp_kind kind,
		     size_t x, size_t y, char *title, size_t cap)
{
	struct cp_chart *more, *c;

	more = realloc(*charts, (*n + 1) * sizeof(**charts));
	if (!more) {
		free(title);
		return -ENOMEM;
	}
	*charts = more;
	c = &more[(*n)++];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->x = x;
	c->y = y;
	c->title = title;
	c->cases = calloc(cap, sizeof(*c->cases));
	c->series_of = calloc(cap, sizeof(*c->series_of));
	c->series = calloc(cap, sizeof(*c->series));
	return c->cases && c->series_of && c->series ? 0 : -ENOMEM;
}

int cp_plan(const struct cp_key *keys, size_t nkeys,
	    const struct cp_case *cases, size_t ncases,
	    struct cp_chart **charts, size_t *ncharts)
{
	size_t *sizes, *others, ns = 0, no = 0, k, i, g, first;
	char *name, *title;
	int err = 0;

	*charts = NULL;
	*ncharts = 0;
	if (ncases < 2 || !nkeys)
		return 0;
	sizes = calloc(nkeys, sizeof(*sizes));
	others = calloc(nkeys, sizeof(*others));
	if (!sizes || !others) {
		err = -ENOMEM;
		goto out;
	}
	for (k = 0; k < nkeys; k++)
		for (i = 1; i < ncases; i++)
			if (strcmp(lab(&cases[0], k), lab(&cases[i], k))) {
				if (keys[k].size)
					sizes[ns++] = k;
				else
					others[no++] = k;
				break;
			}
	if (ns >= 2) {
		/*
		 * A heat map per combination of everything else that varies
		 * (a third size among it): one per transport, say.
		 */
		for (k = 2; k < ns; k++)
			others[no++] = sizes[k];
		for (i = 0; !err && i < ncases; i++) {
			title = words(keys, others, no, &cases[i]);
			if (!title) {
				err = -ENOMEM;
				break;
			}
			for (g = 0; g < *ncharts; g++)
				if (!strcmp((*charts)[g].title, title))
					break;
			if (g == *ncharts)
				err = chart_new(charts, ncharts, CP_HEAT,
						sizes[1], sizes[0], title,
						ncases);
			else
				free(title);
			name = err ? NULL : strdup("");
			if (!err && !name)
				err = -ENOMEM;
			if (!err)
				err = add_case(&(*charts)[g], i, name, ncases);
		}
		goto out;
	}
	if (!ns && !no)
		goto out;
	/*
	 * Lines against the one size, or bars grouped by the first key that
	 * varies; a series per combination of the rest.
	 */
	first = ns ? sizes[0] : others[0];
	title = strdup("");
	err = title ? chart_new(charts, ncharts, ns ? CP_LINES : CP_BARS, first,
				first, title, ncases)
		    : -ENOMEM;
	for (i = 0; !err && i < ncases; i++) {
		name = words(keys, ns ? others : others + 1, ns ? no : no - 1,
			     &cases[i]);
		err = name ? add_case(&(*charts)[0], i, name, ncases) : -ENOMEM;
	}
out:
	free(sizes);
	free(others);
	if (err) {
		cp_free(*charts, *ncharts);
		*charts = NULL;
		*ncharts = 0;
	}
	return err;
}

/* For sorting sizes: the case indices by key k's number. */
struct by_num {
	const struct cp_case *cases;
	size_t k;
};

static void sort_by_num(size_t *v, size_t n, const struct by_num *b)
{
	size_t i, j, t;

	/* Insertion sort: a sweep has a dozen values or so. */
	for (i = 1; i < n; i++) {
		t = v[i];
		for (j = i; j > 0 && num(&b->cases[v[j - 1]], b->k) >
					     num(&b->cases[t], b->k);
		     j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
}

size_t cp_values(const struct cp_chart *c, const struct cp_case *cases,
		 const struct cp_key *keys, size_t k, size_t *first, size_t max)
{
	struct by_num b = {cases, k};
	size_t n = 0, i, j;

	for (i = 0; i < c->ncases; i++) {
		const struct cp_case *cs = &cases[c->cases[i]];

		for (j = 0; j < n; j++)
			if (!strcmp(lab(&cases[first[j]], k), lab(cs, k)))
				break;
		if (j == n && n < max)
			first[n++] = c->cases[i];
	}
	if (keys[k].size)
		sort_by_num(first, n, &b);
	return n;
}

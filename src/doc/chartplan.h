/* SPDX-License-Identifier: MIT */
/*
 * Which sweep charts a set of cases calls for, decided from what varies
 * between them, never from a pattern's name: two sizes that vary make a
 * heat map (rr's request x response), one size a chart of lines against
 * it with a line per value of what else varies (stream's sizes, one line
 * per count), and without a size, bars grouped by the first thing that
 * varies (replay's traces, a bar per link).  Plain arrays in and out.
 */
#ifndef IPCPERF_DOC_CHARTPLAN_H
#define IPCPERF_DOC_CHARTPLAN_H

#include <stdbool.h>
#include <stddef.h>

/* A parameter of the cases: transport, engine, link, req_size, count... */
struct cp_key {
	const char *name; /* as the chart names it: "request size" */
	const char *word; /* in a series' or title's words: "req", "" for
			     the value alone (a transport) */
	bool size;	  /* a size in bytes: a sweep axis */
};

/* One case: for each key its value in words and as a number (NaN: none). */
struct cp_case {
	const char *const *label; /* nkeys labels, "64 B"; NULL: n/a */
	const double *num;	  /* nkeys numbers; may be NULL (none) */
};

enum cp_kind {
	CP_HEAT = 0, /* rows: key y, columns: key x */
	CP_LINES,    /* x: key x (a size), a line per series */
	CP_BARS,     /* groups: key x, a bar per series */
};

struct cp_chart {
	enum cp_kind kind;
	size_t x, y;   /* key indices (y: heat only) */
	char *title;   /* what holds for all its cases: "tcp" */
	size_t *cases; /* indices into the case array */
	size_t ncases;
	size_t *series_of; /* per case in it: its series (lines, bars) */
	char **series;	   /* lines, bars: each series' name */
	size_t nseries;
};

/*
 * Plan the sweep charts of @ncases cases over @nkeys keys.  Keys whose
 * value is the same in every case are left out; cases that share every
 * varying key's value with an earlier one (another engine's run of the
 * same sweep) get their own chart only through the keys that tell them
 * apart.  Fewer than two cases, or nothing that varies: no chart.  On
 * success *charts (free with cp_free) holds *ncharts charts; returns 0 or
 * -ENOMEM.
 */
int cp_plan(const struct cp_key *keys, size_t nkeys,
	    const struct cp_case *cases, size_t ncases,
	    struct cp_chart **charts, size_t *ncharts);

void cp_free(struct cp_chart *charts, size_t n);

/*
 * The distinct values of key @k among the chart's cases, in order (sizes
 * ascending, others as they first appear): their case indices (the first
 * case with each value) into @first, at most @max; returns how many.
 */
size_t cp_values(const struct cp_chart *c, const struct cp_case *cases,
		 const struct cp_key *keys, size_t k, size_t *first,
		 size_t max);

#endif

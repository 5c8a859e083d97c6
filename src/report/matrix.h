/* SPDX-License-Identifier: MIT */
/*
 * The host x host matrix of many result files, private to the report
 * layer: results grouped by case and by the pair of hosts they ran
 * between, each pair's histograms merged and its runs pooled.
 * matrix.c builds it, matrix_out.c writes it.
 */
#ifndef IPCPERF_REPORT_MATRIX_H
#define IPCPERF_REPORT_MATRIX_H

#include "ipcperf/report.h"

enum mx_state {
	MX_NONE = 0, /* no result for this pair: not measured */
	MX_OK,	     /* every result of the pair is ok */
	MX_PARTIAL,  /* some runs measured, then something failed */
	MX_FAILED,   /* nothing measured: why says what went wrong */
};

struct mx_cell {
	enum mx_state state;
	char why[512];		  /* the first failure's reason */
	size_t results;		  /* results merged into the cell */
	double *vals;		  /* every run's value of the metric, pooled */
	size_t nvals, cap;	  /* values, allocated */
	struct ipc_hist *hist;	  /* every sample merged; NULL without */
	unsigned flags;		  /* 1 << IPC_FLAG_* of any result */
	bool from_hist;		  /* value is the merged histogram's */
	double value;		  /* the metric; NAN when none */
	struct ipc_runs_stats st; /* the pooled runs: median, interval */
	enum ipc_fmt fmt;	  /* how the value prints */
	const char *unit;	  /* "ns", "bytes_per_s", "msgs_per_s" */
};

/* One case (every word but the hosts), its hosts and their pairs. */
struct mx_case {
	char name[192];	       /* "rr tcp req=1 resp=1" */
	struct mx_cell *cells; /* [from * nhosts + to] */
};

struct ipc_matrix {
	enum ipc_mx_metric metric;
	const char *word; /* "p50", "p99", "throughput" */
	char **hosts;	  /* sorted; rows and columns alike */
	size_t nhosts;
	struct mx_case *cases;
	size_t ncases;
	const struct ipc_report_meta *meta; /* for the heading */
};

/* The cell of @from -> @to in @c. */
static inline struct mx_cell *mx_at(const struct ipc_matrix *m,
				    const struct mx_case *c, size_t from,
				    size_t to)
{
	return &c->cells[from * m->nhosts + to];
}

/* "12.3 µs [12.1, 12.6]", "failed", "-": a cell in words for tables. */
char *mx_cell_words(const struct mx_cell *cell, char *buf, size_t len);

#endif

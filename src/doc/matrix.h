/* SPDX-License-Identifier: MIT */
/*
 * The host x host matrix of many result files, private to the document
 * layer and the formatters that print it: results grouped by case and by
 * the pair of hosts they ran between, each pair's histograms merged and
 * its runs pooled.  matrix.c builds it, report/matrix_out.c writes it.
 */
#ifndef IPCPERF_DOC_MATRIX_H
#define IPCPERF_DOC_MATRIX_H

#include <jansson.h>

#include "ipcperf/doc.h"

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

/* A cell of a saved matrix (report --matrix -f json) read back. */
struct mc_cell {
	const char *cas, *from, *to, *status, *error, *unit;
	double *vals;
	size_t nvals;
};

struct ipc_mx_doc {
	json_t *root;
	char metric[16];
	struct mc_cell *cells;
	size_t n;
};

/* One compared pair. */
struct mc_pair {
	const struct mc_cell *a, *b;
	struct ipc_cmp cmp;
	bool compared;		/* both sides had runs: */
	struct ipc_judgement v; /* ... the verdict and what it rests on */
	bool failed_b;		/* not compared: A ok, B failed */
	bool gate;		/* --fail-if-slower trips on it */
};

/* "slower", "faster", ..., "failed in B" or "not measured". */
const char *mx_pair_verdict(const struct mc_pair *p);

/* Slower, or failed in B: the pairs a comparison lists at its end. */
bool mx_pair_worse(const struct mc_pair *p);

/* The cell of @d with @c's case and hosts, or NULL. */
const struct mc_cell *mx_find(const struct ipc_mx_doc *d,
			      const struct mc_cell *c);

/*
 * Judge every pair of @a that @b has too, into @pairs (room for a->n)
 * and *@n.  0 or -ENOMEM.
 */
int mx_judge(const struct ipc_mx_doc *a, const struct ipc_mx_doc *b,
	     const struct ipc_cmp_opts *o, struct mc_pair *pairs, size_t *n);

/*
 * What a comparison of matrices @a and @b, judged into the @n @pairs,
 * comes to: the pairs that trip --fail-if-slower, those slower and those
 * failed in B, and the cells of one side the other has not.
 */
struct mc_tally {
	size_t gates, slower, failed, only_a, only_b;
};
void mx_tally(const struct ipc_mx_doc *a, const struct ipc_mx_doc *b,
	      const struct mc_pair *pairs, size_t n, struct mc_tally *t);

/* A cell's state in words: "none", "ok", "partial", "failed". */
extern const char *const mx_state_names[];

/* @m as the JSON of report --matrix -f json.  0 or -errno. */
int mx_write_json(FILE *out, const struct ipc_matrix *m);

/*
 * The @n pairs of two matrices compared by @metric ("p50") as JSON, with
 * "gate_failed" @gate: some pair tripped --fail-if-slower.  0 or -errno.
 */
int mx_cmp_write_json(FILE *out, const char *metric, const struct mc_pair *p,
		      size_t n, bool gate);

#endif

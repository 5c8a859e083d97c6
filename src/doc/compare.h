/* SPDX-License-Identifier: MIT */
/*
 * A comparison of two sides of result documents (one or several
 * invocations each), private to the document layer and the formatters
 * that print it: the keys cases are matched by, the matched pairs and
 * what the statistics say about each.  compare.c builds it.
 */
#ifndef IPCPERF_DOC_COMPARE_H
#define IPCPERF_DOC_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include "ipcperf/doc.h"

#define CMP_MAXKEYS 48

/*
 * A case of one side, by the values of every key: its result in each of
 * the side's documents (one per invocation) that has it.
 */
struct ccase {
	const struct ipc_result *res;  /* the first document's: keys, words */
	const struct ipc_result **inv; /* every measured one, a document each */
	size_t ninv;
	char *key[CMP_MAXKEYS]; /* "" where its pattern has no such key */
	bool measured;		/* some result ok or partial, with runs */
	bool used;		/* paired with a case of the other side */
	size_t doc;		/* the last document that added one */
};

/* One side: its documents (invocations) and their cases, merged. */
struct cside {
	const struct ipc_doc *const *docs;
	size_t ndocs;
	struct ccase *cases;
	size_t n, cap;
};

/*
 * One phase of --explain compared: its time per round trip in A and B
 * (the medians over each side's files) and, with two files or more a
 * side, the verdict on B against A (lower is better).
 */
struct cphase {
	char name[48]; /* "server receive" */
	double a_ns, b_ns;
	bool judged;
	struct ipc_cmp cmp;
	struct ipc_judgement v;
};

/* One matched pair and what the statistics say about it. */
struct cpair {
	struct ccase *a, *b;
	const struct ipc_metric *metric; /* the per-run values compared */
	struct ipc_cmp cmp;
	struct ipc_judgement v; /* the verdict and what it rests on */
	double per; /* messages per sample in both (IPC_EXTRA_PER), 0 */
	const char *per_word;  /* what a message is */
	char note[320];	       /* why no verdict, or a caveat */
	bool gate;	       /* trips --fail-if-slower */
	struct cphase *phases; /* where both sides were explained */
	size_t nphases;
	char phase_note[256]; /* why no phase is compared, or not judged */
};

struct ipc_comparison {
	struct ipc_cmp_opts opts;
	const char *keys[CMP_MAXKEYS]; /* every key's name in JSON */
	size_t nkeys;
	bool skip[CMP_MAXKEYS]; /* keys A and B differ in as a whole */
	struct cside a, b;
	struct cpair *pairs;
	size_t npairs, gates;
	size_t uncompared; /* cases of A with nothing of B to compare */
	const struct ipc_doc **owned; /* ipc_compare's two, freed with it */
};

/* The key indices of the fixed keys (the rest are the parameters'). */
enum {
	CK_PATTERN,
	CK_TRANSPORT,
	CK_ENGINE,
	CK_FRAMING,
	CK_LINK,
	CK_CPUS,
	CK_FIXED
};

/*
 * "rr pipe req=1 resp=1" (engine named when not blocking), leaving out the
 * keys that are skipped in @c when @skip.
 */
void cmp_label(const struct ipc_comparison *c, const struct ccase *k, bool skip,
	       char *buf, size_t len);

/*
 * B - A of @p's medians and the ends of its interval, per sample, or per
 * message with @per_message (IPC_EXTRA_PER: each divided by p->per).
 * have: both sides measured (with @per_message, and p->per known);
 * have_ci: the interval too.
 */
struct cmp_diff {
	bool have, have_ci;
	double diff, lo, hi;
};
struct cmp_diff cmp_pair_diff(const struct cpair *p, bool per_message);

/* A phase's B - A, per round trip. */
double cmp_phase_diff(const struct cphase *ph);

/*
 * The phases of --explain of @p compared, where both sides' every file
 * explained the case (else p->phase_note says which did not).  0 or
 * -ENOMEM.
 */
int cmp_phases(const struct ipc_comparison *c, struct cpair *p);

/* @c as the JSON document of compare -f json.  0 or -errno. */
int cmp_write_json(FILE *out, const struct ipc_comparison *c);

#endif

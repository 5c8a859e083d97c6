/* SPDX-License-Identifier: MIT */
/*
 * Reading result documents, private to the document layer: what a reader
 * carries (the file's name, the first error, the store the records point
 * into) and the readers of one value, one schema table, one run and one
 * summary, each of which names the field it found wrong.  json_read.c
 * reads whole documents with them.
 */
#ifndef IPCPERF_DOC_JREAD_H
#define IPCPERF_DOC_JREAD_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "ipcperf/doc.h"
#include "schema.h"

/* What the records of a document point into, freed with it. */
struct ipc_doc_store {
	void **p;
	size_t n, cap;
	struct ipc_host host;
	struct ipc_runopts ro;
};

struct rd {
	const char *file;
	char *err;
	size_t err_len;
	int rc; /* the first failure, 0 until then */
	struct ipc_doc_store *st;
	struct ipc_hist *hist; /* jr_hist's, every bucket; freed at the end */
};

/*
 * Keep @p (a heap block) to free with the document; NULL if it is NULL.
 * jr_keep_str keeps a copy of @s; it and jr_clean (@s itself when it is
 * clean, else a kept copy) write control characters out as "\x1b", so
 * that no string of a file reaches a terminal raw.
 */
void *jr_keep(struct rd *r, void *p);
char *jr_keep_str(struct rd *r, const char *s);
const char *jr_clean(struct rd *r, const char *s);

/* "FILE: AT.KEY: what is wrong"; only the first failure is kept. */
__attribute__((format(printf, 4, 5))) void
jr_bad(struct rd *r, const char *at, const char *key, const char *fmt, ...);

/* The path of @key under @at into @buf: "results[2].summary". */
const char *jr_at(char *buf, size_t len, const char *at, const char *key);

/*
 * @key of @o as an object, an array, an unsigned integer (false when
 * absent or wrong), a number (NAN when absent: left out by the writer),
 * a string (NULL when absent or null).  A value of the wrong type, or one
 * @required and absent, is an error naming it.
 */
json_t *jr_obj(struct rd *r, json_t *o, const char *at, const char *key,
	       bool required);
json_t *jr_arr(struct rd *r, json_t *o, const char *at, const char *key);
bool jr_u64(struct rd *r, json_t *o, const char *at, const char *key,
	    bool required, uint64_t *out);
double jr_num(struct rd *r, json_t *o, const char *at, const char *key);
const char *jr_str(struct rd *r, json_t *o, const char *at, const char *key);

/* The index of @s among @names (NULL-terminated), or -1 with an error. */
int jr_name_index(struct rd *r, const char *at, const char *key,
		  const char *const *names, const char *s);

/* The fields of schema table @t from @o into the record at @base. */
void jr_table(struct rd *r, json_t *o, const char *at, void *base,
	      const struct jtable *t);

/* The same from the object @key of @o, if there is one: whether there is. */
bool jr_table_at(struct rd *r, json_t *o, const char *at, const char *key,
		 void *base, const struct jtable *t);

/* One run of @cs's result from @o into @s. */
void jr_run(struct rd *r, json_t *o, const char *at, const struct ipc_case *cs,
	    struct ipc_run_stats *s);

/* The summary (and diagnosis) of @res from @o, which may be NULL. */
void jr_summary(struct rd *r, json_t *o, const char *at,
		struct ipc_result *res);

/* The pattern's extras of @which kind (IPC_EXTRA_RUN or 0) into @s. */
void jr_extras(struct rd *r, json_t *o, const char *at,
	       const struct ipc_case *cs, struct ipc_run_stats *s,
	       unsigned which);

/*
 * The summary's histogram from @summary (which may lack one: documents
 * written before it had one) into res->hist, checked against its totals
 * in r->hist and copied with only the buckets in use (ipc_hist_compact:
 * read only);
 * the sum of squares comes from the summary's mean and sd, so read the
 * summary first.  jh_hist_obj is the writer's side: a new object, or
 * NULL when out of memory.
 */
void jr_hist(struct rd *r, json_t *summary, const char *at,
	     struct ipc_result *res);
json_t *jh_hist_obj(const struct ipc_hist *h);

/*
 * The result's peer, when it ran against another host (its "peer"
 * object), into res->cs.peer (a stand-in kind flagged elsewhere),
 * res->cs.target, res->peer_host and res->peer_others.
 */
void jr_peer(struct rd *r, json_t *o, const char *at, struct ipc_result *res);

/*
 * The string @key of the fingerprint a remote peer sent ("hostname"),
 * into @buf; "" when there is none.  Returns @buf.
 */
char *jr_peer_host_field(const struct ipc_result *res, const char *key,
			 char *buf, size_t len);

/*
 * The flags of a result and why each applies, as the diagnosis worded it,
 * into @d.  Returns the flags the document holds without their why.
 */
unsigned jr_flags(struct rd *r, json_t *o, const char *at, struct ipc_diag *d);

#endif

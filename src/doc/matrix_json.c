/* SPDX-License-Identifier: MIT */
/*
 * A host x host matrix as JSON (report --matrix -f json): every case's
 * cells with their values, intervals, flags, run values and merged
 * histograms.  Beside its reader (matrix_cmp.c's ipc_mx_doc_parse), so
 * that the matrix compare reads what this writes, in one layer.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include <jansson.h>

#include "jread.h"
#include "matrix.h"

const char *const mx_state_names[] = {"none", "ok", "partial", "failed"};

static json_t *cell_obj(const struct ipc_matrix *m, const struct mx_cell *cell,
			size_t f, size_t t)
{
	json_t *o = json_object(), *a = json_array(), *ci;
	int bad = !o || !a;

	bad |= json_object_set_new(o, "from", json_string(m->hosts[f]));
	bad |= json_object_set_new(o, "to", json_string(m->hosts[t]));
	bad |= json_object_set_new(o, "status",
				   json_string(mx_state_names[cell->state]));
	if (cell->why[0])
		bad |= json_object_set_new(o, "error", json_string(cell->why));
	if (isfinite(cell->value)) {
		bad |= json_object_set_new(o, "value", json_real(cell->value));
		bad |= json_object_set_new(
			o, "basis",
			json_string(cell->from_hist ? "merged histogram"
						    : "median of runs"));
	}
	bad |= json_object_set_new(o, "results",
				   json_integer((json_int_t)cell->results));
	bad |= json_object_set_new(o, "runs",
				   json_integer((json_int_t)cell->nvals));
	if (cell->st.have_ci) {
		ci = json_pack("{s:f, s:f, s:f}", "level", cell->st.ci_level,
			       "low", cell->st.ci_low, "high",
			       cell->st.ci_high);
		bad |= json_object_set_new(o, "ci", ci);
	}
	for (int k = 0; a && k < IPC_FLAG_COUNT; k++)
		if (cell->flags & (1u << k))
			bad |= json_array_append_new(
				a, json_string(ipc_flag_name(k)));
	bad |= json_object_set_new(o, "flags", a);
	a = json_array();
	for (size_t i = 0; a && i < cell->nvals; i++)
		bad |= json_array_append_new(a, json_real(cell->vals[i]));
	bad |= json_object_set_new(o, "run_values", a);
	if (cell->hist && cell->hist->total)
		bad |= json_object_set_new(o, "histogram",
					   jh_hist_obj(cell->hist));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *case_obj(const struct ipc_matrix *m, const struct mx_case *c)
{
	json_t *o = json_object(), *cells = json_array(), *x;
	const char *unit = NULL;
	int bad = !o || !cells;

	for (size_t f = 0; !bad && f < m->nhosts; f++)
		for (size_t t = 0; !bad && t < m->nhosts; t++) {
			const struct mx_cell *cell = mx_at(m, c, f, t);

			if (cell->state == MX_NONE)
				continue;
			unit = unit ? unit : cell->unit;
			x = cell_obj(m, cell, f, t);
			bad |= !x || json_array_append_new(cells, x);
		}
	bad |= json_object_set_new(o, "case", json_string(c->name));
	bad |= json_object_set_new(o, "unit", json_string(unit ? unit : ""));
	bad |= json_object_set_new(o, "cells", cells);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int mx_write_json(FILE *out, const struct ipc_matrix *m)
{
	json_t *root = json_object(), *hosts = json_array(),
	       *cases = json_array(), *files = json_array(), *x;
	const struct ipc_report_meta *meta = m->meta;
	int bad = !root || !hosts || !cases || !files;

	for (size_t i = 0; !bad && i < m->nhosts; i++)
		bad |= json_array_append_new(hosts, json_string(m->hosts[i]));
	for (size_t i = 0; !bad && i < m->ncases; i++) {
		x = case_obj(m, &m->cases[i]);
		bad |= !x || json_array_append_new(cases, x);
	}
	bad |= json_object_set_new(
		root, "ipcperf",
		json_pack("{s:s, s:i}", "version",
			  meta && meta->version ? meta->version : "", "schema",
			  IPC_JSON_SCHEMA));
	bad |= json_object_set_new(root, "command", json_string("matrix"));
	bad |= json_object_set_new(root, "metric", json_string(m->word));
	bad |= json_object_set_new(root, "hosts", hosts);
	bad |= json_object_set_new(root, "matrices", cases);
	if (bad) {
		json_decref(root);
		json_decref(files);
		return -ENOMEM;
	}
	json_decref(files);
	errno = 0;
	bad = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) <
		      0 ||
	      fputc('\n', out) == EOF;
	json_decref(root);
	return bad ? (errno ? -errno : -EIO) : 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * The JSON format: the result document itself (written by the document
 * layer), and a comparison as JSON for programs.
 */
#include <errno.h>

#include "ipcperf/report.h"
#include "table.h"

static int json_begin(struct ipc_report *r)
{
	struct ipc_doc_writer *w = NULL;
	int err = ipc_doc_write_begin(r->meta, &w);

	r->priv = w;
	return err;
}

static int json_skip(struct ipc_report *r, const struct ipc_skip *s)
{
	return r->priv ? ipc_doc_write_skip(r->priv, s) : -EINVAL;
}

static int json_result(struct ipc_report *r, const struct ipc_result *res)
{
	return r->priv ? ipc_doc_write_result(r->priv, res) : -EINVAL;
}

static int json_end(struct ipc_report *r)
{
	int err = ipc_doc_write_end(r->priv, r->meta, r->out);

	r->priv = NULL;
	return err;
}

const struct ipc_report_ops ipc_report_json = {
	.name = "json",
	.help = "one JSON document (schema 1) for programs",
	.begin = json_begin,
	.skip = json_skip,
	.result = json_result,
	.end = json_end,
	.compare = cmp_write_json,
};

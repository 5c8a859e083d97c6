/* SPDX-License-Identifier: MIT */
/*
 * The formatters compiled in, lookup by the name given to -f, and the thin
 * wrappers through which the rest of the program drives whichever one was
 * chosen.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ipcperf/report.h"

/* Each formatter's table, the only export of its file. */
extern const struct ipc_report_ops ipc_report_table;
extern const struct ipc_report_ops ipc_report_json;
extern const struct ipc_report_ops ipc_report_csv;
extern const struct ipc_report_ops ipc_report_markdown;
extern const struct ipc_report_ops ipc_report_html;

const struct ipc_report_ops *const ipc_reports[] = {
	&ipc_report_table,    &ipc_report_json, &ipc_report_csv,
	&ipc_report_markdown, &ipc_report_html, NULL,
};

const struct ipc_report_ops *ipc_report_find(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; ipc_reports[i]; i++)
		if (!strcmp(ipc_reports[i]->name, name))
			return ipc_reports[i];
	return NULL;
}

int ipc_report_begin(struct ipc_report *r)
{
	if (!r || !r->ops || !r->out)
		return -EINVAL;
	return r->ops->begin ? r->ops->begin(r) : 0;
}

int ipc_report_skip(struct ipc_report *r, const struct ipc_skip *s)
{
	if (!r || !r->ops || !s)
		return -EINVAL;
	return r->ops->skip ? r->ops->skip(r, s) : 0;
}

int ipc_report_result(struct ipc_report *r, const struct ipc_result *res)
{
	if (!r || !r->ops || !res)
		return -EINVAL;
	return r->ops->result ? r->ops->result(r, res) : 0;
}

/*
 * Besides the formatter's own end, flush the stream and look at its error
 * flag: a write that failed while the formatter printed (a full disk, a
 * closed pipe) must come back as an error here.
 */
int ipc_report_end(struct ipc_report *r)
{
	int err = 0;

	if (!r || !r->ops || !r->out)
		return -EINVAL;
	if (r->ops->end)
		err = r->ops->end(r);
	if (fflush(r->out) == EOF && !err)
		err = errno ? -errno : -EIO;
	if (ferror(r->out) && !err)
		err = -EIO;
	return err;
}

/* SPDX-License-Identifier: MIT */
/*
 * --explain in a build without libbpf, bpftool or the kernel's BTF: the
 * program cannot be loaded, and says so; the measurement runs as before.
 */
#include <errno.h>
#include <stdio.h>

#include "ipcperf/explain.h"
#include "explain/lib_internal.h"

int ipc_explain_open(struct ipc_explain **x, char *why, size_t len)
{
	*x = NULL;
	snprintf(why, len,
		 "built without explain (no libbpf, bpftool or BTF at build "
		 "time)");
	return -ENOTSUP;
}

void ipc_explain_free(struct ipc_explain *x)
{
	(void)x;
}

int ipc_explain_reset(struct ipc_explain *x)
{
	(void)x;
	return -ENOTSUP;
}

int ipc_explain_watch(struct ipc_explain *x, pid_t tid, enum ipc_xside side)
{
	(void)x;
	(void)tid;
	(void)side;
	return -ENOTSUP;
}

int ipc_explain_rewatch(struct ipc_explain *x, enum ipc_xside side)
{
	(void)x;
	(void)side;
	return -ENOTSUP;
}

uint64_t *ipc_explain_window(struct ipc_explain *x)
{
	(void)x;
	return NULL;
}

int ipc_explain_read(struct ipc_explain *x, struct ipc_explain_counts *c)
{
	(void)x;
	(void)c;
	return -ENOTSUP;
}

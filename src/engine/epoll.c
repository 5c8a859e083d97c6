/* SPDX-License-Identifier: MIT */
/*
 * The epoll engine: non-blocking descriptors registered with an epoll set
 * (level-triggered); a receive waits in epoll_pwait2(2), then reads, and a
 * send is tried first and waits only when the descriptor is full.  One
 * endpoint is a flow set of one; many flows share one set per thread.
 */
#include "engines.h"

static int ep_fs_new(struct ipc_fset **fs, uint32_t max,
		     const struct ipc_cancel *cancel)
{
	return eng_ready_new(fs, max, EW_EPOLL, cancel);
}

const struct ipc_engine_ops ipc_eng_epoll = {
	.name = "epoll",
	.help = "non-blocking descriptors in an epoll set, epoll_pwait2 before "
		"each receive",
	.caps = IPC_ENG_NEEDS_FD,
	.attach = eng_fs1_attach,
	.send = eng_fs1_send,
	.recv = eng_fs1_recv,
	.detach = eng_fs1_detach,
	.reattach = eng_fs1_reattach,
	.fs_new = ep_fs_new,
	.fs_add = eng_ready_add,
	.fs_del = eng_ready_del,
	.fs_recv = eng_ready_recv,
	.fs_send = eng_ready_send,
	.fs_wait = eng_ready_wait,
	.fs_cancel = eng_ready_cancel,
	.fs_free = eng_ready_free,
};

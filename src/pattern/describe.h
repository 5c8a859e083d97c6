/*
 * Pieces of self-description that several patterns share: the request and
 * response sizes of the request/response loops and the percentile columns
 * of every latency table.
 */
#ifndef IPCPERF_PATTERN_DESCRIBE_H
#define IPCPERF_PATTERN_DESCRIBE_H

#include <stddef.h>

#include "ipcperf/pattern.h"

#define PARAM_REQ                                                              \
	{                                                                      \
		.key = "req_size", .word = "req", .head = "req",               \
		.option = "req", .type = IPC_VT_SIZE,                          \
		.off = offsetof(struct ipc_case, req_size),                    \
		.fmt = IPC_FMT_BYTES, .flags = IPC_PARAM_PAYLOAD               \
	}

#define PARAM_RESP                                                             \
	{                                                                      \
		.key = "resp_size", .word = "resp", .head = "resp",            \
		.option = "resp", .type = IPC_VT_SIZE,                         \
		.off = offsetof(struct ipc_case, resp_size),                   \
		.fmt = IPC_FMT_BYTES, .flags = IPC_PARAM_PAYLOAD               \
	}

/* A column of a time in ns. */
#define COL_NS(h, s)                                                           \
	{                                                                      \
		.head = (h), .src = (s), .fmt = IPC_FMT_NS                     \
	}

/* The percentile columns every latency table starts with. */
#define COLS_PERCENTILES                                                       \
	COL_NS("p50", IPC_SRC_P50), COL_NS("p90", IPC_SRC_P90),                \
		COL_NS("p99", IPC_SRC_P99), COL_NS("p99.9", IPC_SRC_P999),     \
		COL_NS("max", IPC_SRC_MAX)

#endif

/* SPDX-License-Identifier: MIT */
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

/*
 * The load generator's threads and its loop (closed, or open at --rate),
 * shared by load and http.
 */
#define PARAMS_LOAD_LOOP                                                       \
	{.key = "threads",                                                     \
	 .word = "threads",                                                    \
	 .head = "threads",                                                    \
	 .type = IPC_VT_U32,                                                   \
	 .off = offsetof(struct ipc_case, threads),                            \
	 .fmt = IPC_FMT_COUNT,                                                 \
	 .dflt = 1,                                                            \
	 .flags = IPC_PARAM_WORD_DFLT},                                        \
		{.key = "loop",                                                \
		 .head = "loop",                                               \
		 .type = IPC_VT_U64,                                           \
		 .off = offsetof(struct ipc_case, rate),                       \
		 .fmt = IPC_FMT_LOOP,                                          \
		 .flags = IPC_PARAM_DERIVED},                                  \
	{                                                                      \
		.key = "rate", .word = "rate", .type = IPC_VT_U64,             \
		.off = offsetof(struct ipc_case, rate), .fmt = IPC_FMT_RATE,   \
		.flags = IPC_PARAM_WORD_DFLT                                   \
	}

/* Parallel streams (-P) of stream and bulk, each on its own channel. */
#define PARAM_STREAMS                                                          \
	{                                                                      \
		.key = "streams", .word = "streams", .type = IPC_VT_U64,       \
		.off = offsetof(struct ipc_case, streams),                     \
		.fmt = IPC_FMT_COUNT,                                          \
		.flags = IPC_PARAM_WORD_DFLT | IPC_PARAM_JSON_DFLT             \
	}

/* Their rates: the table's sum is the bandwidth column. */
#define COLS_STREAMS                                                           \
	{.head = "stream min",                                                 \
	 .src = IPC_SRC_FLOW_MIN,                                              \
	 .fmt = IPC_FMT_BPS,                                                   \
	 .flags = IPC_COL_IF_ANY},                                             \
		{.head = "stream max",                                         \
		 .src = IPC_SRC_FLOW_MAX,                                      \
		 .fmt = IPC_FMT_BPS,                                           \
		 .flags = IPC_COL_IF_ANY},                                     \
	{                                                                      \
		.head = "fairness", .src = IPC_SRC_FAIRNESS,                   \
		.fmt = IPC_FMT_RATIO, .flags = IPC_COL_IF_ANY                  \
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

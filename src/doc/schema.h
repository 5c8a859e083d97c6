/* SPDX-License-Identifier: MIT */
/*
 * The JSON schema's keys, in one place for the writer (json_write.c) and the
 * reader (json_read.c): for each object of a document, its fields as a
 * table of key, kind and where the value is in the C record.  The few
 * fields that are computed or conditional are written and read by code
 * next to these tables, with their keys named here too.
 */
#ifndef IPCPERF_DOC_SCHEMA_H
#define IPCPERF_DOC_SCHEMA_H

#include "base/field.h"
#include "run/lib_internal.h"

/* The host's fingerprint: run/host_json.c writes it for both its users. */
#define js_host ipc_host_fields

/*
 * The reader (json_read_value.c) still spells the engine's names of
 * base/field.h so; these go when it reads through ipc_field_get().
 */
#define jfield ipc_field
#define jtable ipc_ftable
#define JK_U64 IPC_FK_U64
#define JK_SIZE IPC_FK_SIZE
#define JK_UINT IPC_FK_UINT
#define JK_INT IPC_FK_INT
#define JK_BOOL IPC_FK_BOOL
#define JK_REAL IPC_FK_REAL
#define JK_ROUND IPC_FK_ROUND
#define JK_CHARS IPC_FK_CHARS
#define JK_INT_NULL IPC_FK_INT_NULL
#define JK_TRI IPC_FK_TRI
#define JK_I64_OPT IPC_FK_I64_OPT
#define JK_REAL_OPT IPC_FK_REAL_OPT
#define JK_ENUM IPC_FK_ENUM
#define JK_CHARS_NULL IPC_FK_CHARS_NULL
#define JF_NONZERO IPC_FF_NONZERO
#define JF_OPT IPC_FF_OPT

/* The objects' tables (schema.c), in the order the writer writes them. */
extern const struct ipc_ftable js_lat;	   /* struct ipc_lat */
extern const struct ipc_ftable js_counts;  /* struct ipc_run_stats */
extern const struct ipc_ftable js_pmqos;   /* struct ipc_pmqos: host.pm_qos */
extern const struct ipc_ftable js_config;  /* struct ipc_runopts */
extern const struct ipc_ftable js_config1; /* ... after runs */
extern const struct ipc_ftable js_config2; /* ... after device */
extern const struct ipc_ftable js_side;	   /* struct ipc_side_cost */
extern const struct ipc_ftable js_sock;	   /* struct ipc_sock_info */
extern const struct ipc_ftable js_loss;	   /* struct ipc_loss */
extern const struct ipc_ftable js_flows;   /* struct ipc_flows */
extern const struct ipc_ftable js_runload; /* struct ipc_run_stats: load */
extern const struct ipc_ftable js_cost;	   /* struct ipc_cost */
extern const struct ipc_ftable js_link;	   /* struct ipc_link */
extern const struct ipc_ftable js_link2;   /* ... after loss */
extern const struct ipc_ftable js_place;   /* struct ipc_diag: placement */

/* The keys written by code (conditional or computed values). */
#define KEY_IPCPERF "ipcperf"
#define KEY_VERSION "version"
#define KEY_SCHEMA "schema"
#define KEY_BUILD "build"
#define KEY_HOST "host"
#define KEY_COMMAND "command"
#define KEY_ARGV "argv"
#define KEY_CONFIG "config"
#define KEY_RESULTS "results"
#define KEY_SKIPPED "skipped"
#define KEY_WHAT "what"
#define KEY_WHY "why"
#define KEY_PATTERN "pattern"
#define KEY_TRANSPORT "transport"
#define KEY_ENGINE "engine"
#define KEY_STATUS "status"
#define KEY_ERROR "error"
#define KEY_LINK "link"
#define KEY_LINK_PARAMS "link_params"
#define KEY_LINK_LOSS "loss" /* in link_params: a fraction */
#define KEY_FRAMING "framing"
#define KEY_ACKS "acks"
#define KEY_RUNS "runs"
#define KEY_SOCKET "socket"
#define KEY_SUMMARY "summary"
#define KEY_FLAGS "flags"
#define KEY_REFUSED "refused_connections"
#define KEY_PEER "peer"
#define KEY_PEER_KIND "kind"
#define KEY_PEER_TARGET "target"
#define KEY_PEER_HOST "host"
#define KEY_PEER_OTHERS "other_tests"
#define KEY_FLAG "flag"
#define KEY_HINT "hint"
#define KEY_TIMER "timer_ns"
#define KEY_LATENCY "latency_ns"
#define KEY_HIST "histogram"
#define KEY_HIST_SCHEME "scheme"
#define KEY_HIST_SUB_BITS "sub_bits"
#define KEY_HIST_TOP_BITS "top_bits"
#define KEY_HIST_TOTAL "total"
#define KEY_HIST_MIN "min"
#define KEY_HIST_MAX "max"
#define KEY_HIST_SUM "sum"
#define KEY_HIST_OVERFLOW "overflow"
#define KEY_HIST_BUCKETS "buckets"
#define KEY_XLATENCY "exchange_latency_ns"
#define KEY_LOSS "loss"
#define KEY_LOST_PCT "lost_pct"
#define KEY_LATE "late"
#define KEY_REORDERED "reordered"
#define KEY_FLOWS "flows"
#define KEY_LAG "lag_max_ns"
#define KEY_WALL "wall_ns"
#define KEY_LOOP_MSGS "loop_messages"
#define KEY_CLIENT "client"
#define KEY_SERVER "server"
#define KEY_LOAD "load"
#define KEY_CV "cv"
#define KEY_CI "ci"
#define KEY_LEVEL "level"
#define KEY_LOW "low"
#define KEY_HIGH "high"
#define KEY_METRIC "metric"
#define KEY_ESTIMATE "estimate"
#define KEY_HEADLINE "headline"
#define KEY_CPUS "cpus" /* a result's placement: 1, 2 or null */
#define KEY_PIN "pin"	/* ... its CPUs: {client, server, ...} */
#define KEY_PIN_BY "by"
#define KEY_PIN_SMT "smt_siblings"
#define KEY_VALUE "value"
#define KEY_TARGET "target"
#define KEY_PCT "pct"
#define KEY_HALF "half_width_pct"
#define KEY_STOP "stop"
#define KEY_MODES "modes"
#define KEY_NLOW "nlow"
#define KEY_NHIGH "nhigh"
#define KEY_MODE_SAME "same_cpu_runs"	/* in modes: [low group, high] */
#define KEY_MODE_SPLIT "split_cpu_runs" /* likewise */
#define KEY_OUTLIERS "outliers"
#define KEY_OUTLIER "outlier"
#define KEY_EARLY_WAKE "early_wake_vcsw"
#define KEY_CPU "cpu"
#define KEY_PER "per"
#define KEY_PLACEMENT "placement"
#define KEY_OTHER_CPUS "other_cpus"
#define KEY_STEAL_CPUS "steal_cpus"
#define KEY_RES_CPUS "resolution_cpus"
#define KEY_LOADAVG_1M "loadavg_1m"
#define KEY_LOAD_SRC "source" /* in summary.load */
#define KEY_LOADAVG IPC_HOST_KEY_LOADAVG
#define KEY_PERF IPC_HOST_KEY_PERF
#define KEY_PERF_CYCLES IPC_HOST_KEY_CYCLES
#define KEY_PERF_INS IPC_HOST_KEY_INS
#define KEY_PERF_MIGR IPC_HOST_KEY_MIGR
#define KEY_PERF_NOTE IPC_HOST_KEY_NOTE
#define KEY_STARTED "started"
#define KEY_PM_QOS "pm_qos"
#define KEY_ENDED "ended"
#define KEY_CFG_RUNS "runs"	/* in config: 0 with --runs auto */
#define KEY_CFG_DEVICE "device" /* in config: [client, server] or null */

/* Names of the enums the documents hold. */
extern const char *const js_status_names[];    /* enum ipc_status */
extern const char *const js_placement_names[]; /* enum ipc_placement */
extern const char *const js_load_src_names[];  /* enum ipc_load_src */

#endif

/*
 * The fields of schema 1 that are a plain value of a C record, object by
 * object, in the order the writer writes them (docs/json.md describes
 * each).  The reader reads the same tables back.
 */
#include <stddef.h>

#include "ipcperf/report.h"
#include "schema.h"

#define TABLE(name, arr)                                                       \
	const struct jtable name = {arr, sizeof(arr) / sizeof(arr[0])}

const char *const js_status_names[] = {
	[IPC_STATUS_OK] = "ok",
	[IPC_STATUS_ERROR] = "error",
	[IPC_STATUS_PARTIAL] = "partial",
	NULL,
};

const char *const js_placement_names[] = {
	[IPC_PLACE_PROCESS] = "process",
	[IPC_PLACE_THREAD] = "thread",
	NULL,
};

static const char *const shm_wait_names[] = {
	[IPC_SHM_FUTEX] = "futex",
	[IPC_SHM_SPIN] = "spin",
	NULL,
};

#define L(k)                                                                   \
	{                                                                      \
#k, JK_U64, offsetof(struct ipc_lat, k), 0, NULL               \
	}
static const struct jfield lat[] = {
	L(min),
	{"mean", JK_ROUND, offsetof(struct ipc_lat, mean), 0, NULL},
	{"stddev", JK_ROUND, offsetof(struct ipc_lat, stddev), 0, NULL},
	L(p50),
	L(p90),
	L(p99),
	L(p999),
	L(max),
};
#undef L
TABLE(js_lat, lat);

#define R(k, kind)                                                             \
	{                                                                      \
#k, kind, offsetof(struct ipc_run_stats, k), 0, NULL           \
	}
static const struct jfield counts[] = {
	R(iterations, JK_U64), R(messages, JK_U64),    R(bytes, JK_U64),
	R(elapsed_ns, JK_U64), R(msgs_per_s, JK_REAL), R(bytes_per_s, JK_REAL),
};
TABLE(js_counts, counts);

static const struct jfield runload[] = {
	R(busy_ns, JK_U64),
	R(ours_ns, JK_U64),
	R(steal_ns, JK_U64),
};
#undef R
TABLE(js_runload, runload);

#define H(k, kind, fl)                                                         \
	{                                                                      \
#k, kind, offsetof(struct ipc_host, k), fl, NULL               \
	}
static const struct jfield host[] = {
	H(kernel, JK_CHARS, 0),
	H(machine, JK_CHARS, 0),
	H(hostname, JK_CHARS, 0),
	H(cpu_model, JK_CHARS, 0),
	H(cpus, JK_INT, 0),
	H(timer_ns, JK_U64, 0),
	/* The fingerprint added with the noise diagnosis. */
	H(cores, JK_INT_NULL, JF_OPT),
	H(packages, JK_INT_NULL, JF_OPT),
	H(smt, JK_TRI, JF_OPT),
	H(mem_bytes, JK_U64, JF_OPT | JF_NONZERO),
	H(hypervisor, JK_BOOL, JF_OPT),
	{"virtualization", JK_CHARS_NULL, offsetof(struct ipc_host, virt),
	 JF_OPT, NULL},
	H(clocksource, JK_CHARS, JF_OPT | JF_NONZERO),
	{"cpufreq_governor", JK_CHARS, offsetof(struct ipc_host, governor),
	 JF_OPT | JF_NONZERO, NULL},
	/* loadavg and perf follow, then started: json.c */
};
#undef H
TABLE(js_host, host);

#define C(k, kind)                                                             \
	{                                                                      \
#k, kind, offsetof(struct ipc_runopts, k), JF_OPT, NULL        \
	}
#define CK(key, k, kind)                                                       \
	{                                                                      \
		key, kind, offsetof(struct ipc_runopts, k), JF_OPT, NULL       \
	}
/*
 * In three parts, around "runs" (0 with --runs auto) and "device" (an
 * array or null), which json.c writes.
 */
static const struct jfield config[] = {
	C(iterations, JK_U64),
	C(duration_ns, JK_U64),
	C(warmup, JK_U64),
};
TABLE(js_config, config);

static const struct jfield config1[] = {
	{"placement", JK_ENUM, offsetof(struct ipc_runopts, placement), JF_OPT,
	 js_placement_names},
	C(verify, JK_BOOL),
	C(timeout_ns, JK_U64),
	C(pin_client, JK_INT_NULL),
	C(pin_server, JK_INT_NULL),
	CK("nodelay", tp.nodelay, JK_BOOL),
	CK("sndbuf", tp.sndbuf, JK_INT),
	CK("rcvbuf", tp.rcvbuf, JK_INT),
	CK("busy_poll_us", tp.busy_poll_us, JK_INT),
	CK("shm_bytes", tp.shm_bytes, JK_SIZE),
	{"shm_wait", JK_ENUM, offsetof(struct ipc_runopts, tp.shm_wait), JF_OPT,
	 shm_wait_names},
};
TABLE(js_config1, config1);

static const struct jfield config2[] = {
	CK("baud", tp.baud, JK_UINT),
	CK("peer_drop_pct", faults.drop_pct, JK_UINT),
	CK("peer_stall_every", faults.stall_every, JK_U64),
	CK("peer_stall_ns", faults.stall_ns, JK_U64),
	C(runs_auto, JK_BOOL),
	C(min_runs, JK_UINT),
	C(max_runs, JK_UINT),
	C(ci_level, JK_REAL),
	C(ci_pct, JK_REAL),
	C(budget_ns, JK_U64),
	C(interleave, JK_BOOL),
	C(perf, JK_BOOL),
};
#undef C
#undef CK
TABLE(js_config2, config2);

#define S(k, kind, fl)                                                         \
	{                                                                      \
#k, kind, offsetof(struct ipc_side_cost, k), fl, NULL          \
	}
static const struct jfield side[] = {
	S(user_ns, JK_U64, 0),	      S(sys_ns, JK_U64, 0),
	S(vcsw, JK_U64, 0),	      S(ivcsw, JK_U64, 0),
	S(cycles, JK_I64_OPT, 0),     S(instructions, JK_I64_OPT, 0),
	S(migrations, JK_I64_OPT, 0), S(cpu_start, JK_INT_NULL, 0),
	S(cpu_end, JK_INT_NULL, 0),   S(allowed, JK_CHARS, JF_NONZERO),
};
#undef S
TABLE(js_side, side);

#define K(k, kind)                                                             \
	{                                                                      \
#k, kind, offsetof(struct ipc_sock_info, k), 0, NULL           \
	}
static const struct jfield sock[] = {
	K(sndbuf, JK_INT),
	K(rcvbuf, JK_INT),
	K(busy_poll_us, JK_INT),
	K(nodelay, JK_TRI),
};
#undef K
TABLE(js_sock, sock);

/* lost_pct, late and reordered follow (json.c). */
#define O(k)                                                                   \
	{                                                                      \
#k, JK_U64, offsetof(struct ipc_loss, k), 0, NULL              \
	}
static const struct jfield loss[] = {O(sent), O(received), O(lost)};
#undef O
TABLE(js_loss, loss);

/* lag_max_ns follows, in an open loop (json.c). */
#define F(k, kind)                                                             \
	{                                                                      \
#k, kind, offsetof(struct ipc_flows, k), 0, NULL               \
	}
static const struct jfield flows[] = {
	F(flows, JK_U64),
	F(rate_min, JK_REAL),
	F(rate_median, JK_REAL),
	F(rate_max, JK_REAL),
};
#undef F
TABLE(js_flows, flows);

#define P(k, kind, fl)                                                         \
	{                                                                      \
#k, kind, offsetof(struct ipc_cost, k), fl, NULL               \
	}
static const struct jfield cost[] = {
	P(user_ns, JK_REAL, 0),	   P(sys_ns, JK_REAL, 0),
	P(vcsw, JK_REAL, 0),	   P(ivcsw, JK_REAL, 0),
	P(cycles, JK_REAL_OPT, 0), P(instructions, JK_REAL_OPT, 0),
};
#undef P
TABLE(js_cost, cost);

/* loss, a fraction of loss_ppm, comes between the two (json.c). */
#define N(k, kind)                                                             \
	{                                                                      \
#k, kind, offsetof(struct ipc_link, k), 0, NULL                \
	}
static const struct jfield link1[] = {
	N(delay_ns, JK_U64),
	N(jitter_ns, JK_U64),
	N(rate_bps, JK_U64),
	N(bits_per_byte, JK_UINT),
};
TABLE(js_link, link1);

static const struct jfield link2[] = {N(mtu, JK_UINT), N(overhead, JK_UINT)};
#undef N
TABLE(js_link2, link2);

static const struct jfield place[] = {
	{"same_cpu_runs", JK_SIZE, offsetof(struct ipc_diag, same_cpu_runs), 0,
	 NULL},
	{"split_cpu_runs", JK_SIZE, offsetof(struct ipc_diag, split_cpu_runs),
	 0, NULL},
};
TABLE(js_place, place);

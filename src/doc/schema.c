/* SPDX-License-Identifier: MIT */
/*
 * The fields of schema 1 that are a plain value of a C record, object by
 * object, in the order the writer writes them (docs/json.md describes
 * each).  The reader reads the same tables back.
 */
#include <stddef.h>

#include "ipcperf/doc.h"
#include "schema.h"

#define TABLE(name, arr)                                                       \
	const struct ipc_ftable name = {arr, sizeof(arr) / sizeof(arr[0])}

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

const char *const js_load_src_names[] = {
	[IPC_LOAD_SRC_STAT] = "proc-stat",  [IPC_LOAD_SRC_CPUIDLE] = "cpuidle",
	[IPC_LOAD_SRC_CPUACCT] = "cpuacct", [IPC_LOAD_SRC_MIXED] = "mixed",
	[IPC_LOAD_SRC_CGROUP2] = "cgroup2", NULL,
};

static const char *const shm_wait_names[] = {
	[IPC_SHM_FUTEX] = "futex",
	[IPC_SHM_SPIN] = "spin",
	NULL,
};

/* A field @key of the record @type, held in its member @m. */
#define SIZE_OF(type, m) sizeof(((type *)0)->m)
#define FIELD(type, k, m, kd, fl)                                              \
	{                                                                      \
		.key = (k), .kind = (kd), .off = offsetof(type, m),            \
		.flags = (fl), .len = SIZE_OF(type, m)                         \
	}
#define ENUM(type, k, m, fl, nm)                                               \
	{                                                                      \
		.key = (k), .kind = IPC_FK_ENUM, .off = offsetof(type, m),     \
		.flags = (fl), .names = (nm)                                   \
	}

#define L(k, kd) FIELD(struct ipc_lat, #k, k, kd, 0)
static const struct ipc_field lat[] = {
	L(min, IPC_FK_U64),  L(mean, IPC_FK_ROUND), L(stddev, IPC_FK_ROUND),
	L(p50, IPC_FK_U64),  L(p90, IPC_FK_U64),    L(p99, IPC_FK_U64),
	L(p999, IPC_FK_U64), L(max, IPC_FK_U64),
};
#undef L
TABLE(js_lat, lat);

#define R(k, kd) FIELD(struct ipc_run_stats, #k, k, kd, 0)
static const struct ipc_field counts[] = {
	R(iterations, IPC_FK_U64),  R(messages, IPC_FK_U64),
	R(bytes, IPC_FK_U64),	    R(elapsed_ns, IPC_FK_U64),
	R(msgs_per_s, IPC_FK_REAL), R(bytes_per_s, IPC_FK_REAL),
};
TABLE(js_counts, counts);

static const struct ipc_field runload[] = {
	R(busy_ns, IPC_FK_U64),
	R(ours_ns, IPC_FK_U64),
	R(steal_ns, IPC_FK_U64),
	/* Added with the load figure's resolution. */
	FIELD(struct ipc_run_stats, "cpus", load_cpus, IPC_FK_UINT,
	      IPC_FF_OPT | IPC_FF_NONZERO),
	/* Added with cpuidle's idle times; older: proc-stat. */
	ENUM(struct ipc_run_stats, "source", load_src, IPC_FF_OPT,
	     js_load_src_names),
	FIELD(struct ipc_run_stats, "idle_stays", idle_stays, IPC_FK_U64,
	      IPC_FF_OPT | IPC_FF_NONZERO),
	FIELD(struct ipc_run_stats, "kernel_ns", kernel_ns, IPC_FK_U64,
	      IPC_FF_OPT | IPC_FF_NONZERO),
};
#undef R
TABLE(js_runload, runload);

/* As enum ipc_pmqos_state; "unknown" is never written (no object then). */
static const char *const pmqos_names[] = {
	"unknown", "held", "off", "denied", "absent", "failed", NULL,
};

/* host.pm_qos: the CPU latency request while measuring. */
#define Q(k, kd, fl) FIELD(struct ipc_pmqos, #k, k, kd, fl)
static const struct ipc_field pmqos[] = {
	ENUM(struct ipc_pmqos, "state", state, 0, pmqos_names),
	Q(request_us, IPC_FK_INT_NULL, 0),
	Q(before_us, IPC_FK_I64_OPT, IPC_FF_OPT),
	Q(error, IPC_FK_CHARS, IPC_FF_OPT | IPC_FF_NONZERO),
	Q(idle_driver, IPC_FK_CHARS, IPC_FF_OPT | IPC_FF_NONZERO),
};
#undef Q
TABLE(js_pmqos, pmqos);

/*
 * In three parts, around "runs" (0 with --runs auto) and "device" (an
 * array or null), which json_write.c writes.
 */
#define C(k, m, kd) FIELD(struct ipc_runopts, k, m, kd, IPC_FF_OPT)
static const struct ipc_field config[] = {
	C("iterations", iterations, IPC_FK_U64),
	C("duration_ns", duration_ns, IPC_FK_U64),
	C("warmup", warmup, IPC_FK_U64),
};
TABLE(js_config, config);

static const struct ipc_field config1[] = {
	ENUM(struct ipc_runopts, "placement", placement, IPC_FF_OPT,
	     js_placement_names),
	C("verify", verify, IPC_FK_BOOL),
	C("timeout_ns", timeout_ns, IPC_FK_U64),
	C("pin_client", pin_client, IPC_FK_INT_NULL),
	C("pin_server", pin_server, IPC_FK_INT_NULL),
	C("nodelay", tp.nodelay, IPC_FK_BOOL),
	C("sndbuf", tp.sndbuf, IPC_FK_INT),
	C("rcvbuf", tp.rcvbuf, IPC_FK_INT),
	C("busy_poll_us", tp.busy_poll_us, IPC_FK_INT),
	C("shm_bytes", tp.shm_bytes, IPC_FK_SIZE),
	ENUM(struct ipc_runopts, "shm_wait", tp.shm_wait, IPC_FF_OPT,
	     shm_wait_names),
	C("shm_choice", tp.shm_choice, IPC_FK_CHARS),
};
TABLE(js_config1, config1);

static const struct ipc_field config2[] = {
	C("baud", tp.baud, IPC_FK_UINT),
	C("peer_drop_pct", faults.drop_pct, IPC_FK_UINT),
	C("peer_stall_every", faults.stall_every, IPC_FK_U64),
	C("peer_stall_ns", faults.stall_ns, IPC_FK_U64),
	C("runs_auto", runs_auto, IPC_FK_BOOL),
	C("min_runs", min_runs, IPC_FK_UINT),
	C("max_runs", max_runs, IPC_FK_UINT),
	C("ci_level", ci_level, IPC_FK_REAL),
	C("ci_pct", ci_pct, IPC_FK_REAL),
	C("budget_ns", budget_ns, IPC_FK_U64),
	C("interleave", interleave, IPC_FK_BOOL),
	C("perf", perf, IPC_FK_BOOL),
};
#undef C
TABLE(js_config2, config2);

#define S(k, kd, fl) FIELD(struct ipc_side_cost, #k, k, kd, fl)
static const struct ipc_field side[] = {
	S(user_ns, IPC_FK_U64, 0),
	S(sys_ns, IPC_FK_U64, 0),
	S(vcsw, IPC_FK_U64, 0),
	S(ivcsw, IPC_FK_U64, 0),
	S(cycles, IPC_FK_I64_OPT, 0),
	S(instructions, IPC_FK_I64_OPT, 0),
	S(migrations, IPC_FK_I64_OPT, 0),
	S(cpu_start, IPC_FK_INT_NULL, 0),
	S(cpu_end, IPC_FK_INT_NULL, 0),
	S(allowed, IPC_FK_CHARS, IPC_FF_NONZERO),
};
#undef S
TABLE(js_side, side);

#define K(k, kd) FIELD(struct ipc_sock_info, #k, k, kd, 0)
static const struct ipc_field sock[] = {
	K(sndbuf, IPC_FK_INT),
	K(rcvbuf, IPC_FK_INT),
	K(busy_poll_us, IPC_FK_INT),
	K(nodelay, IPC_FK_TRI),
};
#undef K
TABLE(js_sock, sock);

/* lost_pct, late and reordered follow (json_write.c). */
#define O(k) FIELD(struct ipc_loss, #k, k, IPC_FK_U64, 0)
static const struct ipc_field loss[] = {O(sent), O(received), O(lost)};
#undef O
TABLE(js_loss, loss);

/* lag_max_ns follows, in an open loop (json_write.c). */
#define F(k, kd) FIELD(struct ipc_flows, #k, k, kd, 0)
static const struct ipc_field flows[] = {
	F(flows, IPC_FK_U64),
	F(rate_min, IPC_FK_REAL),
	F(rate_median, IPC_FK_REAL),
	F(rate_max, IPC_FK_REAL),
	FIELD(struct ipc_flows, "jain", jain, IPC_FK_REAL, IPC_FF_OPT),
};
#undef F
TABLE(js_flows, flows);

#define P(k, kd) FIELD(struct ipc_cost, #k, k, kd, 0)
static const struct ipc_field cost[] = {
	P(user_ns, IPC_FK_REAL),    P(sys_ns, IPC_FK_REAL),
	P(vcsw, IPC_FK_REAL),	    P(ivcsw, IPC_FK_REAL),
	P(cycles, IPC_FK_REAL_OPT), P(instructions, IPC_FK_REAL_OPT),
};
#undef P
TABLE(js_cost, cost);

/* loss, a fraction of loss_ppm, comes between the two (json_write.c). */
#define N(k, kd) FIELD(struct ipc_link, #k, k, kd, 0)
static const struct ipc_field link1[] = {
	N(delay_ns, IPC_FK_U64),
	N(jitter_ns, IPC_FK_U64),
	N(rate_bps, IPC_FK_U64),
	N(bits_per_byte, IPC_FK_UINT),
};
TABLE(js_link, link1);

static const struct ipc_field link2[] = {N(mtu, IPC_FK_UINT),
					 N(overhead, IPC_FK_UINT)};
#undef N
TABLE(js_link2, link2);

#define D(k) FIELD(struct ipc_diag, #k, k, IPC_FK_SIZE, 0)
static const struct ipc_field place[] = {D(same_cpu_runs), D(split_cpu_runs)};
#undef D
TABLE(js_place, place);

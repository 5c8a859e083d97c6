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
		.key = (k), .kind = JK_ENUM, .off = offsetof(type, m),         \
		.flags = (fl), .names = (nm)                                   \
	}

#define L(k, kd) FIELD(struct ipc_lat, #k, k, kd, 0)
static const struct jfield lat[] = {
	L(min, JK_U64), L(mean, JK_ROUND), L(stddev, JK_ROUND), L(p50, JK_U64),
	L(p90, JK_U64), L(p99, JK_U64),	   L(p999, JK_U64),	L(max, JK_U64),
};
#undef L
TABLE(js_lat, lat);

#define R(k, kd) FIELD(struct ipc_run_stats, #k, k, kd, 0)
static const struct jfield counts[] = {
	R(iterations, JK_U64), R(messages, JK_U64),    R(bytes, JK_U64),
	R(elapsed_ns, JK_U64), R(msgs_per_s, JK_REAL), R(bytes_per_s, JK_REAL),
};
TABLE(js_counts, counts);

static const struct jfield runload[] = {
	R(busy_ns, JK_U64),
	R(ours_ns, JK_U64),
	R(steal_ns, JK_U64),
	/* Added with the load figure's resolution. */
	FIELD(struct ipc_run_stats, "cpus", load_cpus, JK_UINT,
	      JF_OPT | JF_NONZERO),
	/* Added with cpuidle's idle times; older: proc-stat. */
	ENUM(struct ipc_run_stats, "source", load_src, JF_OPT,
	     js_load_src_names),
	FIELD(struct ipc_run_stats, "idle_stays", idle_stays, JK_U64,
	      JF_OPT | JF_NONZERO),
	FIELD(struct ipc_run_stats, "kernel_ns", kernel_ns, JK_U64,
	      JF_OPT | JF_NONZERO),
};
#undef R
TABLE(js_runload, runload);

#define H(k, kd, fl) FIELD(struct ipc_host, #k, k, kd, fl)
static const struct jfield host[] = {
	H(kernel, JK_CHARS, 0), H(machine, JK_CHARS, 0),
	H(hostname, JK_CHARS, 0), H(cpu_model, JK_CHARS, 0), H(cpus, JK_INT, 0),
	H(timer_ns, JK_U64, 0),
	/* The fingerprint added with the noise diagnosis. */
	H(cores, JK_INT_NULL, JF_OPT), H(packages, JK_INT_NULL, JF_OPT),
	H(smt, JK_TRI, JF_OPT), H(mem_bytes, JK_U64, JF_OPT | JF_NONZERO),
	H(hypervisor, JK_BOOL, JF_OPT),
	FIELD(struct ipc_host, "virtualization", virt, JK_CHARS_NULL, JF_OPT),
	H(clocksource, JK_CHARS, JF_OPT | JF_NONZERO),
	FIELD(struct ipc_host, "cpufreq_governor", governor, JK_CHARS,
	      JF_OPT | JF_NONZERO),
	/* loadavg and perf follow, then started: json_write.c */
};
#undef H
TABLE(js_host, host);

/* As enum ipc_pmqos_state; "unknown" is never written (no object then). */
static const char *const pmqos_names[] = {
	"unknown", "held", "off", "denied", "absent", "failed", NULL,
};

/* host.pm_qos: the CPU latency request while measuring. */
#define Q(k, kd, fl) FIELD(struct ipc_pmqos, #k, k, kd, fl)
static const struct jfield pmqos[] = {
	ENUM(struct ipc_pmqos, "state", state, 0, pmqos_names),
	Q(request_us, JK_INT_NULL, 0),
	Q(before_us, JK_I64_OPT, JF_OPT),
	Q(error, JK_CHARS, JF_OPT | JF_NONZERO),
};
#undef Q
TABLE(js_pmqos, pmqos);

/*
 * In three parts, around "runs" (0 with --runs auto) and "device" (an
 * array or null), which json_write.c writes.
 */
#define C(k, m, kd) FIELD(struct ipc_runopts, k, m, kd, JF_OPT)
static const struct jfield config[] = {
	C("iterations", iterations, JK_U64),
	C("duration_ns", duration_ns, JK_U64),
	C("warmup", warmup, JK_U64),
};
TABLE(js_config, config);

static const struct jfield config1[] = {
	ENUM(struct ipc_runopts, "placement", placement, JF_OPT,
	     js_placement_names),
	C("verify", verify, JK_BOOL),
	C("timeout_ns", timeout_ns, JK_U64),
	C("pin_client", pin_client, JK_INT_NULL),
	C("pin_server", pin_server, JK_INT_NULL),
	C("nodelay", tp.nodelay, JK_BOOL),
	C("sndbuf", tp.sndbuf, JK_INT),
	C("rcvbuf", tp.rcvbuf, JK_INT),
	C("busy_poll_us", tp.busy_poll_us, JK_INT),
	C("shm_bytes", tp.shm_bytes, JK_SIZE),
	ENUM(struct ipc_runopts, "shm_wait", tp.shm_wait, JF_OPT,
	     shm_wait_names),
	C("shm_choice", tp.shm_choice, JK_CHARS),
};
TABLE(js_config1, config1);

static const struct jfield config2[] = {
	C("baud", tp.baud, JK_UINT),
	C("peer_drop_pct", faults.drop_pct, JK_UINT),
	C("peer_stall_every", faults.stall_every, JK_U64),
	C("peer_stall_ns", faults.stall_ns, JK_U64),
	C("runs_auto", runs_auto, JK_BOOL),
	C("min_runs", min_runs, JK_UINT),
	C("max_runs", max_runs, JK_UINT),
	C("ci_level", ci_level, JK_REAL),
	C("ci_pct", ci_pct, JK_REAL),
	C("budget_ns", budget_ns, JK_U64),
	C("interleave", interleave, JK_BOOL),
	C("perf", perf, JK_BOOL),
};
#undef C
TABLE(js_config2, config2);

#define S(k, kd, fl) FIELD(struct ipc_side_cost, #k, k, kd, fl)
static const struct jfield side[] = {
	S(user_ns, JK_U64, 0),	      S(sys_ns, JK_U64, 0),
	S(vcsw, JK_U64, 0),	      S(ivcsw, JK_U64, 0),
	S(cycles, JK_I64_OPT, 0),     S(instructions, JK_I64_OPT, 0),
	S(migrations, JK_I64_OPT, 0), S(cpu_start, JK_INT_NULL, 0),
	S(cpu_end, JK_INT_NULL, 0),   S(allowed, JK_CHARS, JF_NONZERO),
};
#undef S
TABLE(js_side, side);

#define K(k, kd) FIELD(struct ipc_sock_info, #k, k, kd, 0)
static const struct jfield sock[] = {
	K(sndbuf, JK_INT),
	K(rcvbuf, JK_INT),
	K(busy_poll_us, JK_INT),
	K(nodelay, JK_TRI),
};
#undef K
TABLE(js_sock, sock);

/* lost_pct, late and reordered follow (json_write.c). */
#define O(k) FIELD(struct ipc_loss, #k, k, JK_U64, 0)
static const struct jfield loss[] = {O(sent), O(received), O(lost)};
#undef O
TABLE(js_loss, loss);

/* lag_max_ns follows, in an open loop (json_write.c). */
#define F(k, kd) FIELD(struct ipc_flows, #k, k, kd, 0)
static const struct jfield flows[] = {
	F(flows, JK_U64),
	F(rate_min, JK_REAL),
	F(rate_median, JK_REAL),
	F(rate_max, JK_REAL),
	FIELD(struct ipc_flows, "jain", jain, JK_REAL, JF_OPT),
};
#undef F
TABLE(js_flows, flows);

#define P(k, kd) FIELD(struct ipc_cost, #k, k, kd, 0)
static const struct jfield cost[] = {
	P(user_ns, JK_REAL),	P(sys_ns, JK_REAL),
	P(vcsw, JK_REAL),	P(ivcsw, JK_REAL),
	P(cycles, JK_REAL_OPT), P(instructions, JK_REAL_OPT),
};
#undef P
TABLE(js_cost, cost);

/* loss, a fraction of loss_ppm, comes between the two (json_write.c). */
#define N(k, kd) FIELD(struct ipc_link, #k, k, kd, 0)
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

#define D(k) FIELD(struct ipc_diag, #k, k, JK_SIZE, 0)
static const struct jfield place[] = {D(same_cpu_runs), D(split_cpu_runs)};
#undef D
TABLE(js_place, place);

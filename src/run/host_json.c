/* SPDX-License-Identifier: MIT */
/*
 * The host's fingerprint as JSON, written in one place for both who write
 * it: a result document's "host" (src/doc/json_write.c) and what a server
 * sends of itself at the end of a test (src/remote/test.c), which the
 * client keeps as its result's peer.host.  The peer's form is flat (the
 * protocol takes at most 40 scalars) and leaves out what is unknown; the
 * document's writes null for unknown and adds the load averages and the
 * perf counters.
 */
#include <errno.h>
#include <stddef.h>

#include "base/field.h"
#include "run/lib_internal.h"

#define TABLE(name, arr)                                                       \
	const struct ipc_ftable name = {arr, sizeof(arr) / sizeof(arr[0])}
#define H(k, m, kd, fl)                                                        \
	{                                                                      \
		.key = (k), .kind = (kd), .off = offsetof(struct ipc_host, m), \
		.flags = (fl), .len = sizeof(((struct ipc_host *)0)->m)        \
	}

/* In the order the document has always been written. */
static const struct ipc_field doc[] = {
	H("kernel", kernel, IPC_FK_CHARS, 0),
	H("machine", machine, IPC_FK_CHARS, 0),
	H("hostname", hostname, IPC_FK_CHARS, 0),
	H("cpu_model", cpu_model, IPC_FK_CHARS, 0),
	H("cpus", cpus, IPC_FK_INT, 0),
	H("timer_ns", timer_ns, IPC_FK_U64, 0),
	/* The fingerprint added with the noise diagnosis. */
	H("cores", cores, IPC_FK_INT_NULL, IPC_FF_OPT),
	H("packages", packages, IPC_FK_INT_NULL, IPC_FF_OPT),
	H("smt", smt, IPC_FK_TRI, IPC_FF_OPT),
	H("mem_bytes", mem_bytes, IPC_FK_U64, IPC_FF_OPT | IPC_FF_NONZERO),
	H("hypervisor", hypervisor, IPC_FK_BOOL, IPC_FF_OPT),
	H("virtualization", virt, IPC_FK_CHARS_NULL, IPC_FF_OPT),
	H("clocksource", clocksource, IPC_FK_CHARS,
	  IPC_FF_OPT | IPC_FF_NONZERO),
	H("cpufreq_governor", governor, IPC_FK_CHARS,
	  IPC_FF_OPT | IPC_FF_NONZERO),
};
TABLE(ipc_host_fields, doc);

#define NZ IPC_FF_NONZERO
static const struct ipc_field peer[] = {
	H("hostname", hostname, IPC_FK_CHARS, 0),
	H("kernel", kernel, IPC_FK_CHARS, 0),
	H("machine", machine, IPC_FK_CHARS, 0),
	H("cpus", cpus, IPC_FK_INT, 0),
	H("cpu_model", cpu_model, IPC_FK_CHARS, NZ),
	H("cores", cores, IPC_FK_INT_NULL, NZ),
	H("mem_bytes", mem_bytes, IPC_FK_U64, NZ),
	H("virtualization", virt, IPC_FK_CHARS, NZ),
	H("clocksource", clocksource, IPC_FK_CHARS, NZ),
	H("cpufreq_governor", governor, IPC_FK_CHARS, NZ),
	H("timer_ns", timer_ns, IPC_FK_U64, 0),
};
#undef NZ
static TABLE(peer_fields, peer);

static int set(json_t *o, const char *key, json_t *v)
{
	return !v || json_object_set_new(o, key, v) < 0 ? -ENOMEM : 0;
}

/* The document's extras: the load averages, then what perf can count. */
static int put_doc(json_t *o, const struct ipc_host *h)
{
	json_t *la, *perf;
	int rc = 0;

	if (h->loadavg[0] >= 0) {
		la = json_array();
		for (int i = 0; la && i < 3 && !rc; i++)
			rc = json_array_append_new(la, json_real(h->loadavg[i]))
				     ? -ENOMEM
				     : 0;
		rc = rc ? rc : set(o, IPC_HOST_KEY_LOADAVG, la);
	}
	perf = json_object();
	if (rc || !perf) {
		json_decref(perf);
		return -ENOMEM;
	}
	rc = set(perf, IPC_HOST_KEY_CYCLES, json_boolean(h->perf_hw));
	rc = rc ? rc : set(perf, IPC_HOST_KEY_INS, json_boolean(h->perf_hw));
	rc = rc ? rc : set(perf, IPC_HOST_KEY_MIGR, json_boolean(h->perf_sw));
	if (!rc && h->perf[0])
		rc = set(perf, IPC_HOST_KEY_NOTE, ipc_json_str(h->perf));
	if (rc) {
		json_decref(perf);
		return rc;
	}
	return set(o, IPC_HOST_KEY_PERF, perf);
}

/* The peer's extras: the 1-minute load, and its side of --pm-qos. */
static int put_peer(json_t *o, const struct ipc_host *h)
{
	const char *q = ipc_pmqos_state_name(h->pm_qos.state);
	int rc = 0;

	if (h->loadavg[0] >= 0)
		rc = set(o, "loadavg_1m", json_real(h->loadavg[0]));
	if (!rc && q)
		rc = set(o, "pm_qos", json_string(q));
	if (!rc && h->pm_qos.request_us >= 0)
		rc = set(o, "pm_qos_request_us",
			 json_integer(h->pm_qos.request_us));
	return rc;
}

int ipc_host_put(struct json_t *o, const struct ipc_host *h,
		 enum ipc_host_form form)
{
	int rc = ipc_ftable_put(
		o, h, form == IPC_HOST_PEER ? &peer_fields : &ipc_host_fields);

	if (rc)
		return rc;
	return form == IPC_HOST_PEER ? put_peer(o, h) : put_doc(o, h);
}

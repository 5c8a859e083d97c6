/* SPDX-License-Identifier: MIT */
/*
 * The host's fingerprint beyond kernel and CPU model: cores and SMT,
 * memory, virtualization, clock source, frequency governor, load, which
 * perf counters can be read, and when the measurement started and ended.
 * Everything is read from /proc and /sys; what cannot be read stays -1 or
 * empty, never a guess.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run_internal.h"
#include "run/lib_internal.h"

/* The first line of @path without its newline, or "" (returns false). */
static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	buf[0] = '\0';
	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok) {
		buf[0] = '\0';
		return false;
	}
	buf[strcspn(buf, "\n")] = '\0';
	return true;
}

static long read_long(const char *path)
{
	char buf[64], *end;
	long v;

	if (!read_line(path, buf, sizeof(buf)) || !buf[0])
		return -1;
	v = strtol(buf, &end, 10);
	return end == buf ? -1 : v;
}

/*
 * Physical cores and packages from each online CPU's topology: distinct
 * (package, core) pairs.  SMT from /sys/devices/system/cpu/smt/active, or
 * from there being more logical CPUs than cores.
 */
static void topology(struct ipc_host *h)
{
	enum { MAXCPU = 4096 };
	long *pkg = calloc(MAXCPU, sizeof(long));
	long *core = calloc(MAXCPU, sizeof(long));
	char path[128];
	int n = 0, pkgs = 0, missing = 0, i, k;
	long smt, p, c;

	h->cores = h->packages = h->smt = -1;
	if (!pkg || !core)
		goto out;
	/* CPU numbers may have holes (offline CPUs); 64 in a row end it. */
	for (i = 0; i < MAXCPU && missing < 64; i++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/core_id", i);
		c = read_long(path);
		if (c < 0) {
			missing++;
			continue;
		}
		missing = 0;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/"
			 "physical_package_id",
			 i);
		p = read_long(path);
		for (k = 0; k < n && !(pkg[k] == p && core[k] == c); k++)
			;
		if (k < n)
			continue; /* an SMT sibling of a core already seen */
		for (k = 0; k < n && pkg[k] != p; k++)
			;
		pkgs += k == n;
		pkg[n] = p;
		core[n++] = c;
	}
	if (n) {
		h->cores = n;
		h->packages = pkgs;
	}
	smt = read_long("/sys/devices/system/cpu/smt/active");
	if (smt >= 0)
		h->smt = smt > 0;
	else if (n && h->cpus > 0)
		h->smt = h->cpus > n;
out:
	free(pkg);
	free(core);
}

static void memory(struct ipc_host *h)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[256];
	unsigned long long kb;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1) {
			h->mem_bytes = kb * 1024;
			break;
		}
	fclose(f);
}

/* Does /proc/cpuinfo's flags line hold the word "hypervisor"? */
static bool cpu_hypervisor(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[4096];
	bool yes = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		yes = strstr(line, " hypervisor") != NULL;
		break;
	}
	fclose(f);
	return yes;
}

/* Lower-case words from DMI naming well-known hypervisors. */
static const char *dmi_virt(void)
{
	static const struct {
		const char *needle, *name;
	} known[] = {
		{"KVM", "kvm"},
		{"QEMU", "qemu"},
		{"VMware", "vmware"},
		{"VirtualBox", "oracle"},
		{"Microsoft", "microsoft"},
		{"Xen", "xen"},
		{"Amazon EC2", "amazon"},
		{"Google", "google"},
		{"Firecracker", "firecracker"},
	};
	static const char *const files[] = {
		"/sys/class/dmi/id/sys_vendor",
		"/sys/class/dmi/id/product_name",
		"/sys/class/dmi/id/bios_vendor",
	};
	char buf[128];
	size_t f, k;

	for (f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		if (!read_line(files[f], buf, sizeof(buf)))
			continue;
		for (k = 0; k < sizeof(known) / sizeof(known[0]); k++)
			if (strstr(buf, known[k].needle))
				return known[k].name;
	}
	return NULL;
}

/* A container, from the marks the usual runtimes leave. */
static const char *container(void)
{
	char buf[64];

	if (!access("/.dockerenv", F_OK))
		return "docker";
	if (!access("/run/.containerenv", F_OK))
		return "podman";
	if (read_line("/run/systemd/container", buf, sizeof(buf)) && buf[0])
		return strstr(buf, "lxc") ? "lxc" : "container";
	return NULL;
}

static void virtualization(struct ipc_host *h)
{
	const char *vm = dmi_virt(), *ct = container();
	char xen[32];

	h->hypervisor = cpu_hypervisor();
	if (!vm && read_line("/sys/hypervisor/type", xen, sizeof(xen)) &&
	    xen[0])
		vm = "xen";
	if (!vm && h->hypervisor)
		vm = "vm";
	if (vm && ct)
		snprintf(h->virt, sizeof(h->virt), "%s, %s", vm, ct);
	else if (vm || ct)
		snprintf(h->virt, sizeof(h->virt), "%s", vm ? vm : ct);
}

static void utc_now(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;

	buf[0] = '\0';
	if (clock_gettime(CLOCK_REALTIME, &ts) || !gmtime_r(&ts.tv_sec, &tm))
		return;
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

double ipc_loadavg_1m(void)
{
	char buf[128];
	double v;

	if (!read_line("/proc/loadavg", buf, sizeof(buf)) ||
	    sscanf(buf, "%lf", &v) != 1)
		return -1;
	return v;
}

void host_fingerprint(struct ipc_host *h)
{
	char buf[128];

	utc_now(h->started, sizeof(h->started));
	h->started_ns = ipc_now_ns();
	topology(h);
	memory(h);
	virtualization(h);
	read_line("/sys/devices/system/clocksource/clocksource0/"
		  "current_clocksource",
		  h->clocksource, sizeof(h->clocksource));
	read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
		  h->governor, sizeof(h->governor));
	h->loadavg[0] = h->loadavg[1] = h->loadavg[2] = -1;
	if (read_line("/proc/loadavg", buf, sizeof(buf)))
		sscanf(buf, "%lf %lf %lf", &h->loadavg[0], &h->loadavg[1],
		       &h->loadavg[2]);
	cost_probe(&h->perf_hw, &h->perf_sw, h->perf, sizeof(h->perf));
}

void ipc_host_finish(struct ipc_host *h)
{
	utc_now(h->ended, sizeof(h->ended));
	h->ended_ns = ipc_now_ns();
}

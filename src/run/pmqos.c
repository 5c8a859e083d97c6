/* SPDX-License-Identifier: MIT */
/*
 * The CPU latency request a measurement holds while it runs: an open
 * /dev/cpu_dma_latency with a 32-bit number of microseconds written to
 * it, withdrawn by the kernel when the descriptor closes.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipcperf/run.h"
#include "run/lib_internal.h"

static const char *const names[] = {
	[IPC_PMQOS_UNKNOWN] = NULL,    [IPC_PMQOS_HELD] = "held",
	[IPC_PMQOS_OFF] = "off",       [IPC_PMQOS_DENIED] = "denied",
	[IPC_PMQOS_ABSENT] = "absent", [IPC_PMQOS_FAILED] = "failed",
};

const char *ipc_pmqos_state_name(int state)
{
	if (state < 0 || (size_t)state >= sizeof(names) / sizeof(names[0]))
		return NULL;
	return names[state];
}

/* Why an open of the device failed, as a state. */
static int open_state(int err)
{
	switch (err) {
	case ENOENT:
	case ENODEV:
	case ENXIO:
	case ENOTDIR:
		return IPC_PMQOS_ABSENT;
	case EACCES:
	case EPERM:
	case EROFS:
		return IPC_PMQOS_DENIED;
	default:
		return IPC_PMQOS_FAILED;
	}
}

static int not_held(struct ipc_pmqos *q, int state, int err)
{
	q->state = state;
	snprintf(q->error, sizeof(q->error), "%s", strerror(err));
	return -err;
}

/*
 * The device is a character device.  The one other thing taken in its
 * place is the tests' stand-in, an empty regular file of the user's own:
 * whoever sets the path (an environment variable) must not be able to
 * have 4 bytes written over a file that holds anything.
 */
static bool device_ok(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return false;
	return S_ISCHR(st.st_mode) || (S_ISREG(st.st_mode) && st.st_size == 0 &&
				       st.st_uid == geteuid());
}

/* The cpuidle driver's name into q->idle_driver, "" if unreadable. */
static void idle_driver(struct ipc_pmqos *q, const char *file)
{
	FILE *f = fopen(file ? file : IPC_CPUIDLE_DRIVER_FILE, "re");
	size_t n;

	q->idle_driver[0] = '\0';
	if (!f)
		return;
	if (fgets(q->idle_driver, sizeof(q->idle_driver), f)) {
		n = strcspn(q->idle_driver, "\n");
		q->idle_driver[n] = '\0';
		/* A name is printable; anything else is not one. */
		for (size_t i = 0; i < n; i++)
			if (q->idle_driver[i] < 0x21 ||
			    q->idle_driver[i] > 0x7e) {
				q->idle_driver[0] = '\0';
				break;
			}
	}
	fclose(f);
}

int ipc_pmqos_hold(struct ipc_pmqos *q, const char *path, int us,
		   const char *driver_file)
{
	int32_t v = us, cur;
	ssize_t n;
	int fd, err;

	memset(q, 0, sizeof(*q));
	q->fd = -1;
	q->before_us = -1;
	q->request_us = us < 0 ? -1 : us;
	idle_driver(q, driver_file);
	if (us < 0) {
		q->state = IPC_PMQOS_OFF;
		return 0;
	}
	/* Non-blocking: a FIFO put there must not hold the program up. */
	fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return not_held(q, open_state(errno), errno);
	if (!device_ok(fd)) {
		close(fd);
		return not_held(q, IPC_PMQOS_FAILED, ENODEV);
	}
	/*
	 * Reading gives the effective value: 2000000000 (2000 s) when no
	 * process holds a request.  A regular file (the tests' stand-in)
	 * reads as empty.
	 */
	do
		n = read(fd, &cur, sizeof(cur));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(cur) && cur >= 0)
		q->before_us = cur;
	do
		n = write(fd, &v, sizeof(v));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(v)) {
		q->fd = fd;
		q->state = IPC_PMQOS_HELD;
		return 0;
	}
	err = n < 0 ? errno : EIO;
	close(fd);
	return not_held(q, IPC_PMQOS_FAILED, err);
}

void ipc_pmqos_release(struct ipc_pmqos *q)
{
	if (q->state != IPC_PMQOS_HELD || q->fd < 0)
		return;
	close(q->fd);
	q->fd = -1;
}

char *ipc_pmqos_words(const struct ipc_pmqos *q, char *buf, size_t len)
{
	const char *why = q->error[0] ? q->error : "unknown error";
	size_t n;

	switch (q->state) {
	case IPC_PMQOS_HELD:
		if (!strcmp(q->idle_driver, "none")) {
			snprintf(buf, len,
				 "the PM QoS request (%d µs on "
				 "/dev/cpu_dma_latency) was held, but this "
				 "kernel has no cpuidle driver to read it: "
				 "idle CPUs ran the kernel's default idle "
				 "routine, as with --pm-qos off",
				 q->request_us);
			return buf;
		}
		if (q->request_us == 0)
			n = (size_t)snprintf(buf, len,
					     "the CPUs polled instead of "
					     "halting while measuring (PM QoS "
					     "request 0 µs on "
					     "/dev/cpu_dma_latency): no "
					     "wake-up from deep idle in these "
					     "figures");
		else
			n = (size_t)snprintf(buf, len,
					     "the CPUs were kept out of idle "
					     "states slower than %d µs to "
					     "leave while measuring (PM QoS "
					     "request on /dev/cpu_dma_latency)",
					     q->request_us);
		if (n < len && q->before_us >= 0 &&
		    q->before_us < IPC_PMQOS_MAX_US)
			n += (size_t)snprintf(buf + n, len - n,
					      "; another process held %lld µs",
					      (long long)q->before_us);
		if (n < len)
			snprintf(buf + n, len - n,
				 "; --pm-qos off: the machine's own idle "
				 "policy");
		return buf;
	case IPC_PMQOS_OFF:
		snprintf(buf, len,
			 "the machine's own idle policy (--pm-qos "
			 "off)");
		return buf;
	case IPC_PMQOS_DENIED:
		snprintf(buf, len,
			 "the machine's own idle policy: the PM QoS request "
			 "(%d µs) was not held, /dev/cpu_dma_latency: %s (it "
			 "needs root)",
			 q->request_us, why);
		return buf;
	case IPC_PMQOS_ABSENT:
		snprintf(buf, len,
			 "the machine's own idle policy: the PM QoS request "
			 "(%d µs) was not held, this system has no "
			 "/dev/cpu_dma_latency",
			 q->request_us);
		return buf;
	case IPC_PMQOS_FAILED:
		snprintf(buf, len,
			 "the machine's own idle policy: the PM QoS request "
			 "(%d µs) was not held, /dev/cpu_dma_latency: %s",
			 q->request_us, why);
		return buf;
	default:
		return NULL; /* a document from before it was recorded */
	}
}

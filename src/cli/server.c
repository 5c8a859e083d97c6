/* SPDX-License-Identifier: MIT */
/*
 * `ipcperf server`: load the key, start the remote layer's server, print
 * each of its events as a line (a table line or one JSON object), and turn
 * SIGINT, SIGTERM and SIGHUP into a stop of that server.
 */
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"

/* The server the signal handlers stop (the CLI's only global). */
static struct ipc_server *volatile running;

static void on_signal(int sig)
{
	(void)sig;
	if (running)
		ipc_server_stop(running);
}

static int handlers(void)
{
	struct sigaction sa = {.sa_handler = on_signal};
	int sigs[] = {SIGINT, SIGTERM, SIGHUP};

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], &sa, NULL))
			return -errno;
	sa.sa_handler = SIG_IGN;
	return sigaction(SIGPIPE, &sa, NULL) ? -errno : 0;
}

static void utc_now(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static const char *kind_name(enum ipc_server_event_kind k)
{
	static const char *const names[] = {
		[IPC_SEV_LISTENING] = "listening",
		[IPC_SEV_TEST] = "test",
		[IPC_SEV_REFUSED] = "refused",
		[IPC_SEV_STOPPED] = "stopped",
	};

	return names[k];
}

static void event_json(const struct ipc_server_event *ev)
{
	json_t *o = json_object();
	char when[32];
	char *line;

	utc_now(when, sizeof(when));
	json_object_set_new(o, "event", json_string(kind_name(ev->kind)));
	json_object_set_new(o, "time", json_string(when));
	switch (ev->kind) {
	case IPC_SEV_LISTENING:
		json_object_set_new(o, "address", json_string(ev->addr));
		json_object_set_new(o, "auth",
				    json_boolean(!strcmp(ev->status, "key")));
		json_object_set_new(o, "proto", json_integer(IPC_REMOTE_PROTO));
		break;
	case IPC_SEV_TEST:
		json_object_set_new(o, "id",
				    json_integer((json_int_t)ev->test_id));
		json_object_set_new(o, "client", json_string(ev->addr));
		json_object_set_new(o, "pattern",
				    json_string(ev->test.pattern));
		json_object_set_new(o, "transport",
				    json_string(ev->test.transport));
		json_object_set_new(o, "engine", json_string(ev->test.engine));
		json_object_set_new(o, "status", json_string(ev->status));
		if (ev->reason[0])
			json_object_set_new(o, "error",
					    json_string(ev->reason));
		json_object_set_new(o, "runs",
				    json_integer((json_int_t)ev->runs));
		json_object_set_new(o, "duration_ns",
				    json_integer((json_int_t)ev->duration_ns));
		json_object_set_new(o, "others_max",
				    json_integer((json_int_t)ev->others_max));
		json_object_set_new(o, "shared",
				    json_boolean(ev->others_max > 0));
		json_object_set_new(o, "rejected",
				    json_integer((json_int_t)ev->rejected));
		break;
	case IPC_SEV_REFUSED:
		json_object_set_new(o, "client", json_string(ev->addr));
		json_object_set_new(o, "code", json_string(ev->status));
		json_object_set_new(o, "reason", json_string(ev->reason));
		break;
	case IPC_SEV_STOPPED:
		json_object_set_new(o, "reason", json_string(ev->reason));
		break;
	}
	line = json_dumps(o, JSON_COMPACT);
	if (line)
		printf("%s\n", line);
	free(line);
	json_decref(o);
}

static void event_table(const struct ipc_server_event *ev)
{
	switch (ev->kind) {
	case IPC_SEV_LISTENING:
		printf("listening on %s (protocol %d, %s)\n", ev->addr,
		       IPC_REMOTE_PROTO,
		       !strcmp(ev->status, "key") ? "clients need the key"
						  : "no key: any client");
		break;
	case IPC_SEV_TEST:
		printf("test %llu from %s: %s %s %s: %s, %llu run%s, %.3f s",
		       (unsigned long long)ev->test_id, ev->addr,
		       ev->test.pattern, ev->test.transport, ev->test.engine,
		       ev->status, (unsigned long long)ev->runs,
		       ev->runs == 1 ? "" : "s", ev->duration_ns / 1e9);
		if (ev->others_max)
			printf(", shared with up to %llu other test%s",
			       (unsigned long long)ev->others_max,
			       ev->others_max == 1 ? "" : "s");
		if (ev->rejected)
			printf(", %llu data connection%s refused (cookie)",
			       (unsigned long long)ev->rejected,
			       ev->rejected == 1 ? "" : "s");
		if (ev->reason[0])
			printf(": %s", ev->reason);
		printf("\n");
		break;
	case IPC_SEV_REFUSED:
		printf("refused %s (%s): %s\n", ev->addr, ev->status,
		       ev->reason);
		break;
	case IPC_SEV_STOPPED:
		printf("stopping: %s\n", ev->reason);
		break;
	}
}

/* Event lines that could not be written (stdout failed). */
static unsigned long lost;

static void on_event(void *arg, const struct ipc_server_event *ev)
{
	const struct cli_config *c = arg;

	if (!strcmp(c->format, "json"))
		event_json(ev);
	else
		event_table(ev);
	/*
	 * A log read as it is written, by a person or an orchestrator; one
	 * that cannot be written (a full disk) is said at once, once, and
	 * how many lines were lost at the end.
	 */
	errno = 0;
	if (fflush(stdout) == EOF || ferror(stdout)) {
		if (!lost)
			cli_warn("cannot write the event log to standard "
				 "output: %s; the server goes on, its events "
				 "are lost",
				 strerror(errno ? errno : EIO));
		lost++;
	}
}

int cli_server(const struct cli_config *c)
{
	struct ipc_server_conf conf;
	struct ipc_server *s = NULL;
	struct ipc_rkey key;
	char why[256], software[64];
	int rc;

	ipc_server_conf_default(&conf);
	if (c->key_file) {
		rc = ipc_rkey_load(c->key_file, &key, why, sizeof(why));
		if (rc)
			return usage_error("make a key with: head -c 32 "
					   "/dev/urandom > FILE; chmod 600 "
					   "FILE",
					   "--key: %s", why);
		conf.key = &key;
	}
	snprintf(software, sizeof(software), "ipcperf %s", IPCPERF_VERSION);
	conf.listen = c->listen;
	conf.nlisten = c->nlisten;
	conf.once = c->once;
	conf.idle_timeout_ns = c->idle_timeout_ns;
	conf.max_duration_ns = c->max_duration_ns;
	conf.control_timeout_ns = c->control_timeout_ns;
	conf.max_test_ns = c->max_test_ns;
	conf.max_clients = (unsigned)c->max_clients;
	conf.software = software;
	conf.pm_qos_us = c->pm_qos_us;
	conf.pm_qos_device = cli_pmqos_device();
	conf.on_event = on_event;
	conf.event_arg = (void *)c;
	/* Room for many idle connections before the oldest is dropped. */
	ipc_nofile_raise(NULL);
	rc = handlers();
	if (!rc)
		rc = ipc_server_new(&conf, &s, why, sizeof(why));
	if (rc == -EADDRINUSE || rc == -EINVAL || rc == -EHOSTUNREACH ||
	    rc == -EADDRNOTAVAIL || rc == -EAFNOSUPPORT || rc == -EACCES ||
	    rc == -ENAMETOOLONG || rc == -E2BIG) {
		rc = usage_error("give --listen ADDR[:PORT] with an address of "
				 "this host and a free port",
				 "%s", why);
		goto out;
	}
	if (rc) {
		cli_error("server: %s", why);
		rc = EXIT_MEASURE;
		goto out;
	}
	running = s;
	rc = ipc_server_run(s);
	running = NULL;
	if (rc) {
		cli_error("server: %s", strerror(-rc));
		rc = EXIT_MEASURE;
	}
	if (lost)
		cli_error("server: %lu event line%s could not be written to "
			  "standard output",
			  lost, lost == 1 ? "" : "s");
out:
	ipc_server_free(s);
	if (conf.key)
		ipc_rkey_wipe(&key);
	return rc;
}

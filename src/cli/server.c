/* SPDX-License-Identifier: MIT */
/*
 * `ipcperf server`: load the key, start the remote layer's server, print
 * each of its events as a line (a table line or one JSON object) to
 * stdout, a file or syslog, and turn SIGINT, SIGTERM and SIGHUP into a
 * stop of that server.  With --daemon it detaches once listening; with
 * --pidfile its pid is in a file for as long as it runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "base/lib_internal.h"
#include "remote/lib_internal.h"

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

/* Where the event lines go: a stream (stdout, --log FILE) or syslog. */
struct sink {
	FILE *fp; /* NULL: syslog */
	bool json;
};

static void event_json(FILE *out, const struct ipc_server_event *ev)
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
		if (ev->test.reverse)
			json_object_set_new(o, "reverse", json_true());
		if (ev->test.bitrate_bps)
			json_object_set_new(
				o, "bitrate_bps",
				json_integer((json_int_t)ev->test.bitrate_bps));
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
		fprintf(out, "%s\n", line);
	free(line);
	json_decref(o);
}

static void event_table(FILE *out, const struct ipc_server_event *ev)
{
	switch (ev->kind) {
	case IPC_SEV_LISTENING:
		fprintf(out, "listening on %s (protocol %d, %s)\n", ev->addr,
			IPC_REMOTE_PROTO,
			!strcmp(ev->status, "key") ? "clients need the key"
						   : "no key: any client");
		break;
	case IPC_SEV_TEST:
		fprintf(out,
			"test %llu from %s: %s %s %s: %s, %llu run%s, %.3f s",
			(unsigned long long)ev->test_id, ev->addr,
			ev->test.pattern, ev->test.transport, ev->test.engine,
			ev->status, (unsigned long long)ev->runs,
			ev->runs == 1 ? "" : "s", ev->duration_ns / 1e9);
		if (ev->test.reverse)
			fprintf(out, ", the server sending (-R)");
		if (ev->test.bitrate_bps)
			fprintf(out, ", paced at %llu bit/s",
				(unsigned long long)ev->test.bitrate_bps);
		if (ev->others_max)
			fprintf(out, ", shared with up to %llu other test%s",
				(unsigned long long)ev->others_max,
				ev->others_max == 1 ? "" : "s");
		if (ev->rejected)
			fprintf(out,
				", %llu data connection%s refused (cookie)",
				(unsigned long long)ev->rejected,
				ev->rejected == 1 ? "" : "s");
		if (ev->reason[0])
			fprintf(out, ": %s", ev->reason);
		fprintf(out, "\n");
		break;
	case IPC_SEV_REFUSED:
		fprintf(out, "refused %s (%s): %s\n", ev->addr, ev->status,
			ev->reason);
		break;
	case IPC_SEV_STOPPED:
		fprintf(out, "stopping: %s\n", ev->reason);
		break;
	}
}

/* Event lines that could not be written (stdout failed). */
static unsigned long lost;

static void on_event(void *arg, const struct ipc_server_event *ev)
{
	const struct sink *k = arg;
	void (*put)(FILE *, const struct ipc_server_event *) =
		k->json ? event_json : event_table;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	if (k->fp) {
		put(k->fp, ev);
		/*
		 * A log read as it is written, by a person or an orchestrator;
		 * one that cannot be written (a full disk) is said at once,
		 * once, and how many lines were lost at the end.
		 */
		errno = 0;
		if (fflush(k->fp) == EOF || ferror(k->fp)) {
			if (!lost)
				cli_warn("cannot write the event log%s: %s; "
					 "the server goes on, its events are "
					 "lost",
					 k->fp == stdout ? " to standard output"
							 : "",
					 strerror(errno ? errno : EIO));
			lost++;
		}
		return;
	}
	/* syslog takes a line: the same line, without its newline. */
	m = open_memstream(&buf, &len);
	if (!m)
		return;
	put(m, ev);
	if (!fclose(m) && len) {
		if (buf[len - 1] == '\n')
			buf[len - 1] = '\0';
		syslog(ev->kind == IPC_SEV_REFUSED ? LOG_NOTICE : LOG_INFO,
		       "%s", buf);
	}
	free(buf);
}

/* A failure once detached: to the log, as stderr is /dev/null then. */
static void sink_error(const struct sink *k, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cli_error("%s", msg);
	if (!k->fp)
		syslog(LOG_ERR, "%s", msg);
	else if (k->fp != stdout)
		fprintf(k->fp, "error: %s\n", msg);
}

/*
 * The pid in the pidfile @path (0: no file, or not a pid).  Read with one
 * read: the file is small and written whole (renamed into place).
 */
static long pidfile_read(const char *path)
{
	char buf[32];
	ssize_t n;
	char *end;
	long pid;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	pid = strtol(buf, &end, 10);
	return pid > 0 && (*end == '\n' || !*end) ? pid : 0;
}

/* Our pid into @path, whole or not at all: a temporary file renamed. */
static int pidfile_write(const char *path)
{
	char tmp[PATH_MAX + 32], buf[32];
	int fd, n, err = 0;

	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (write(fd, buf, (size_t)n) != n)
		err = errno ? -errno : -EIO;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* Removed when it still names us (a second server may have taken it). */
static void pidfile_remove(const char *path)
{
	if (path[0] && pidfile_read(path) == (long)getpid())
		unlink(path);
}

/*
 * @path made absolute into @out (the daemon changes directory to / before
 * it removes the file): 0, or EXIT_USAGE after saying why.
 */
static int abs_path(const char *opt, const char *path, char *out, size_t len)
{
	char cwd[PATH_MAX];
	int n;

	if (path[0] == '/')
		n = snprintf(out, len, "%s", path);
	else if (getcwd(cwd, sizeof(cwd)))
		n = snprintf(out, len, "%s/%s", cwd, path);
	else
		return usage_error("give an absolute path",
				   "%s '%s': the current directory: %s", opt,
				   path, strerror(errno));
	if (n < 0 || (size_t)n >= len)
		return usage_error("give a shorter path",
				   "%s: '%s' is too long", opt, path);
	return 0;
}

/*
 * --daemon: fork; the parent waits for the child to say it listens (one
 * byte: the exit status of its start, 0 when it runs) and exits with it,
 * so that errors until then reach the terminal and the exit status of
 * `ipcperf server --daemon` says whether it started.  In the child,
 * returns the descriptor to write that byte to; in the parent, -2 with
 * that status in *@status.  -1 when the fork fails.
 */
static int detach(int *status)
{
	int p[2];
	unsigned char st;
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		setsid(); /* no controlling terminal, its own session */
		return p[1];
	}
	close(p[1]);
	do
		n = read(p[0], &st, 1);
	while (n < 0 && errno == EINTR);
	close(p[0]);
	if (n != 1) {
		cli_error("server: it ended while starting");
		st = EXIT_MEASURE;
	}
	*status = st;
	return -2;
}

/* Tell the waiting parent how the start went (once; -1: not detached). */
static void detach_done(int *fd, int status)
{
	unsigned char st = (unsigned char)status;

	if (*fd < 0)
		return;
	if (write(*fd, &st, 1) != 1)
		(void)0; /* the parent is gone: nobody to tell */
	close(*fd);
	*fd = -1;
}

/* Detached and started: no terminal left in stdin, stdout, stderr. */
static void detach_stdio(const struct sink *k)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (chdir("/"))
		(void)0; /* / is there; where it is not, stay */
	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	/* cli_error's lines: into the log file, else nowhere. */
	dup2(k->fp ? fileno(k->fp) : fd, 2);
	close(fd);
}

int cli_server(const struct cli_config *c)
{
	struct ipc_server_conf conf;
	struct ipc_server *s = NULL;
	struct ipc_rkey key;
	struct sink sink = {.fp = stdout, .json = !strcmp(c->format, "json")};
	char why[256], software[64], pidfile[PATH_MAX] = "";
	bool use_syslog = c->log ? !strcmp(c->log, "syslog") : c->daemon;
	int rc, ready = -1;
	long other;

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
	if (c->pidfile) {
		rc = abs_path("--pidfile", c->pidfile, pidfile,
			      sizeof(pidfile));
		if (rc)
			goto out;
		other = pidfile_read(pidfile);
		if (other > 0 &&
		    (kill((pid_t)other, 0) == 0 || errno == EPERM)) {
			rc = usage_error("stop that server first, or give "
					 "another --pidfile",
					 "--pidfile '%s': a server runs as pid "
					 "%ld",
					 c->pidfile, other);
			pidfile[0] = '\0'; /* not ours to remove */
			goto out;
		}
	}
	if (use_syslog) {
		openlog("ipcperf", LOG_PID | LOG_NDELAY, LOG_DAEMON);
		sink.fp = NULL;
	} else if (c->log) {
		sink.fp = fopen(c->log, "ae");
		if (!sink.fp) {
			rc = usage_error("give a file this user may append to, "
					 "or syslog",
					 "--log '%s': %s", c->log,
					 strerror(errno));
			sink.fp = stdout;
			goto out;
		}
	}
	if (c->daemon) {
		ready = detach(&rc);
		if (ready == -2) {
			/* The parent: the child owns the pidfile now. */
			pidfile[0] = '\0';
			ready = -1;
			goto out;
		}
		if (ready < 0) {
			cli_error("server: cannot fork: %s", strerror(errno));
			rc = EXIT_MEASURE;
			goto out;
		}
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
	conf.cpuidle_file = cli_cpuidle_driver_file();
	conf.on_event = on_event;
	conf.event_arg = &sink;
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
	if (pidfile[0]) {
		rc = pidfile_write(pidfile);
		if (rc) {
			rc = usage_error("give a file in a directory this user "
					 "may write",
					 "--pidfile '%s': %s", c->pidfile,
					 strerror(-rc));
			pidfile[0] = '\0';
			goto out;
		}
	}
	running = s;
	if (ready >= 0) {
		detach_done(&ready, EXIT_OK);
		detach_stdio(&sink);
	}
	rc = ipc_server_run(s);
	running = NULL;
	if (rc) {
		sink_error(&sink, "server: %s", strerror(-rc));
		rc = EXIT_MEASURE;
	}
	if (lost)
		sink_error(&sink,
			   "server: %lu event line%s could not be "
			   "written to the event log",
			   lost, lost == 1 ? "" : "s");
out:
	ipc_server_free(s);
	if (pidfile[0])
		pidfile_remove(pidfile);
	detach_done(&ready, rc);
	if (conf.key)
		ipc_rkey_wipe(&key);
	if (sink.fp && sink.fp != stdout)
		fclose(sink.fp);
	if (use_syslog)
		closelog();
	return rc;
}

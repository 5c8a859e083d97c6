/* SPDX-License-Identifier: MIT */
/*
 * What unit tests share besides the checks (tap.h): reproducible random
 * data from the library's own generator, the count of open descriptors,
 * and a private temporary directory.  Header-only, like tap.h; a test
 * includes it once and uses what it needs.
 */
#ifndef IPCPERF_TEST_HELPERS_H
#define IPCPERF_TEST_HELPERS_H

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipcperf/stats.h"

/*
 * The generator's state: a test seeds it (rng_state = 42) before drawing,
 * so every run of the test sees the same data.
 */
static uint64_t rng_state;

__attribute__((unused)) static uint64_t rng_next(void)
{
	return ipc_rng_next(&rng_state);
}

/* Uniform in (0, 1), never exactly 0 (log-safe). */
__attribute__((unused)) static double rng_unit(void)
{
	return ipc_rng_unit(&rng_state);
}

/* Standard normal by Box-Muller (the second value is thrown away). */
__attribute__((unused)) static double rng_normal(void)
{
	return sqrt(-2.0 * log(rng_unit())) * cos(2.0 * M_PI * rng_unit());
}

/*
 * Does @fn return normally?  It runs in a child process, so that a crash
 * (a NULL dereference, an abort, a sanitizer's report) is a failed check
 * instead of the end of the test program.  A statement that must merely
 * not crash ("free(NULL) is a no-op") is checked this way, never with
 * ok(1, ...).
 */
__attribute__((unused)) static bool returns_normally(void (*fn)(void))
{
	int st;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		fn();
		_exit(0);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/*
 * Descriptors this process has open (the entries of /proc/self/fd, the
 * one that reads them included, so two counts compare), or -errno.
 */
__attribute__((unused)) static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Entries of directory @path besides . and .., or -errno. */
__attribute__((unused)) static int count_files(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/*
 * Make a private directory $TMPDIR/ipcperf-test-@name.XXXXXX (/tmp without
 * TMPDIR) into @buf: 0, or -errno.  Remove it with tmpdir_remove.
 */
__attribute__((unused)) static int tmpdir_make(const char *name, char *buf,
					       size_t len)
{
	const char *t = getenv("TMPDIR");

	if ((size_t)snprintf(buf, len, "%s/ipcperf-test-%s.XXXXXX",
			     t && *t ? t : "/tmp", name) >= len)
		return -ENAMETOOLONG;
	return mkdtemp(buf) ? 0 : -errno;
}

/*
 * Remove what @path holds (files only: tests make no subdirectories) and
 * the directory itself.  Returns how many files were still in it, so a
 * test can check that the code under test cleaned up, or -errno.
 */
__attribute__((unused)) static int tmpdir_remove(const char *path)
{
	char f[4096];
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(f, sizeof(f), "%s/%s", path, e->d_name);
		unlink(f);
		n++;
	}
	closedir(d);
	return rmdir(path) ? -errno : n;
}

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Reading an input file whole: a trace for replay, a result document for
 * compare.  A regular file is read as it is; a pipe is read to its end, so
 * `replay /dev/stdin` and `compare a.json <(jq ... b.json)` work; anything
 * else (a terminal, a directory, /dev/zero) is refused at once.  The open
 * never blocks: a named FIFO nobody writes to reads as empty at once
 * instead of hanging the program in open().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipcperf/base.h"
#include "base/lib_internal.h"

/* Read @fd to its end into a new buffer, at most @max bytes. */
static int read_to_end(int fd, size_t max, size_t hint, char **out, size_t *len)
{
	size_t cap = hint < 4096 ? 4096 : hint + 2, got = 0;
	char *buf = malloc(cap), *p;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (got + 1 >= cap) {
			/* Room for max + 1 bytes at most: one more says EFBIG. */
			size_t ncap = cap > max / 2 ? max + 2 : 2 * cap;

			if (ncap <= cap) {
				free(buf);
				return -EFBIG;
			}
			cap = ncap;
			p = realloc(buf, cap);
			if (!p) {
				free(buf);
				return -ENOMEM;
			}
			buf = p;
		}
		n = read(fd, buf + got, cap - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			free(buf);
			return (int)n;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		if (got > max) {
			free(buf);
			return -EFBIG;
		}
	}
	buf[got] = '\0';
	*out = buf;
	*len = got;
	return 0;
}

int ipc_file_read(const char *path, size_t max, char **text, size_t *len,
		  char *err, size_t err_len)
{
	struct stat st;
	int fd, rc;

	*text = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		rc = -errno;
		snprintf(err, err_len, "%s: cannot read: %s", path,
			 strerror(-rc));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max)
		rc = -EFBIG;
	else if (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode))
		/* A pipe is read as it comes: blocking from here on. */
		rc = fcntl(fd, F_SETFL, 0) < 0
			     ? -errno
			     : read_to_end(fd, max, (size_t)st.st_size, text,
					   len);
	else
		rc = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	close(fd);
	if (!rc && !*len && S_ISFIFO(st.st_mode)) {
		free(*text);
		*text = NULL;
		rc = -ENODATA;
	}
	if (rc == -ENODATA)
		snprintf(err, err_len,
			 "%s: empty: a FIFO or pipe that nothing was writing "
			 "to (start the writer first)",
			 path);
	else if (rc == -EFBIG)
		snprintf(err, err_len, "%s: larger than %zu MiB", path,
			 max >> 20);
	else if (rc == -EINVAL)
		snprintf(err, err_len,
			 "%s: not a regular file or a pipe (a device or a "
			 "socket cannot be read whole)",
			 path);
	else if (rc)
		snprintf(err, err_len, "%s: cannot read: %s", path,
			 strerror(-rc));
	return rc;
}

/* SPDX-License-Identifier: MIT */
/* The caches of a CPU, read from sysfs (see cpucache.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cpucache.h"

/* sysfs lists a handful of caches per CPU; look no further than this. */
#define INDEX_MAX 16

/* One line of @dir/@name into @buf, without its newline: 0 or -errno. */
static int read_word(const char *dir, const char *name, char *buf, size_t len)
{
	char path[512];
	ssize_t n;
	int fd, rc = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		rc = -errno;
	else
		buf[n] = '\0';
	close(fd);
	if (rc)
		return rc;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* "2048K", "32M", "512": bytes, 0 when it does not parse. */
static size_t parse_size(const char *s)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || v > (1ull << 40))
		return 0;
	switch (*end) {
	case 'K':
		v <<= 10;
		end++;
		break;
	case 'M':
		v <<= 20;
		end++;
		break;
	case 'G':
		v <<= 30;
		end++;
		break;
	default:
		break;
	}
	return *end ? 0 : (size_t)v;
}

int ipc_cpu_cache_find(const char *root, int cpu, unsigned level,
		       struct base_cpu_cache *c)
{
	char dir[384], word[64];
	int rc;

	if (cpu < 0 || !root)
		return -EINVAL;
	for (int i = 0; i < INDEX_MAX; i++) {
		snprintf(dir, sizeof(dir),
			 "%s/sys/devices/system/cpu/cpu%d/cache/index%d", root,
			 cpu, i);
		if (read_word(dir, "level", word, sizeof(word)))
			continue;
		if (strtoul(word, NULL, 10) != level)
			continue;
		if (read_word(dir, "type", word, sizeof(word)) ||
		    !strcmp(word, "Instruction"))
			continue;
		rc = read_word(dir, "size", word, sizeof(word));
		if (rc)
			return rc;
		c->level = level;
		c->bytes = parse_size(word);
		if (!c->bytes)
			return -EINVAL;
		if (read_word(dir, "shared_cpu_list", c->shared,
			      sizeof(c->shared)))
			snprintf(c->shared, sizeof(c->shared), "%d", cpu);
		return 0;
	}
	return -ENOENT;
}

bool ipc_cpu_list_has(const char *list, int cpu)
{
	const char *p = list;
	char *end;
	long lo, hi;

	while (*p) {
		lo = strtol(p, &end, 10);
		if (end == p || lo < 0)
			return false;
		hi = lo;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1 || hi < lo)
				return false;
			p = end;
		}
		if (cpu >= lo && cpu <= hi)
			return true;
		if (*p != ',')
			return false;
		p++;
	}
	return false;
}

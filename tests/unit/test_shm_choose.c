/* SPDX-License-Identifier: MIT */
/*
 * The shm ring chosen from the CPUs' caches (ipc_shm_choose), and the
 * sysfs reading under it, driven by made-up sysfs trees: private L2s of
 * several sizes, a shared L2, one CPU, nothing listed, and files that do
 * not parse.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cpucache.h"
#include "transport/lib_internal.h"

#include "../helpers.h"
#include "../tap.h"

static char root[1024];

/* mkdir -p of @path. */
static void mkdirs(const char *path)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0700);
			*s = '/';
		}
	mkdir(p, 0700);
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fprintf(f, "%s\n", text);
	fclose(f);
}

/* Cache @index of CPU @cpu in the tree under @r. */
static void cache(const char *r, int cpu, int index, const char *level,
		  const char *type, const char *size, const char *shared)
{
	char dir[4096];

	snprintf(dir, sizeof(dir),
		 "%s/sys/devices/system/cpu/cpu%d/cache/index%d", r, cpu,
		 index);
	mkdirs(dir);
	put(dir, "level", level);
	put(dir, "type", type);
	if (size)
		put(dir, "size", size);
	if (shared)
		put(dir, "shared_cpu_list", shared);
}

/* A tree of @cpus CPUs, each with L1d, L1i, an L2 of @l2 shared as
 * @l2_shared says (NULL: each its own) and one L3 for all; in @dir. */
static void tree(char *dir, size_t len, const char *name, int cpus,
		 const char *l2, const char *l2_shared)
{
	char own[16];

	snprintf(dir, len, "%s/%s", root, name);
	for (int c = 0; c < cpus; c++) {
		snprintf(own, sizeof(own), "%d", c);
		cache(dir, c, 0, "1", "Data", "48K", own);
		cache(dir, c, 1, "1", "Instruction", "32K", own);
		cache(dir, c, 2, "2", "Unified", l2,
		      l2_shared ? l2_shared : own);
		cache(dir, c, 3, "3", "Unified", "32768K", "0-15");
	}
}

static int rm_one(const char *p, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void private_l2(void)
{
	struct ipc_shm_choice ch;
	char dir[4096];

	tree(dir, sizeof(dir), "xeon", 2, "2048K", NULL);
	is_int(ipc_shm_choose(dir, 0, 1, &ch), "==", 0, "2 MiB L2s: chosen");
	is_uint(ch.bytes, "==", 8u << 20, "2 MiB L2s each: an 8 MiB ring");
	is_uint(ch.l2_bytes, "==", 2u << 20, "the L2 read: 2 MiB");
	ok(!ch.l2_shared, "not shared");
	ok(strstr(ch.why, "CPUs 0 and 1") && strstr(ch.why, "L2 each"),
	   "the reason names the CPUs and the rule: %s", ch.why);

	tree(dir, sizeof(dir), "zen", 2, "1024K", NULL);
	ipc_shm_choose(dir, 1, 0, &ch);
	is_uint(ch.bytes, "==", 8u << 20, "1 MiB L2s: 8 MiB, the floor");

	tree(dir, sizeof(dir), "big", 2, "4M", NULL);
	ipc_shm_choose(dir, 0, 1, &ch);
	is_uint(ch.bytes, "==", 16u << 20, "4 MiB L2s: four of them, 16 MiB");

	tree(dir, sizeof(dir), "odd", 2, "1280K", NULL);
	ipc_shm_choose(dir, 0, 1, &ch);
	is_uint(ch.bytes, "==", 8u << 20, "1.25 MiB L2s: 5 MiB, up to 8");

	tree(dir, sizeof(dir), "odd3", 2, "3M", NULL);
	ipc_shm_choose(dir, 0, 1, &ch);
	is_uint(ch.bytes, "==", 16u << 20,
		"3 MiB L2s: 12 MiB, up to a power of two");

	tree(dir, sizeof(dir), "huge", 2, "64M", NULL);
	ipc_shm_choose(dir, 0, 1, &ch);
	is_uint(ch.bytes, "==", 64u << 20, "64 MiB L2s: at most 64 MiB");

	ipc_shm_choose(dir, 0, -1, &ch);
	ok(strstr(ch.why, "CPU 0 has"),
	   "the other CPU unknown: the first one's L2: %s", ch.why);
}

static void shared_l2(void)
{
	struct ipc_shm_choice ch;
	char dir[4096];

	tree(dir, sizeof(dir), "cluster", 4, "4096K", "0-3");
	ipc_shm_choose(dir, 0, 2, &ch);
	ok(ch.l2_shared, "a cluster's L2: shared");
	is_uint(ch.bytes, "==", 2u << 20, "4 MiB shared: a 2 MiB ring");
	ok(strstr(ch.why, "share") != NULL, "and says so: %s", ch.why);

	tree(dir, sizeof(dir), "smt", 4, "1M", "0,2");
	ipc_shm_choose(dir, 0, 2, &ch);
	ok(ch.l2_shared, "SMT siblings 0,2: shared");
	is_uint(ch.bytes, "==", 1u << 20, "1 MiB shared: 1 MiB, the floor");
	ipc_shm_choose(dir, 0, 1, &ch);
	ok(!ch.l2_shared, "0 and 1 in that tree do not share");
	is_uint(ch.bytes, "==", 8u << 20, "so 8 MiB");
}

static void nothing_listed(void)
{
	struct ipc_shm_choice ch;
	struct base_cpu_cache c;
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/empty", root);
	mkdirs(dir);
	is_int(ipc_shm_choose(dir, 0, 1, &ch), "==", 0, "no sysfs: chosen");
	is_uint(ch.bytes, "==", IPC_SHM_BYTES_DEFAULT, "the default ring");
	is_uint(ch.l2_bytes, "==", 0, "no L2 known");
	ok(strstr(ch.why, "no L2") != NULL, "and says so: %s", ch.why);

	tree(dir, sizeof(dir), "one", 2, "2048K", NULL);
	ipc_shm_choose(dir, 1, 1, &ch);
	is_uint(ch.bytes, "==", IPC_SHM_BYTES_DEFAULT, "one CPU: the default");
	ok(strstr(ch.why, "CPU 1") != NULL, "naming it: %s", ch.why);

	is_int(ipc_shm_choose(NULL, 0, 1, &ch), "==", -EINVAL, "NULL root");
	is_int(ipc_shm_choose(dir, 0, 1, NULL), "==", -EINVAL, "NULL out");

	/* Only an instruction cache at level 2: not the one. */
	snprintf(dir, sizeof(dir), "%s/icache", root);
	cache(dir, 0, 0, "2", "Instruction", "2048K", "0");
	is_int(ipc_cpu_cache_find(dir, 0, 2, &c), "==", -ENOENT,
	       "an instruction cache is not the L2 of data");
	cache(dir, 0, 1, "2", "Data", "2x", "0");
	is_int(ipc_cpu_cache_find(dir, 0, 2, &c), "==", -EINVAL,
	       "a size that does not parse");
	ipc_shm_choose(dir, 0, 1, &ch);
	is_uint(ch.bytes, "==", IPC_SHM_BYTES_DEFAULT,
		"and the choice falls back to the default");
	cache(dir, 1, 0, "2", "Unified", "512K", NULL);
	is_int(ipc_cpu_cache_find(dir, 1, 2, &c), "==", 0,
	       "no shared_cpu_list: found");
	is_str(c.shared, "1", "taken as its own CPU alone");
	is_uint(c.bytes, "==", 512u << 10, "512K");
	is_int(ipc_cpu_cache_find(dir, -1, 2, &c), "==", -EINVAL,
	       "a negative CPU");
}

static void lists(void)
{
	ok(ipc_cpu_list_has("0-3,8,10-11", 2), "2 in 0-3,8,10-11");
	ok(ipc_cpu_list_has("0-3,8,10-11", 8), "8 in it");
	ok(ipc_cpu_list_has("0-3,8,10-11", 11), "11 in it");
	ok(!ipc_cpu_list_has("0-3,8,10-11", 9), "9 not");
	ok(!ipc_cpu_list_has("0-3,8,10-11", 12), "12 not");
	ok(!ipc_cpu_list_has("", 0), "the empty list holds nothing");
	ok(!ipc_cpu_list_has("x", 0), "nor does garbage");
	ok(!ipc_cpu_list_has("3-1", 2), "nor a backward range");
}

int main(void)
{
	if (tmpdir_make("shm-choose", root, sizeof(root))) {
		printf("1..0 # skip no temporary directory\n");
		return 77;
	}
	private_l2();
	shared_l2();
	nothing_listed();
	lists();
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	ok(access(root, F_OK) != 0, "the made-up trees are gone");
	return done_testing();
}

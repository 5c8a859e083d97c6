/* SPDX-License-Identifier: MIT */
/*
 * Merging histograms as ipcperf report merges results of many files:
 * each part written as sparse bucket text and read back, the parts
 * merged, and the merged percentiles checked against the exact order
 * statistics of every raw sample; then the text's refusals.
 */
#include <errno.h>
#include <math.h>

#include "ipcperf/stats.h"
#include "../tap.h"
#include "stats/lib_internal.h"

#define PARTS 5
#define PER_PART 20000

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * A part's samples: a body around @base_ns with a log-normal-ish spread
 * (the product of uniform factors) and a tail 1% of the time 20 times
 * slower, like a round trip that met a context switch.
 */
static uint64_t sample(uint64_t *rng, uint64_t base_ns)
{
	double f = 1.0;

	for (int k = 0; k < 4; k++)
		f *= 0.8 + 0.5 * ipc_rng_unit(rng);
	if (ipc_rng_below(rng, 100) == 0)
		f *= 20.0;
	return (uint64_t)(base_ns * f);
}

/* @h through the text and back: what a file holds is what merges. */
static bool through_text(struct ipc_hist *h)
{
	size_t len = ipc_hist_buckets_format(h, NULL, 0) + 1;
	char *text = malloc(len);
	struct ipc_hist back;
	bool same;

	if (!text)
		return false;
	ipc_hist_buckets_format(h, text, len);
	ipc_hist_reset(&back);
	same = !ipc_hist_buckets_parse(&back, text, NULL) &&
	       back.total == h->total &&
	       !memcmp(back.counts, h->counts, sizeof(h->counts));
	free(text);
	if (same)
		memcpy(h->counts, back.counts, sizeof(h->counts));
	return same;
}

/* The order statistic of nearest rank ceil(q * n) of sorted @v. */
static uint64_t exact_at(const uint64_t *v, size_t n, double q)
{
	size_t r = (size_t)ceil(q * (double)n - 1e-9);

	return v[(r < 1 ? 1 : r > n ? n : r) - 1];
}

static void test_merged_percentiles(void)
{
	static const uint64_t base[PARTS] = {4000, 9000, 30000, 120000, 6000};
	static const double qs[] = {0.5, 0.9, 0.99, 0.999};
	static const char *const names[] = {"p50", "p90", "p99", "p99.9"};
	uint64_t *all = calloc(PARTS * PER_PART, sizeof(*all));
	struct ipc_hist *part = ipc_hist_new(), *merged = ipc_hist_new();
	uint64_t rng = 15, want, got;
	double avg_p99 = 0;
	size_t n = 0;
	bool texts = true;

	if (!all || !part || !merged) {
		ok(false, "allocation");
		goto out;
	}
	for (int p = 0; p < PARTS; p++) {
		ipc_hist_reset(part);
		for (int i = 0; i < PER_PART; i++) {
			all[n] = sample(&rng, base[p]);
			ipc_hist_record(part, all[n++]);
		}
		avg_p99 += (double)ipc_hist_value_at(part, 0.99) / PARTS;
		texts &= through_text(part);
		ipc_hist_merge(merged, part);
	}
	ok(texts, "every part reads back from its text as it was");
	qsort(all, n, sizeof(*all), cmp_u64);
	is_uint(merged->total, "==", (uint64_t)n, "merged count");
	is_uint(merged->min, "==", all[0], "merged min is exact");
	is_uint(merged->max, "==", all[n - 1], "merged max is exact");
	for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		want = exact_at(all, n, qs[k]);
		got = ipc_hist_value_at(merged, qs[k]);
		/* Half a bucket: 1/256 of the value, and 1 ns of rounding. */
		ok(fabs((double)got - (double)want) <= want / 256.0 + 1,
		   "merged %s %llu ns, all samples' %llu ns", names[k],
		   (unsigned long long)got, (unsigned long long)want);
	}
	/*
	 * The check can fail: the average of the parts' p99 is far from the
	 * p99 of all samples (which the slowest part dominates).
	 */
	want = exact_at(all, n, 0.99);
	ok(fabs(avg_p99 - (double)want) > want / 10.0,
	   "averaged p99 %.0f ns is not all samples' %llu ns", avg_p99,
	   (unsigned long long)want);
out:
	ipc_hist_free(part);
	ipc_hist_free(merged);
	free(all);
}

static void test_text(void)
{
	static const char *const bad[] = {
		"3:0",
		"5:1 4:1",
		"5:1 5:1",
		"4736:1",
		"1:2x",
		" 1:2",
		"1:2 ",
		"1 2",
		":3",
		"1:",
		"-1:3",
		"1:2  3:4",
		"1:18446744073709551615 2:1",
		"1:99999999999999999999",
	};
	struct ipc_hist *h = ipc_hist_new();
	char buf[64];
	size_t at;
	int rc;

	if (!h) {
		ok(false, "allocation");
		return;
	}
	is_uint(ipc_hist_buckets_format(h, buf, sizeof(buf)), "==", 0,
		"an empty histogram has no text");
	is_str(buf, "", "an empty histogram's text");
	ipc_hist_record(h, 3);
	ipc_hist_record(h, 3);
	ipc_hist_record(h, 1000);
	is_uint(ipc_hist_buckets_format(h, buf, sizeof(buf)),
		"==", strlen("3:2 506:1"), "the length of the text");
	is_str(buf, "3:2 506:1", "1000 ns is in bucket 506 (4 ns wide)");
	is_uint(ipc_hist_bucket_low(506), "==", 1000,
		"bucket 506 starts at 1000");
	is_uint(ipc_hist_buckets_format(h, buf, 4), "==", strlen("3:2 506:1"),
		"a short buffer still says the whole length");
	is_str(buf, "3:2", "and holds what fits, terminated");
	ok(!ipc_hist_buckets_parse(h, "", NULL) && h->total == 0,
	   "empty text is an empty histogram");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		at = 999;
		ipc_hist_record(h, 7);
		/* Parsed first: the message reads at afterwards. */
		rc = ipc_hist_buckets_parse(h, bad[i], &at);
		ok(rc == -EINVAL && h->total == 0 && at <= strlen(bad[i]),
		   "'%s' refused at byte %zu, nothing kept", bad[i], at);
	}
	ipc_hist_free(h);
}

int main(void)
{
	test_merged_percentiles();
	test_text();
	return done_testing();
}

/* SPDX-License-Identifier: MIT */
/*
 * A tiny TAP harness for the unit tests: a plan, checks that print both
 * values and file:line when they fail, skips, and an exit status that says
 * whether anything failed.  Header-only; each test program includes it once.
 */
#ifndef IPCPERF_TAP_H
#define IPCPERF_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n;
static int tap_failed;

__attribute__((format(printf, 4, 5), unused)) static bool
tap_ok_at(bool cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	printf("%s %d - ", cond ? "ok" : "not ok", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return cond;
}

/* ok(cond, "what is checked", ...) */
#define ok(cond, ...) tap_ok_at(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

__attribute__((unused)) static bool tap_cmp_int(intmax_t a, const char *op,
						intmax_t b)
{
	if (!strcmp(op, "=="))
		return a == b;
	if (!strcmp(op, "!="))
		return a != b;
	if (!strcmp(op, "<"))
		return a < b;
	if (!strcmp(op, "<="))
		return a <= b;
	if (!strcmp(op, ">"))
		return a > b;
	if (!strcmp(op, ">="))
		return a >= b;
	return false;
}

/* is_int(a, "<=", b, "what"): prints both values when it fails. */
#define is_int(a, op, b, ...)                                                \
	do {                                                                 \
		intmax_t tap_a_ = (intmax_t)(a), tap_b_ = (intmax_t)(b);     \
		if (!tap_ok_at(tap_cmp_int(tap_a_, op, tap_b_), __FILE__,    \
			       __LINE__, __VA_ARGS__))                       \
			printf("#   got %jd, want %s %jd\n", tap_a_, op,     \
			       tap_b_);                                      \
	} while (0)

/* is_uint(a, "<=", b, "what"): the same for unsigned 64-bit values. */
#define is_uint(a, op, b, ...)                                               \
	do {                                                                 \
		uint64_t tap_a_ = (uint64_t)(a), tap_b_ = (uint64_t)(b);     \
		bool tap_r_ = !strcmp(op, "==")   ? tap_a_ == tap_b_         \
			      : !strcmp(op, "!=") ? tap_a_ != tap_b_         \
			      : !strcmp(op, "<")  ? tap_a_ < tap_b_          \
			      : !strcmp(op, "<=") ? tap_a_ <= tap_b_         \
			      : !strcmp(op, ">")  ? tap_a_ > tap_b_          \
						  : tap_a_ >= tap_b_;        \
		if (!tap_ok_at(tap_r_, __FILE__, __LINE__, __VA_ARGS__))     \
			printf("#   got %" PRIu64 ", want %s %" PRIu64 "\n",    \
			       tap_a_, op, tap_b_);                          \
	} while (0)

/* is_str(a, b, "what"): string equality, NULL-safe. */
#define is_str(a, b, ...)                                                    \
	do {                                                                 \
		const char *tap_a_ = (a), *tap_b_ = (b);                     \
		bool tap_r_ = tap_a_ && tap_b_ ? !strcmp(tap_a_, tap_b_)     \
					       : tap_a_ == tap_b_;           \
		if (!tap_ok_at(tap_r_, __FILE__, __LINE__, __VA_ARGS__))     \
			printf("#   got \"%s\", want \"%s\"\n",                \
			       tap_a_ ? tap_a_ : "(null)",                   \
			       tap_b_ ? tap_b_ : "(null)");                  \
	} while (0)

/* is_near(a, b, rel, "what"): |a - b| <= rel * |b|. */
#define is_near(a, b, rel, ...)                                              \
	do {                                                                 \
		double tap_a_ = (double)(a), tap_b_ = (double)(b);           \
		double tap_d_ = tap_a_ > tap_b_ ? tap_a_ - tap_b_            \
						: tap_b_ - tap_a_;           \
		double tap_m_ = (rel) * (tap_b_ < 0 ? -tap_b_ : tap_b_);     \
		if (!tap_ok_at(tap_d_ <= tap_m_, __FILE__, __LINE__,          \
			       __VA_ARGS__))                                 \
			printf("#   got %.6g, want %.6g within %.3g%%\n",      \
			       tap_a_, tap_b_, 100.0 * (rel));               \
	} while (0)

/* Skip one check, with the reason. */
__attribute__((format(printf, 1, 2), unused)) static void
skip(const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	printf("ok %d # skip ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* Diagnostic line, shown by the runner only when the test fails. */
__attribute__((format(printf, 1, 2), unused)) static void
diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* Print the plan at the end (TAP allows it there) and the exit status. */
__attribute__((unused)) static int done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif

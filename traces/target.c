/* SPDX-License-Identifier: MIT */
/* The program the breakpoint trace debugs: a loop calling a small function. */
#include <stdio.h>

static int work(int i)
{
	int sq = i * i;

	return sq + 1;
}

int main(void)
{
	int sum = 0;

	for (int i = 0; i < 3; i++)
		sum += work(i);
	printf("%d\n", sum);
	return 0;
}

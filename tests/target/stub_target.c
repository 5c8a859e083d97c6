/* SPDX-License-Identifier: MIT */
/*
 * The program the stub tests debug under gdbserver: a buffer of known
 * bytes at a fixed address (built without PIE; the tests find it with
 * nm).  gdbserver stops it before its first instruction, and a session
 * leaves it stopped; once let go it only checks its first byte and ends.
 */
char ipcperf_target_buf[8192] = "ipcperf stub target: the first bytes "
				"of a buffer the tests read and write";

int main(void)
{
	return ipcperf_target_buf[0] != 'i';
}

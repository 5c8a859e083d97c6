/* SPDX-License-Identifier: MIT */
/*
 * Text shown on one line of a terminal or a log: control bytes, bytes
 * that are not UTF-8 and the code points that reorder or break a line
 * escaped; other UTF-8 kept; copies cut at whole characters.
 */
#include <string.h>

#include "../tap.h"
#include "ipcperf/base.h"
#include "base/lib_internal.h"

static void escapes(const char *in, unsigned flags, const char *want,
		    const char *what)
{
	char out[256];

	ipc_text_escape(out, sizeof(out), in, flags);
	is_str(out, want, "%s", what);
}

int main(void)
{
	char small[7];
	size_t n;

	escapes("tcp", 0, "tcp", "plain ASCII as it is");
	escapes("a\nb", 0, "a\\nb", "a newline escaped: one line");
	escapes("\x1b[2J", 0, "\\x1b[2J", "ESC escaped");
	escapes("\t\r\x7f", 0, "\\t\\r\\x7f", "tab, CR and DEL escaped");
	escapes("caf\xc3\xa9 2 \xc2\xb5s", 0, "caf\xc3\xa9 2 \xc2\xb5s",
		"other UTF-8 kept");
	escapes("caf\xc3\xa9", IPC_TEXT_ASCII, "caf\\u00e9",
		"and escaped when ASCII is asked for");
	escapes("x\xe2\x80\xaey", 0, "x\\u202ey", "U+202E (RLO) escaped");
	escapes("x\xe2\x80\xa8y", 0, "x\\u2028y", "U+2028 escaped");
	escapes("\xc2\x9b"
		"2J",
		0, "\\u009b2J", "a C1 control (CSI) escaped");
	escapes("\xef\xbb\xbfz", 0, "\\ufeffz", "a byte order mark escaped");
	escapes("\xff\xfe", 0, "\\xff\\xfe", "bytes that are not UTF-8");
	escapes("\xc0\xaf", 0, "\\xc0\\xaf", "an overlong form");
	escapes("\xed\xa0\x80", 0, "\\xed\\xa0\\x80", "a surrogate");
	escapes("\xe2\x82", 0, "\\xe2\\x82", "a character cut short");
	escapes("\xf0\x9f\x98\x80", 0, "\xf0\x9f\x98\x80", "an emoji kept");

	n = ipc_text_escape(small, sizeof(small),
			    "abc\x1b"
			    "def",
			    0);
	is_str(small, "abc", "an escape that does not fit whole is left out");
	is_int(n, "==", 3, "and the length says so");
	ipc_text_escape(small, sizeof(small), "abcde\xc3\xa9", 0);
	is_str(small, "abcde", "nor half a character");

	is_int(ipc_text_cut("abc", 10), "==", 3, "a short text is whole");
	is_int(ipc_text_cut("ab\xc3\xa9z", 3), "==", 2,
	       "a cut inside a character moves before it");
	is_int(ipc_text_cut("ab\xc3\xa9z", 4), "==", 4,
	       "a cut after it keeps it");
	is_int(ipc_text_cut("\xe2\x80\xae", 2), "==", 0,
	       "a three-byte character cut after two: nothing of it");
	return done_testing();
}

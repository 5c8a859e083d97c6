# SPDX-License-Identifier: MIT
# The bash and zsh completions (generated from the option table at build
# time): every command after "ipcperf", every option of every command
# after its name (exactly the ones its --help lists), and the names the
# library knows as the values of --transport, --engine and --format.
. "$(dirname "$0")/lib.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
comp="$root/${BUILD:-build}/completion/ipcperf"
[ -f "$comp" ] || { echo "1..0 # skip no completion at $comp (make builds it)"; exit 77; }

# complete WORD...: what _ipcperf offers for the last word, sorted, one a
# line (the words as typed after "ipcperf").
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=(ipcperf "$@"); COMP_CWORD=$#
		_ipcperf; printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$comp" "$@"
}

bash -n "$comp"
ok $? "the generated script is valid bash"

# The commands, as --help lists them.
"$IPCPERF" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p' |
	sort >"$T/cmds.want"
complete_words "" >"$T/cmds.got"
test -s "$T/cmds.want" && cmp -s "$T/cmds.want" "$T/cmds.got"
ok $? "ipcperf <TAB>: every command of --help"
complete_words s >"$T/s.got"
[ "$(tr '\n' ' ' <"$T/s.got")" = "server stream " ]
ok $? "ipcperf s<TAB>: server, stream"

# Each command's options: exactly the long ones its --help lists.
bad=""
while read -r c; do
	"$IPCPERF" "$c" --help |
		sed -n 's/^  \(-., \)\{0,1\} *--\([a-z0-9-]*\).*/--\2/p' |
		sort -u >"$T/want"
	complete_words "$c" -- | grep '^--' | sort -u >"$T/got"
	if ! test -s "$T/want" || ! cmp -s "$T/want" "$T/got"; then
		bad="$bad $c"
		diag "$c: $(diff "$T/want" "$T/got" | grep '^[<>]' | tr '\n' ' ')"
	fi
done <"$T/cmds.want"
[ -z "$bad" ]
ok $? "every option of every command is completed, and only those"
# The suite (no command): its options are the ones it accepts.
complete_words --tr >"$T/suite.got"
[ "$(cat "$T/suite.got")" = "--transport" ]
ok $? "ipcperf --tr<TAB>: --transport"
complete_words --re >"$T/suite.re"
! grep -q -- '--req' "$T/suite.re"
ok $? "ipcperf --re<TAB>: not rr's --req"

# Short options too.
complete_words rr - | grep -qx -- -t
ok $? "rr -<TAB> offers -t"

# Values the library knows.
complete_words rr -t "" >"$T/tp"
grep -qx pipe "$T/tp" && grep -qx unix "$T/tp" && grep -qx all "$T/tp"
ok $? "rr -t <TAB>: the transports, and all"
[ "$(complete_words stream --engine io)" = io_uring ] ||
	! "$IPCPERF" list | grep -q '^  io_uring'
ok $? "stream --engine io<TAB>: io_uring"
[ "$(complete_words rr --format j)" = json ]
ok $? "rr --format j<TAB>: json"
# A FILE value: files; another value: nothing offered.
mkdir -p "$T/files" && : >"$T/files/result.json"
[ "$(complete_words rr -o "$T/files/res")" = "$T/files/result.json" ]
ok $? "rr -o <TAB>: files"
# Words a metavariable spells out: N|auto, FILE|syslog.
[ "$(complete_words rr --runs a)" = auto ]
ok $? "rr --runs a<TAB>: auto"
[ "$(complete_words server --log sys)" = syslog ] &&
	[ "$(complete_words server --log "$T/files/res")" = "$T/files/result.json" ]
ok $? "server --log <TAB>: syslog, or files"
[ -z "$(complete_words rr --req "")" ]
ok $? "rr --req <TAB>: nothing (a size is typed)"

# zsh: the function is run with zsh's completion builtins replaced by
# ones that print what they were given: the commands it offers, and the
# _arguments specs of the command being completed, one a line.
zcomp="$root/${BUILD:-build}/completion/_ipcperf"
if ! command -v zsh >/dev/null; then
	diag "zsh is not installed: its completion is not tested"
	done_testing
	exit
fi
zsh_complete() {
	zsh -f -c 'fpath=("${1:h}" $fpath); autoload -Uz _ipcperf; shift
		compadd() { [[ $1 == -a ]] && print -l -- ${(P)2}; }
		_arguments() { shift 3; print -l -- "$@"; }
		words=(ipcperf "$@"); CURRENT=$#words
		_ipcperf' _ "$zcomp" "$@"
}
# zsh_value CMD OPTION: the words the action of OPTION's spec offers.
zsh_value() {
	zsh_complete "$1" -- | grep -F -- "$2=[" | head -n 1 |
		sed 's/.*\]:[^:]*://' |
		zsh -f -c 'read -r a; compadd() { [[ $1 == -- ]] && shift; print -l -- "$@"; }
			_files() { print -- FILES; }
			if [[ $a == \(*\) ]]; then print -l -- ${(z)${${a#\(}%\)}};
			elif [[ $a == \{*\} ]]; then eval "${${a#\{}%\}}";
			elif [[ $a == _* ]]; then eval "$a"; fi'
}
[ -f "$zcomp" ] && zsh -n "$zcomp"
ok $? "zsh: the generated function is valid zsh"
# Real zsh: compinit finds it in fpath and binds it to ipcperf.
zsh -f -c 'fpath=("${1:h}" $fpath); autoload -Uz compinit
	compinit -u -d "$2/zcompdump"; [[ $_comps[ipcperf] == _ipcperf ]]' \
	_ "$zcomp" "$T" >/dev/null 2>&1
ok $? "zsh: compinit binds _ipcperf to ipcperf"
rm -f "$T/zcompdump"
zsh_complete "" | sort >"$T/zcmds.got"
cmp -s "$T/cmds.want" "$T/zcmds.got"
ok $? "zsh: ipcperf <TAB>: every command of --help"
bad=""
while read -r c; do
	"$IPCPERF" "$c" --help |
		sed -n 's/^  \(-., \)\{0,1\} *--\([a-z0-9-]*\).*/--\2/p' |
		sort -u >"$T/want"
	zsh_complete "$c" -- | sed -n 's/^\(--[a-z0-9-]*\)[=[].*/\1/p' |
		sort -u >"$T/got"
	if ! test -s "$T/want" || ! cmp -s "$T/want" "$T/got"; then
		bad="$bad $c"
		diag "zsh $c: $(diff "$T/want" "$T/got" | grep '^[<>]' | tr '\n' ' ')"
	fi
done <"$T/cmds.want"
[ -z "$bad" ]
ok $? "zsh: every option of every command is completed, and only those"
zsh_complete --tr | grep -q -- "^--transport=\[" &&
	! zsh_complete --tr | grep -q -- "^--req="
ok $? "zsh: ipcperf --<TAB>: the suite's options (--transport, not rr's --req)"
zsh_complete rr - | grep -q -- "^-t+\[transports"
ok $? "zsh: rr -<TAB> offers -t, with its help"
zsh_value rr --transport >"$T/ztp"
grep -qx pipe "$T/ztp" && grep -qx unix "$T/ztp" && grep -qx all "$T/ztp"
ok $? "zsh: rr -t <TAB>: the transports, and all"
[ "$(zsh_value rr --format | grep -c json)" = 1 ]
ok $? "zsh: rr --format <TAB>: the formats"
[ "$(zsh_value rr --runs)" = auto ]
ok $? "zsh: rr --runs <TAB>: auto"
[ "$(zsh_value server --log | tr '\n' ' ')" = "syslog FILES " ]
ok $? "zsh: server --log <TAB>: syslog, or files"
[ "$(zsh_value rr --output)" = FILES ]
ok $? "zsh: rr -o <TAB>: files"
[ -z "$(zsh_value rr --req)" ]
ok $? "zsh: rr --req <TAB>: nothing (a size is typed)"

done_testing

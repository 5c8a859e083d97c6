# SPDX-License-Identifier: MIT
# docs/protocol.md is enough to write a client from: its Python client,
# taken from the document as it stands, runs a test against the server,
# with and without a key.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/remote.bash"

DOC=$(dirname "$0")/../../docs/protocol.md
command -v python3 >/dev/null || { echo "1..0 # skip no python3 for the document's client"; exit 77; }
awk '/^```python$/{p=1;next} /^```$/{p=0} p' "$DOC" >"$T/client.py"
[ -s "$T/client.py" ]; ok $? "the document holds a Python client"

head -c 48 /dev/urandom >"$T/key"
chmod 600 "$T/key"
for keyed in no yes; do
	if [ $keyed = yes ]; then
		start_server --once --key "$T/key"
	else
		start_server --once
	fi
	args=("${addr%:*}" "${addr##*:}")
	[ $keyed = yes ] && args+=("$T/key")
	r=$(timeout 20 python3 "$T/client.py" "${args[@]}" 2>&1)
	case $r in "ok test 1 cpu_ns "*) ok 0 "key $keyed: the document's client completes a test" ;;
	*) ok 1 "key $keyed: the document's client completes a test"; diag "$r" ;; esac
	ends_within $spid 5 "key $keyed: the --once server ends after it"
	is_rc 0 "key $keyed: exit 0"
	jql "key $keyed: the server logged the test ok" '.event == "test"' \
		'.status == "ok" and .runs == 1'
done
# A wrong key: the document's client is refused.
head -c 32 /dev/urandom >"$T/other"
start_server --key "$T/key"
r=$(timeout 20 python3 "$T/client.py" "${addr%:*}" "${addr##*:}" "$T/other" 2>&1)
case $r in *"auth: authentication failed"*) ok 0 "a wrong key: refused" ;;
*) ok 1 "a wrong key: refused"; diag "$r" ;; esac
kill -TERM $spid
ends_within $spid 5 "the server ends on SIGTERM"
no_leftovers "the document's client"
done_testing

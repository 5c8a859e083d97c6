# SPDX-License-Identifier: MIT
# A fleet on this machine: three hosts (network namespaces, each with a
# host name of its own) joined by two bridges, a management network where
# each runs sshd with a key made for the test, and a data network the
# measurements use.  Each host's sshd, and so everything Ansible runs
# there, sees this machine's root through a mount namespace of its own
# in which the build tree and the libraries the program links (jansson,
# libsodium, liburing, http_parser, libbpf, libelf, libipcperf) are
# hidden: like a real host, it has none of the controller's libraries,
# and a dynamically linked ipcperf copied there does not start (the role
# says so and stops).  deploy/ansible/fleet.yml runs over SSH as it would
# against real machines, with the role's defaults (the static build
# copied to each host): for the pairs topology
# every pair has a result, the matrix is complete with intervals, each
# server listened on its data address only, and no ipcperf, sshd or run
# directory is left.  Then a working directory made beforehand by
# another user, writable by all, with a binary of theirs in it: the role
# refuses it and runs nothing from it.
# With FLEET_FULL=1 (make check-fleet) also the star topology, every pair
# at once (ipcperf_parallel), a host's data network cut mid-run (its
# pairs are failed cells with the reason, the others complete), and
# Ctrl-C on the controller (the servers stop by themselves).
# Needs root, sshd and ansible (skipped with the reason otherwise).
# Names start with fl- and carry the PID; everything is removed on exit.
. "$(dirname "$0")/lib.bash"
[ "$(id -u)" = 0 ] || { echo "1..0 # skip network namespaces and sshd need root"; exit 77; }
command -v ip >/dev/null || { echo "1..0 # skip no ip(8) (iproute2)"; exit 77; }
if ! command -v ansible-playbook >/dev/null || [ ! -x /usr/sbin/sshd ] ||
	! command -v unshare >/dev/null; then
	sh "$(dirname "$0")/../../scripts/deps.sh" fleet >"$err" 2>&1 ||
		{ echo "1..0 # skip ansible, sshd or unshare missing and not installable: $(tail -n 1 "$err")"; exit 77; }
fi
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FULL=${FLEET_FULL:-0}
# What the hosts run: the static build (make static; not under SAN=1).
STATIC=$ROOT/${BUILD:-build}/ipcperf-static
[ -x "$STATIC" ] || STATIC=$ROOT/build/ipcperf-static
[ -x "$STATIC" ] || { echo "1..0 # skip no static build at $STATIC (make static)"; exit 77; }
# What the hosts must not see: the program's own libraries (by their
# real files: a bind mount of /dev/null over each makes it an empty
# file the loader refuses) and the trees the controller's builds are in.
HIDE_LIBS=$(ldd "$IPCPERF_BIN" 2>/dev/null |
	awk '$1 ~ /jansson|sodium|uring|http_parser|bpf|elf|ipcperf/ && $3 ~ /^\// {print $3}' |
	xargs -r realpath | sort -u | tr '\n' ' ')
HIDE_DIRS=""
for d in "$ROOT/build" "$(dirname "$(realpath "$IPCPERF_BIN")")"; do
	case "$T/" in "$d"/*) continue ;; esac
	# A tree inside one already hidden (build/san under build) is hidden
	# with it; mounting over it again would fail, since it is gone.
	inside=0
	for h in $HIDE_DIRS; do
		case "$d/" in "$h"/*) inside=1 ;; esac
	done
	[ $inside = 1 ] || HIDE_DIRS="$HIDE_DIRS $d"
done
[ -n "$HIDE_LIBS" ]; ok $? "the libraries to hide from the hosts: ${HIDE_LIBS:-none found}"
# A management subnet no other bridge of this machine routes.
N=$(($$ % 250 + 1))
for _ in $(seq 250); do
	[ -z "$(ip route show "10.201.$N.0/24" 2>/dev/null)" ] && break
	N=$((N % 250 + 1))
done
HOSTS="h1 h2 h3"
BM=fl-bm$$ BD=fl-bd$$
ns() { echo "fl-$1-$$"; }
name() { echo "fl-$1-$$"; }

cleanup() {
	# Our own processes only: every one has $T in its command line.
	pkill -KILL -f "$T/" 2>/dev/null
	for h in $HOSTS; do ip netns del "$(ns $h)" 2>/dev/null; done
	ip link del "$BM" 2>/dev/null
	ip link del "$BD" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
# A timeout's SIGTERM (tests/run) or Ctrl-C still removes everything.
trap 'exit 1' TERM INT HUP

if ! ip link add "$BM" type bridge 2>"$err"; then
	echo "1..0 # skip cannot make a bridge: $(head -c 200 "$err")"
	exit 77
fi
ip link add "$BD" type bridge
ip addr add "10.201.$N.254/24" dev "$BM"
ip link set "$BM" up
ip link set "$BD" up
mkdir -p /run/sshd "$T/keys"
ssh-keygen -q -t ed25519 -N '' -f "$T/keys/host" </dev/null
ssh-keygen -q -t ed25519 -N '' -f "$T/keys/client" </dev/null
cp "$T/keys/client.pub" "$T/keys/authorized_keys"

i=0
for h in $HOSTS; do
	i=$((i + 1))
	n=$(ns $h)
	ip netns add "$n"
	ip link add "fl-m$i-$$" type veth peer name m0 netns "$n"
	ip link add "fl-d$i-$$" type veth peer name d0 netns "$n"
	ip link set "fl-m$i-$$" master "$BM" up
	ip link set "fl-d$i-$$" master "$BD" up
	ip -n "$n" addr add "10.201.$N.$i/24" dev m0
	ip -n "$n" addr add "10.202.$N.$i/24" dev d0
	ip -n "$n" link set lo up
	ip -n "$n" link set m0 up
	ip -n "$n" link set d0 up
	mkdir -p "$T/hosts/tmp"
	cat >"$T/sshd-$h.conf" <<CONF
ListenAddress 10.201.$N.$i
HostKey $T/keys/host
PidFile $T/sshd-$h.pid
AuthorizedKeysFile $T/keys/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PrintMotd no
Subsystem sftp internal-sftp
SetEnv TMPDIR=$T/hosts/tmp
CONF
	# A UTS namespace of its own: the host reports its own name; a
	# mount namespace of its own: the controller's libraries and builds
	# are not there (unshare makes its mounts private: none leaks out).
	hide=""
	for f in $HIDE_LIBS; do hide="$hide mount --bind /dev/null $f &&"; done
	for d in $HIDE_DIRS; do hide="$hide mount -t tmpfs -o size=64k tmpfs $d &&"; done
	ip netns exec "$n" unshare --uts --mount sh -c \
		"$hide hostname $(name $h) && exec /usr/sbin/sshd -D -e -f $T/sshd-$h.conf" \
		2>"$T/sshd-$h.log" &
done
cat >"$T/inventory.ini" <<INV
[ipcperf]
h1 ansible_host=10.201.$N.1 ipcperf_address=10.202.$N.1
h2 ansible_host=10.201.$N.2 ipcperf_address=10.202.$N.2
h3 ansible_host=10.201.$N.3 ipcperf_address=10.202.$N.3

[ipcperf:vars]
ansible_user=root
ansible_ssh_private_key_file=$T/keys/client
ansible_python_interpreter=/usr/bin/python3
INV
up=0
for _ in $(seq 100); do
	up=0
	for i in 1 2 3; do
		ssh -q -o BatchMode=yes -o StrictHostKeyChecking=no \
			-o UserKnownHostsFile=/dev/null -o ConnectTimeout=1 \
			-i "$T/keys/client" "root@10.201.$N.$i" true 2>/dev/null &&
			up=$((up + 1))
	done
	[ $up = 3 ] && break
	sleep 0.1
done
[ $up = 3 ]; ok $? "sshd answers with the test's key on the three hosts"

# Ansible's own files under $T, its SSH connections shared per host
# (ControlPersist: the masters are ended at the end, by their path).
export ANSIBLE_LOCAL_TEMP="$T/ansible/local" ANSIBLE_REMOTE_TEMP="$T/ansible/remote"
export ANSIBLE_SSH_CONTROL_PATH_DIR="$T/ansible/cp" ANSIBLE_HOST_KEY_CHECKING=False
export ANSIBLE_SSH_ARGS="-o ControlMaster=auto -o ControlPersist=60s -o UserKnownHostsFile=/dev/null"
export ANSIBLE_PIPELINING=True
export ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=False ANSIBLE_FORKS=5
printf '[defaults]\n' >"$T/ansible.cfg"
export ANSIBLE_CONFIG=$T/ansible.cfg

# playbook NAME [-e ...]: run the playbook, results in $T/NAME.
playbook() {
	local out=$T/$1
	shift
	# A background job ignores SIGINT; the Ctrl-C test needs it back.
	env --default-signal=INT \
		ansible-playbook -i "$T/inventory.ini" "$ROOT/deploy/ansible/fleet.yml" \
		-e "ipcperf_local_bin=$STATIC" -e "ipcperf_results=$out" \
		-e "ipcperf_controller_bin=$IPCPERF_BIN" \
		-e "ipcperf_port=5301 ipcperf_idle_timeout=20s ipcperf_max_duration=2m" \
		-e "ipcperf_control_timeout=2s" \
		-e "ipcperf_args='--req 1 --resp 1 -n 200 -w 10 -r 6'" \
		"$@" >"$T/ansible.log" 2>&1
}

# nothing_left WHAT: no ipcperf runs in any of the hosts, and no run
# directory is left where the role makes them.
nothing_left() {
	local left="" h p dirs
	sleep 0.3
	dirs=$(ls -d "$T"/hosts/tmp/* "$T"/hosts/parent/* 2>/dev/null | head -n 3)
	[ -z "$dirs" ]; ok $? "$1: every run directory removed${dirs:+ ($dirs)}"
	for h in $HOSTS; do
		for p in $(ip netns pids "$(ns $h)" 2>/dev/null); do
			case $(readlink "/proc/$p/exe" 2>/dev/null) in
			*/ipcperf) left="$left $h:$p" ;;
			esac
		done
	done
	[ -z "$left" ]; ok $? "$1: no ipcperf left on any host${left:+ ($left)}"
}

# matrix NAME METRIC: the matrix of a run's results, as JSON (no file
# when report fails: jq -e takes an empty file for true).
matrix() {
	if ! "$IPCPERF" report --matrix "$2" --names "$T/$1/names.txt" \
		"$T/$1"/*--*.json -f json \
		>"$T/$1.matrix.json" 2>"$err"; then
		rm -f "$T/$1.matrix.json"
		sed 's/^/#   /' "$err"
		return 1
	fi
}

# show_log: the end of the last playbook's output, as diagnostics.
show_log() { sed 's/^/#   /' "$T/ansible.log" | tail -n 40; }

# The addresses h1's server listens on, while the playbook runs.
listening() {
	while :; do
		ip netns exec "$(ns h1)" ss -Hltn 'sport = :5301' 2>/dev/null |
			awk '{print $4}'
		sleep 0.1
	done >"$T/listen.txt"
}

# The hosts do not have the controller's libraries: the program as
# make builds it (linked against them) does not start there.
ssh -q -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
	-i "$T/keys/client" "root@10.201.$N.1" \
	"cat >$T/hosts/tmp/dyn && chmod 755 $T/hosts/tmp/dyn && $T/hosts/tmp/dyn --version; r=\$?; rm -f $T/hosts/tmp/dyn; exit \$r" \
	<"$IPCPERF_BIN" >"$out" 2>"$err"
r=$?
[ $r != 0 ] && grep -q "error while loading shared libraries" "$err"
ok $? "on a host the dynamically linked ipcperf does not start ($r: $(head -c 160 "$err"))"
ssh -q -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
	-i "$T/keys/client" "root@10.201.$N.1" "test ! -e $IPCPERF_BIN" 2>/dev/null
ok $? "nor is the controller's build there"

# The role with that binary: it stops on every host before measuring,
# with the loader's words, and leaves nothing.
playbook dynamic -e ipcperf_topology=pairs -e "ipcperf_local_bin=$IPCPERF_BIN"
r=$?
[ $r != 0 ] && grep -q "ipcperf does not run on h1: .*shared libraries" "$T/ansible.log"
ok $? "a dynamically linked ipcperf: the role refuses it on the hosts, saying why ($r)"
[ $r != 0 ] || show_log
n=$(ls "$T/dynamic"/*--*.json 2>/dev/null | wc -l)
[ "$n" = 0 ]; ok $? "and measures nothing ($n results)"
nothing_left "dynamic"

start=$(date +%s)
listening &
lpid=$!
playbook pairs -e ipcperf_topology=pairs
r=$?
kill $lpid
wait $lpid 2>/dev/null
ok $r "ansible-playbook, pairs: exit 0"
[ $r = 0 ] || show_log
n=$(ls "$T/pairs"/*--*.json 2>/dev/null | wc -l)
[ "$n" = 6 ]; ok $? "pairs: 6 results fetched to the controller ($n)"
matrix pairs p50
ok $? "report --matrix p50 of the pairs: exit 0"
v=$("$STATIC" --version | awk '{print $2}')
jq -e -s --arg v "$v" 'length == 6 and all(.[]; .ipcperf.version == $v)' \
	"$T/pairs"/*--*.json >/dev/null 2>&1
ok $? "pairs: every result was measured by the static build ($v)"
grep -q "h1: ipcperf $v" "$T/ansible.log"
ok $? "the playbook names the version each host runs"
jqt "pairs: one matrix of the three hosts, by their own names" \
	"(.hosts | sort) == [\"$(name h1)\", \"$(name h2)\", \"$(name h3)\"] and (.matrices | length) == 1" \
	"$T/pairs.matrix.json"
jqt "pairs: every ordered pair a measured cell with its interval, none on the diagonal" \
	'.matrices[0].cells as $c | ($c | length) == 6 and all($c[]; .status == "ok" and .from != .to and .value > 0 and .ci.low <= .value and .value <= .ci.high and .runs == 6 and .basis == "merged histogram")' \
	"$T/pairs.matrix.json"
"$IPCPERF" report --matrix p99 "$T/pairs"/*--*.json >"$T/pairs.txt" 2>"$err"
ok $? "report --matrix p99 as a table: exit 0"
n=$(grep -c "^fl-h[1-3]-$$ .*\[.*\[" "$T/pairs.txt")
[ "$n" = 3 ]; ok $? "the table has a row per host, each with two intervals ($n)"
sed 's/^/# /' "$T/pairs.txt"
grep -q "from .* to" "$T/pairs.txt" && grep -q "$(name h1)" "$T/ansible.log"
ok $? "the playbook printed the matrix too"
nothing_left "pairs"
diag "pairs: $(( $(date +%s) - start )) s"
seen=$(sort -u "$T/listen.txt" | tr '\n' ' ')
[ "$seen" = "10.202.$N.1:5301 " ]
ok $? "h1's server listened on its data address only (${seen:-never seen})"

# A working directory another user made first, open to all, with their
# own "ipcperf" in it: refused on every host, nothing of it run.
mkdir -p "$T/hostile"
printf '#!/bin/sh\nid >%s/hostile-ran\n' "$T" >"$T/hostile/ipcperf"
chmod 755 "$T/hostile/ipcperf"
chown -R 65534:65534 "$T/hostile"
chmod 777 "$T/hostile"
playbook hostile -e ipcperf_topology=pairs -e "ipcperf_dir=$T/hostile"
r=$?
[ $r != 0 ]; ok $? "a working directory of another owner: the playbook fails ($r)"
grep -q "belongs to uid 65534.*refused" "$T/ansible.log"
ok $? "and says the directory is another user's"
[ "$(ls "$T/hostile")" = ipcperf ] && [ ! -e "$T/hostile-ran" ]
ok $? "nothing was run from it or put in it"
[ $r != 0 ] || show_log
nothing_left "hostile"

if [ "$FULL" = 1 ]; then
	playbook star -e ipcperf_topology=star -e ipcperf_reference=h2
	ok $? "ansible-playbook, star around h2: exit 0"
	matrix star throughput
	jqt "star: every other host against h2, measured" \
		"[.matrices[0].cells[] | select(.status == \"ok\" and .to == \"$(name h2)\") | .from] | sort == [\"$(name h1)\", \"$(name h3)\"]" \
		"$T/star.matrix.json"
	jqt "star: nothing else measured" '.matrices[0].cells | length == 2' \
		"$T/star.matrix.json"
	nothing_left "star"

	playbook par -e ipcperf_topology=pairs -e ipcperf_parallel=true
	ok $? "ansible-playbook, pairs at once: exit 0"
	matrix par p50
	jqt "pairs at once: every pair measured" \
		'.matrices[0].cells as $c | ($c | length) == 6 and all($c[]; .status == "ok")' \
		"$T/par.matrix.json"
	nothing_left "pairs at once"

	# h3's data network cut once the first pair is done: its pairs fail
	# with the reason, the others complete, and nothing hangs.
	# Run directories in a parent of the user's own (ipcperf_dir).
	mkdir -m 700 "$T/hosts/parent"
	playbook cut -e ipcperf_topology=pairs -e "ipcperf_dir=$T/hosts/parent" &
	apid=$!
	for _ in $(seq 300); do
		ls "$T"/hosts/parent/*/results/h1--h2.json >/dev/null 2>&1 && break
		sleep 0.1
	done
	ip -n "$(ns h3)" link set d0 down
	ends_within $apid 90 "cut: the playbook ends"
	is_rc 0 "cut: exit 0 (failed measurements are results)"
	matrix cut p50
	jqt "cut: h1 and h2 measured each other" \
		"[.matrices[0].cells[] | select(.status == \"ok\")] | map(.from + \">\" + .to) | sort == [\"$(name h1)>$(name h2)\", \"$(name h2)>$(name h1)\"]" \
		"$T/cut.matrix.json"
	jqt "cut: every pair with h3 is a failed cell with the reason" \
		"[.matrices[0].cells[] | select(.from == \"$(name h3)\" or .to == \"$(name h3)\")] | length == 4 and all(.[]; .status != \"ok\" and (.error | length) > 0)" \
		"$T/cut.matrix.json"
	"$IPCPERF" report --matrix p50 --names "$T/cut/names.txt" \
		"$T/cut"/*--*.json >"$T/cut.txt" 2>"$err"
	sed 's/^/# /' "$T/cut.txt"
	nothing_left "cut"
	ip -n "$(ns h3)" link set d0 up

	# Ctrl-C on the controller once the first pair is done: Ansible runs
	# nothing more, the servers stop by themselves (idle 4 s here).
	playbook int -e ipcperf_topology=pairs -e ipcperf_idle_timeout=4s \
		-e "ipcperf_dir=$T/hosts/parent" &
	apid=$!
	for _ in $(seq 300); do
		ls "$T"/hosts/parent/*/results/h1--h2.json >/dev/null 2>&1 && break
		sleep 0.1
	done
	kill -INT $(pgrep -P $apid) $apid
	ends_within $apid 30 "Ctrl-C: the playbook ends"
	grep -q "interrupted" "$T/ansible.log"; ok $? "Ctrl-C: Ansible says it was interrupted"
	first=""
	for _ in $(seq 150); do
		left=""
		for h in $HOSTS; do
			for p in $(ip netns pids "$(ns $h)" 2>/dev/null); do
				case $(readlink "/proc/$p/exe" 2>/dev/null) in
				*/ipcperf) left="$left $p" ;;
				esac
			done
		done
		first=${first:-${left:-none}}
		[ -z "$left" ] && break
		sleep 0.1
	done
	diag "Ctrl-C: servers running when the playbook had ended:$first"
	[ -z "$left" ]; ok $? "Ctrl-C: every server stopped by itself within 15 s${left:+ ($left left)}"
fi

# sshd ends with the namespaces; nothing of ours may remain.
pkill -TERM -f "$T/ansible/cp/" 2>/dev/null
for h in $HOSTS; do
	kill -TERM "$(cat "$T/sshd-$h.pid" 2>/dev/null)" 2>/dev/null
done
sleep 0.3
left=$(pgrep -f "$T/" | head -n 5)
[ -z "$left" ]; ok $? "no sshd, ssh or ipcperf of the test left${left:+ ($left)}"
done_testing

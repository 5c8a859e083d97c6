# SPDX-License-Identifier: MIT
# nginx for the http tests, sourced after lib.bash: one worker, no access
# log, everything under $T/ngx.
#
# nginx_start FUNC [NPORTS]: FUNC prints the server blocks of the http section,
# with $p0 (a port chosen here, the ones after it free as well, mostly)
# where they listen; nginx runs once its first port answers, and its
# last ($p0 + NPORTS - 1; nginx holds the first while it retries a port
# taken).  Sets ngx_pid and p0; 1 when it would not start.
nginx_start() {
	local try i
	mkdir -p "$T/ngx"
	for try in 1 2 3 4 5; do
		# Below the ephemeral range (32768 up): the tests' own client
		# connections, many of them closing, hold ports there.
		p0=$((20000 + RANDOM % 12000))
		cat >"$T/ngx/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $T/ngx/nginx.pid;
error_log $T/ngx/error.log;
$( [ "$(id -u)" = 0 ] && echo "user root;" )
events { worker_connections 1024; }
http {
	access_log off;
	client_body_temp_path $T/ngx/body;
$("$1")
}
CONF
		nginx -p "$T/ngx" -c "$T/ngx/nginx.conf" 2>"$T/ngx/start.err" &
		ngx_pid=$!
		for i in $(seq 30); do
			(exec 3<>"/dev/tcp/127.0.0.1/$p0") 2>/dev/null &&
				(exec 3<>"/dev/tcp/127.0.0.1/$((p0 + ${2:-1} - 1))") 2>/dev/null &&
				return 0
			kill -0 "$ngx_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill "$ngx_pid" 2>/dev/null
		wait "$ngx_pid" 2>/dev/null
	done
	diag "nginx would not start: $(cat "$T/ngx/start.err")"
	return 1
}

# nginx_stop: the nginx of nginx_start, and its files.
nginx_stop() {
	kill "$ngx_pid" 2>/dev/null ||
		diag "nginx had ended: $(tail -n 3 "$T/ngx/error.log" "$T/ngx/start.err" 2>/dev/null)"
	wait "$ngx_pid" 2>/dev/null
	rm -rf "$T/ngx"
}

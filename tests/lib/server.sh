# Sourced by the shell checks (tests/cli/check-monitoring.sh,
# tests/rest/check-openapi.sh) and the benches (tests/bench/bench-lib.sh):
# start a real actionbased on a free loopback port and wait until it
# answers. ab_start_server's caller defines server, tmp, pids and die.

# ab_listening_port FILE PID [TENTHS]: waits (default 600 tenths of a second)
# for actionbased's "listening on HOST:PORT" line in FILE and prints PORT;
# prints nothing when the time is up or PID exited first.
ab_listening_port() {
  local file=$1 pid=$2 tries=${3:-600} port= i
  for ((i = 0; i < tries; i++)); do
    port=$(sed -n 's/^listening on .*:\([0-9][0-9]*\)$/\1/p' "$file" | head -1)
    [ -n "$port" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  printf '%s' "$port"
}

# ab_start_server NAME STORE [ARGS...]: runs $server in $tmp/NAME, sets port.
ab_start_server() {
  local name=$1 store=$2 dir=$tmp/$1 pid code i
  shift 2
  mkdir -p "$dir"
  : >"$dir/stderr"
  (cd "$dir" && exec "$server" --listen 127.0.0.1:0 --store "$store" "$@" >stdout 2>stderr) &
  pid=$!
  pids+=("$pid")
  # Up to 60 s for the "listening on" line (a server on HBase connects
  # first, a valgrind-wrapped one is slow); a server that exits ends it.
  port=$(ab_listening_port "$dir/stderr" "$pid")
  [ -n "$port" ] || { cat "$dir/stderr" >&2; die "$name server: actionbased did not print 'listening on HOST:PORT'"; }
  # /health answers 200 once the store answered (bounded: 60 s).
  for ((i = 0; i < 600; i++)); do
    code=$(curl -s -o /dev/null -m 2 -w '%{http_code}' "http://127.0.0.1:$port/health")
    [ "$code" = 200 ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  [ "$code" = 200 ] || { cat "$dir/stderr" >&2; die "$name server: /health did not answer 200 (last: $code)"; }
}

# Shared by the REST benches (rest-bench.sh, hop-bench.sh): sourced, not run.
# Ports, waiting for a server, stopping processes, and building and starting
# actionbased on a fresh LMDB directory. Callers define say() and die().

free_port() {
  python3 - <<'PY' 2>/dev/null && return 0
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()
PY
  local p
  for _ in $(seq 50); do
    p=$((20000 + RANDOM % 40000))
    ss -Hltn "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; return 0; }
  done
  return 1
}

# wait_http URL SECONDS PID: until URL answers 200, the process dies, or time runs out
wait_http() {
  local url=$1 limit=$2 pid=$3 i
  for i in $(seq $((limit * 10))); do
    kill -0 "$pid" 2>/dev/null || return 1
    [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "$url" || true)" = 200 ] && return 0
    sleep 0.1
  done
  return 1
}

stop_pid() {  # stop_pid PID [SECONDS]: TERM, bounded wait, then KILL
  local pid=$1 limit=${2:-10} i
  [ -n "$pid" ] || return 0
  kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq $((limit * 10))); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# ab_binary REPO: prints the server binary ($ACTIONBASED, or build/bench's,
# built with -O2 -g when missing).
ab_binary() {
  local repo=$1 ab=${ACTIONBASED:-$1/build/bench/src/actionbased}
  if [ ! -x "$ab" ]; then
    [ -z "${ACTIONBASED:-}" ] || die "ACTIONBASED=$ab is not executable"
    say "building $ab (-O2 -g)"
    ( cd "$repo" && { [ -x configure ] || autoreconf -fi; } \
      && mkdir -p build/bench && cd build/bench \
      && { [ -f Makefile ] || ../../configure CFLAGS='-O2 -g'; } \
      && make -j2 src/actionbased ) >&2 || die "building actionbased failed"
  fi
  echo "$ab"
}

# ab_start BINARY DIR [ARGS...]: starts actionbased on lmdb:DIR/data on a
# free loopback port; sets ab_pid, ab_port and base (http://127.0.0.1:PORT)
# and returns once /health answers 200.
ab_start() {
  local bin=$1 dir=$2
  shift 2
  mkdir -p "$dir/data"
  "$bin" --listen 127.0.0.1:0 --store "lmdb:$dir/data" "$@" >"$dir/stdout" 2>"$dir/stderr" &
  ab_pid=$!
  ab_port=
  for _ in $(seq 100); do
    ab_port=$(sed -n 's/^listening on .*:\([0-9][0-9]*\)$/\1/p' "$dir/stderr" | head -1)
    [ -n "$ab_port" ] && break
    kill -0 "$ab_pid" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$ab_port" ] || { cat "$dir/stderr" >&2; die "actionbased did not print 'listening on HOST:PORT'"; }
  base=http://127.0.0.1:$ab_port
  wait_http "$base/health" 30 "$ab_pid" || { cat "$dir/stderr" >&2; die "actionbased /health did not answer 200"; }
}

# ab_post PATH BODY-FILE EXPECTED-SUBSTRING: POST to $base, 200 and the
# substring required; prints the answer.
ab_post() {
  local out code
  out=$(curl -sS -X POST -H 'Content-Type: application/json' --data-binary "@$2" \
    -w '\n%{http_code}' "$base$1") || die "POST $1: curl failed"
  code=${out##*$'\n'}
  [ "$code" = 200 ] || die "POST $1 -> $code: ${out%$'\n'*}"
  case "$out" in *"$3"*) ;; *) die "POST $1: unexpected answer: ${out%$'\n'*}";; esac
  printf '%s' "${out%$'\n'*}"
}

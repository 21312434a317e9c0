#!/usr/bin/env bash
# The web console (/ui/) in a real browser: starts the built src/actionbased on
# a free port of 127.0.0.1 with its own data directory, runs the Selenium suite
# (tests/browser/test_ui.py, headless chromium) against it, stops the server;
# once as is and once with --auth (an admin key and a read-only key).
# Screenshots go to tests/browser/test_ui.screens/ in the build directory.
# Exit 77 (SKIP) without chromium, chromium-driver or python3-selenium.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top_src=$(cd "$here/../.." && pwd)
server=${AB_SERVER_BIN:-$PWD/src/actionbased}

chromium=$(command -v chromium || command -v chromium-browser || true)
driver=$(command -v chromedriver || true)
[ -z "$driver" ] && [ -x /usr/bin/chromedriver ] && driver=/usr/bin/chromedriver
python=""
for p in /usr/bin/python3 python3; do
  if "$p" -c 'import selenium' 2>/dev/null; then python=$p; break; fi
done
[ -n "$chromium" ] || { echo "SKIP: chromium is not installed (Debian: chromium)" >&2; exit 77; }
[ -n "$driver" ] || { echo "SKIP: chromedriver is not installed (Debian: chromium-driver)" >&2; exit 77; }
[ -n "$python" ] || { echo "SKIP: python3 cannot import selenium (Debian: python3-selenium)" >&2; exit 77; }
[ -x "$server" ] || { echo "test_ui: no server binary at $server" >&2; exit 99; }

screens=$PWD/tests/browser/test_ui.screens
rm -rf "$screens"
mkdir -p "$screens"
work=$(mktemp -d "${TMPDIR:-/tmp}/ab-ui.XXXXXX")
pid=""
port=""
cleanup () {
  if [ -n "$pid" ]; then kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
  rm -rf "$work"
}
trap cleanup EXIT

# Health by HTTP status; python's urllib so that curl is not needed.
health_status () {
  "$python" - "$1" <<'EOF'
import sys, urllib.request, urllib.error
try:
    print(urllib.request.urlopen(sys.argv[1] + "/health", timeout=2).status)
except urllib.error.HTTPError as e:
    print(e.code)
except Exception:
    print(0)
EOF
}

# start_server NAME [flags...]: the server on its own directory; sets pid, port.
start_server () {
  local name=$1; shift
  local dir=$work/$name
  mkdir -p "$dir"
  : >"$dir/server.log" # there before the loop below reads it (the server's redirection may come later)
  "$server" --listen 127.0.0.1:0 --store "lmdb:$dir/data" --wal "file:$dir/wal" \
    --http-threads 2 "$@" 2>"$dir/server.log" &
  pid=$!
  port=""
  # The server prints "listening on HOST:PORT" once it accepts connections.
  for _ in $(seq 1200); do
    port=$(grep -o 'listening on [^ ]*' "$dir/server.log" | head -1 | sed 's/.*://')
    [ -n "$port" ] && break
    kill -0 "$pid" 2>/dev/null || { echo "test_ui: server exited early:"; cat "$dir/server.log"; pid=""; return 1; }
    sleep 0.05
  done
  [ -n "$port" ] || { echo "test_ui: server did not report its port"; return 1; }
  # Ready once /health answers 200 (the probe's first verdict).
  for _ in $(seq 600); do
    [ "$(health_status "http://127.0.0.1:$port")" = 200 ] && return 0
    sleep 0.05
  done
  echo "test_ui: server never became healthy"; cat "$dir/server.log"; return 1
}

# stop_server NAME: SIGTERM, and the server must exit 0 (sanitizers included).
stop_server () {
  local status
  kill -TERM "$pid"
  wait "$pid"
  status=$?
  pid=""
  if [ "$status" -ne 0 ]; then
    echo "test_ui: server exited with status $status; its log:"
    tail -n 100 "$work/$1/server.log"
    return 1
  fi
}

run_pass () {
  local name=$1; shift
  echo "== pass: $name =="
  start_server "$name" "$@" || return 1
  local st=0
  AB_UI_BASE="http://127.0.0.1:$port" AB_UI_SCREENS="$screens" AB_UI_SRC="$top_src/src/ui" \
    AB_UI_CHROMIUM="$chromium" AB_UI_DRIVER="$driver" AB_UI_MODE="$name" \
    AB_UI_ADMIN_KEY="${ACTIONBASE_ADMIN_KEY:-}" \
    "$python" "$here/test_ui.py" || st=1
  stop_server "$name" || st=1
  if [ "$st" -ne 0 ]; then
    echo "-- server log of pass $name (tail) --"
    tail -n 60 "$work/$name/server.log"
  fi
  return $st
}

status=0
run_pass plain || status=1
ACTIONBASE_ADMIN_KEY="ui-test-admin-$$-$RANDOM" run_pass auth --auth || status=1
echo "screenshots: $screens"
exit $status

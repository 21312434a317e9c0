#!/usr/bin/env bash
# An extra Thrift2 gateway on a running HBase of hbase/start.sh, for fault
# tests that kill and restart a gateway without disturbing the one the other
# suites share.
#
# usage: hbase/gateway.sh DIR start NAME [PORT]   prints HOST:PORT once ready
#        hbase/gateway.sh DIR kill NAME           SIGKILL, waits for the exit
# env:   AB_HBASE_TIMEOUT   seconds to wait for readiness (default 120)
# hbase/stop.sh DIR stops extra gateways too.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
[ $# -ge 3 ] || { echo "usage: $0 DIR start|kill NAME [PORT]" >&2; exit 2; }
dir=$(cd "$1" && pwd)
action=$2
name=$3
die () { echo "hbase/gateway.sh: $*" >&2; exit 1; }
[[ $name =~ ^[a-z0-9_]+$ ]] && [ "$name" != master ] && [ "$name" != thrift ] \
  || die "NAME must be [a-z0-9_]+ and not master / thrift"
[ -f "$dir/master.pid" ] && kill -0 "$(cat "$dir/master.pid")" 2>/dev/null \
  || die "no HBase running in $dir (hbase/start.sh $dir)"

running () { [ -f "$dir/$name.pid" ] && kill -0 "$(cat "$dir/$name.pid")" 2>/dev/null; }

case "$action" in
  start)
    running && die "gateway $name is already running"
    port=${4:-}
    if [ -z "$port" ]; then ab_hb_free_port || die "no free port found"; port=$ab_hb_port; fi
    ab_hb_launch_gateway "$dir" "$name" "$port"
    deadline=$((SECONDS + ${AB_HBASE_TIMEOUT:-120}))
    until ab_hb_probe "$port"; do
      running || { tail -n 30 "$dir/logs/$name.out" >&2 || true; die "gateway $name exited"; }
      [ "$SECONDS" -lt "$deadline" ] || die "gateway $name not ready in time"
      sleep 0.5
    done
    echo "127.0.0.1:$port"
    ;;
  kill)
    if running; then
      pid=$(cat "$dir/$name.pid")
      kill -KILL "$pid"
      while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    fi
    rm -f "$dir/$name.pid"
    ;;
  *) die "unknown action $action" ;;
esac

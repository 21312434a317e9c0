#!/usr/bin/env bash
# Stops the HBase started by hbase/start.sh DIR: the Thrift2 gateway first,
# then the HMaster JVM (TERM, then KILL after a grace period), and waits
# until neither process is left. Safe to run twice or on a half-started DIR.
#
# usage: hbase/stop.sh DIR     env: AB_HBASE_STOP_GRACE seconds (default 20)
set -uo pipefail
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dir=$1
grace=${AB_HBASE_STOP_GRACE:-20}

stop_pid () {
  local file=$1 pid
  [ -f "$file" ] || return 0
  pid=$(cat "$file")
  # Only a java process we started: the pid file may be stale and reused.
  if kill -0 "$pid" 2>/dev/null && grep -q java "/proc/$pid/cmdline" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null
    kill -CONT "$pid" 2>/dev/null   # a gateway a test left stopped (SIGSTOP) must see the TERM
    for _ in $(seq 1 $((grace * 5))); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    if kill -0 "$pid" 2>/dev/null; then
      kill -KILL "$pid" 2>/dev/null
      while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    fi
  fi
  rm -f "$file"
}
for gw in "$dir"/*.pid; do   # thrift.pid and the extra gateways of gateway.sh
  [ "$gw" = "$dir/master.pid" ] || stop_pid "$gw"
done
stop_pid "$dir/master.pid"
rm -f "$dir/addr"
exit 0

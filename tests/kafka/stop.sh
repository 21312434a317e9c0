#!/usr/bin/env bash
# Stops the Kafka started by tests/kafka/start.sh DIR (TERM, then KILL after a
# grace period) and waits until the JVM is gone. Keeps DIR's data and ports so
# start.sh DIR brings the same broker back. Safe to run twice.
#
# usage: tests/kafka/stop.sh DIR     env: AB_KAFKA_STOP_GRACE seconds (default 20)
set -uo pipefail
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dir=$1
grace=${AB_KAFKA_STOP_GRACE:-20}
file="$dir/kafka.pid"
if [ -f "$file" ]; then
  pid=$(cat "$file")
  # Only a java process we started: the pid file may be stale and reused.
  if kill -0 "$pid" 2>/dev/null && grep -q java "/proc/$pid/cmdline" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null
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
fi
rm -f "$dir/addr"
exit 0

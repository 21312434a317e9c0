#!/usr/bin/env bash
# The one test command: installs what is missing, builds with ASan+UBSan in
# build/test, runs every suite under `make check`, and prints the logs of the
# suites that failed. Exit status is the suites' verdict.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
bash deploy/install-deps.sh --tests
# One style: every C file of src/ and tests/ as .clang-format lays it out.
style_files=$(git ls-files 'src/*.[ch]' 'tests/*.[ch]' 2>/dev/null \
              || find src tests -name '*.[ch]' ! -path '*/gen-c_glib/*')
if ! clang-format --dry-run --Werror $style_files 2>/tmp/ab-style.$$; then
  grep -o '^[^:]*\.[ch]' /tmp/ab-style.$$ | sort -u | sed 's/^/style: /'
  echo "style: the files above differ from .clang-format; run: clang-format -i FILE..." >&2
  rm -f /tmp/ab-style.$$
  exit 1
fi
rm -f /tmp/ab-style.$$
[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi >/dev/null
mkdir -p build/test
cd build/test
if [ ! -f Makefile ] || [ ../../configure -nt Makefile ]; then
  ../../configure --enable-sanitizers CFLAGS="-O1 -g" >/dev/null
fi
make -j2 >/dev/null
# Services the suites need are started once for the whole run and always
# stopped: each start function appends its stop function to on_exit.
on_exit=()
run_on_exit () { local f; for f in "${on_exit[@]}"; do "$f" || true; done; }
trap run_on_exit EXIT

# Kafka (tests/kafka): AB_KAFKA=on (required), auto (default: skipped with a
# notice when java or mvn is missing) or off. Exports AB_KAFKA_ADDR and
# AB_KAFKA_DIR for the suites; without them the Kafka suites report SKIP.
kafka_dir=""
kafka_stop () {
  [ -n "$kafka_dir" ] || return 0
  local d
  for d in "$kafka_dir"/outage-* "$kafka_dir"; do
    [ -d "$d" ] && bash "$top/tests/kafka/stop.sh" "$d"
  done
  rm -rf "$kafka_dir"
}
kafka_start () {
  local mode=${AB_KAFKA:-auto}
  unset AB_KAFKA_ADDR AB_KAFKA_DIR
  [ "$mode" = off ] && return 0
  if ! command -v java >/dev/null || ! command -v mvn >/dev/null; then
    [ "$mode" = on ] && { echo "tests/run.sh: AB_KAFKA=on but java or mvn is missing" >&2; return 1; }
    echo "tests/run.sh: java or mvn missing: the Kafka suites are skipped"
    return 0
  fi
  kafka_dir=$(mktemp -d "${TMPDIR:-/tmp}/ab-kafka.XXXXXX")
  on_exit+=(kafka_stop)
  local addr
  if ! addr=$(bash "$top/tests/kafka/start.sh" "$kafka_dir"); then
    [ "$mode" = on ] && { echo "tests/run.sh: Kafka did not start" >&2; return 1; }
    echo "tests/run.sh: Kafka did not start: the Kafka suites are skipped"
    return 0
  fi
  export AB_KAFKA_ADDR=${addr##*$'\n'} AB_KAFKA_DIR=$kafka_dir
  echo "tests/run.sh: Kafka at $AB_KAFKA_ADDR"
}
kafka_start

# HBase (hbase/): AB_HBASE=on (required; CI), auto (default: skipped with a
# notice when java or mvn is missing) or off. One standalone HBase with its
# Thrift2 gateway serves every suite: AB_HBASE_ADDR names the gateway; without
# it tests/hbase reports SKIP and the store and engine suites skip hbase://.
hbase_dir=""
hbase_stop () {
  [ -n "$hbase_dir" ] || return 0
  bash "$top/hbase/stop.sh" "$hbase_dir"
  rm -rf "$hbase_dir"
}
hbase_start () {
  local mode=${AB_HBASE:-auto} addr
  unset AB_HBASE_ADDR AB_HBASE_DIR
  [ "$mode" = off ] && return 0
  if ! command -v java >/dev/null || ! command -v mvn >/dev/null; then
    [ "$mode" = on ] && { echo "tests/run.sh: AB_HBASE=on but java or mvn is missing" >&2; return 1; }
    echo "tests/run.sh: java or mvn missing: the HBase suites are skipped"
    return 0
  fi
  hbase_dir=$(mktemp -d "${TMPDIR:-/tmp}/ab-hbase.XXXXXX")
  on_exit+=(hbase_stop)
  trap 'exit 130' INT   # so that the EXIT trap stops the JVMs
  trap 'exit 143' TERM
  if ! addr=$(bash "$top/hbase/start.sh" "$hbase_dir"); then
    [ "$mode" = on ] && { echo "tests/run.sh: HBase did not start" >&2; return 1; }
    echo "tests/run.sh: HBase did not start: the HBase suites are skipped"
    return 0
  fi
  export AB_HBASE_ADDR=${addr##*$'\n'}
  export AB_HBASE_DIR=$hbase_dir   # tests/rest/test_gateway starts extra gateways there
  echo "tests/run.sh: HBase Thrift2 gateway at $AB_HBASE_ADDR"
}
hbase_start

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
touch .check-started   # the .trs files of this run are newer
make -j2 check || status=$?
# Last, on the suites' HBase: SIGKILL it, start it again in the same
# directory, and find an edge written before the crash (hbase/start.sh
# clears the dead instance's ZooKeeper state; docs/operations.md); then the
# same under load.
if [ -n "${AB_HBASE_ADDR:-}" ]; then
  if ! bash "$top/tests/hbase/restart-check.sh" "$hbase_dir" "$PWD/src/actionbased" >/dev/null; then
    echo "tests/run.sh: FAIL: tests/hbase/restart-check.sh (HBase restart after SIGKILL)"
    status=1
  fi
  # Then HBase killed (-9) and started again under writers and readers: the
  # soak's invariants (nothing acknowledged lost, refusals JSON 503s, writes
  # back without a restart of the node, counts equal scans, the verifier
  # clean with no repair), and no answer past the soak's 10 s (the write
  # budget, 4 s, plus one call timeout, 5 s; docs/architecture.md).
  if ! python3 "$top/tests/soak/soak.py" --server "$PWD/src/actionbased" \
      --verify "$PWD/src/actionbase-verify" --minutes 2 --faults hbase-kill \
      --hbase "$hbase_dir" --writers 4 --readers 1 --seed "${AB_SOAK_SEED:-41}"; then
    echo "tests/run.sh: FAIL: tests/soak/soak.py --faults hbase-kill (HBase killed under writers)"
    status=1
  fi
fi
if [ "$status" -ne 0 ]; then
  for log in $(find . -name '*.log' ! -name 'config.log' ! -name 'test-suite.log'); do
    trs="${log%.log}.trs"
    if [ -f "$trs" ] && grep -q ':test-result: \(FAIL\|ERROR\)' "$trs"; then
      echo "===== $log ====="; tail -n 200 "$log"
    fi
  done
fi
# A SKIP (exit 77) is not a failure for automake, and here neither: a suite
# skips when a service or tool it needs is absent, and says why on stderr
# (its .log). CI starts every service (AB_NO_SKIP=1, .ci/run): a skip there
# means a suite did not get what it needs, and fails the run.
skipped=$(find . -name '*.trs' -newer .check-started -exec grep -l ':test-result: SKIP' {} + || true)
for trs in $skipped; do
  echo "tests/run.sh: SKIP ${trs%.trs}: $(grep -m1 -i 'skip\|not set' "${trs%.trs}.log" || echo '(no reason given)')"
done
if [ -n "$skipped" ] && [ "${AB_NO_SKIP:-0}" = 1 ]; then
  echo "tests/run.sh: AB_NO_SKIP=1 but suites were skipped" >&2
  status=1
fi
[ -f test-suite.log ] && grep -E '^# (TOTAL|PASS|FAIL|ERROR|SKIP)' test-suite.log || true
exit "$status"

#!/usr/bin/env bash
# Runs every libFuzzer target of tests/fuzz for a bounded time (ASan+UBSan),
# starting from its seed corpus tests/fuzz/corpus/<target>/ (read only: new
# inputs go to a temp dir), and fails on any finding (crash, leak, UB,
# timeout, OOM); the reproducer is kept under $FUZZ_ARTIFACTS. Builds the
# targets in build/fuzz (CC=clang ./configure --enable-fuzz) when needed.
# Prints executions per second per target.
#
# Env: FUZZ_SECONDS=60   time per target
#      FUZZ_JOBS=2       targets run at once
#      FUZZ_TARGETS="element key ..."  subset (default: all)
#      FUZZ_BUILD=DIR    build dir (default build/fuzz)
#      FUZZ_ARTIFACTS=DIR  where findings go (default $FUZZ_BUILD/artifacts)
# Replay a finding: build/fuzz/tests/fuzz/fuzz_<target> <artifact file>
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-2}
build=${FUZZ_BUILD:-$top/build/fuzz}
artifacts=${FUZZ_ARTIFACTS:-$build/artifacts}
all="element key record offset predicate mutate meta hbase jsonw import_scan"
targets=${FUZZ_TARGETS:-$all}
[[ $secs =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: FUZZ_SECONDS must be a positive integer" >&2; exit 2; }

command -v clang >/dev/null || { echo "fuzz: clang is missing (deploy/install-deps.sh installs it)" >&2; exit 1; }
cd "$top"
[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi >/dev/null
mkdir -p "$build" "$artifacts"
cd "$build"
if [ ! -f Makefile ] || [ "$top/configure" -nt Makefile ] || ! grep -q -- '--enable-fuzz' config.status; then
  CC=clang "$top/configure" --enable-fuzz CFLAGS="-O1 -g" >/dev/null
fi
make src/store/gen/.stamp >/dev/null
make -j2 $(for t in $targets; do echo "tests/fuzz/fuzz_$t"; done) >/dev/null

work=$(mktemp -d "${TMPDIR:-/tmp}/ab-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT

# run_one TARGET: one bounded run; its exit status goes to $work/TARGET.rc.
run_one () {
  local t=$1 rc=0
  mkdir -p "$work/$t"
  "$build/tests/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=25 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts/$t-" \
    "$work/$t" "$top/tests/fuzz/corpus/$t" >"$work/$t.log" 2>&1 || rc=$?
  echo "$rc" >"$work/$t.rc"
}

for t in $targets; do
  [ -d "$top/tests/fuzz/corpus/$t" ] || { echo "fuzz: no corpus for $t" >&2; exit 2; }
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  run_one "$t" &
done
wait

status=0
stat () { sed -n "s/^stat::$2: *//p" "$work/$1.log" | tail -1; }
printf '%-10s %12s %10s %6s  %s\n' target executions exec/s new result
for t in $targets; do
  rc=$(cat "$work/$t.rc" 2>/dev/null || echo 1)
  if [ "$rc" -eq 0 ] && grep -q 'Test unit written to\|^SUMMARY: ' "$work/$t.log"; then rc=1; fi
  result=ok
  if [ "$rc" -ne 0 ]; then
    result="FINDING (exit $rc) $(sed -n 's/.*Test unit written to //p' "$work/$t.log" | tail -1)"
    status=1
  fi
  printf '%-10s %12s %10s %6s  %s\n' "$t" "$(stat "$t" number_of_executed_units)" \
    "$(stat "$t" average_exec_per_sec)" "$(stat "$t" new_units_added)" "$result"
done
if [ "$status" -ne 0 ]; then
  for t in $targets; do
    [ "$(cat "$work/$t.rc" 2>/dev/null || echo 1)" -ne 0 ] || continue
    echo "===== fuzz_$t ====="
    grep -v '^#[0-9]' "$work/$t.log" | tail -n 60
  done
  echo "fuzz: findings above; each needs a regression test in tests/unit/<module>/" >&2
fi
exit "$status"

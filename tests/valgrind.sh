#!/usr/bin/env bash
# Runs the unit suites (tests/unit) under valgrind's memcheck, and the REST
# suites (tests/rest) with every actionbased they start under memcheck, on a
# build without sanitizers or mimalloc (memcheck follows glibc's malloc only);
# fails on any error or definite leak. It finds what ASan misses: a freed
# string read inside GLib's printf (ASan does not see through
# g_strdup_printf), uninitialised reads. Builds in build/valgrind.
# tests/valgrind.supp lists the library-owned memory it ignores, and why.
#
# Env: VALGRIND_JOBS=2     suites run at once
#      VALGRIND_BUILD=DIR  build dir (default build/valgrind)
#      VALGRIND_SKIP="..." suites left out (default: test_store_lmdb and
#                          test_store_rocksdb, whose cases kill and re-run
#                          processes of their own and mount a tmpfs; the
#                          backends themselves run in test_store)
#      VALGRIND_SUITES="test_groups ..."  only these (default: every one)
# A REST suite that loops over the stores runs on lmdb alone here
# (AB_REST_STORE=lmdb): the server code under memcheck is the same, and three
# stores would triple the slowest part of a CI run. The engine and verify
# suites run on memory and lmdb (AB_TEST_UNDER_VALGRIND, hbase_test_uri.h).
# Each suite runs with CK_FORK=no (one process, so valgrind sees every case)
# and AB_TEST_UNDER_VALGRIND=1 (a latency tail is not judged: valgrind runs
# one thread at a time);
# a failing suite's log is printed, with its servers' memcheck reports. Suites
# that need HBase or Kafka skip those cases (their environment is not passed
# on). A REST suite's server exits non-zero on a memcheck error, which the
# harness's stop fails on (AB_SERVER_WRAPPER, tests/rest/rest_harness.c).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
jobs=${VALGRIND_JOBS:-2}
build=${VALGRIND_BUILD:-$top/build/valgrind}
skip=${VALGRIND_SKIP:-test_store_lmdb test_store_rocksdb}
command -v valgrind >/dev/null || { echo "valgrind: not installed (deploy/install-deps.sh installs it)" >&2; exit 1; }
cd "$top"
[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi >/dev/null
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ] || [ "$top/configure" -nt Makefile ] || grep -q -- '--enable-sanitizers\|--enable-fuzz' config.status \
   || ! grep -q -- '--without-mimalloc' config.status; then
  "$top/configure" --without-mimalloc CFLAGS="-O1 -g" >/dev/null
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ab-valgrind.XXXXXX")
trap 'rm -rf "$work"' EXIT
printf 'ab-print-check:\n\t@echo $(check_PROGRAMS)\n' >"$work/print.mk"
suites=()
for p in $(make -s -f Makefile -f "$work/print.mk" ab-print-check); do
  case $p in tests/unit/* | tests/rest/*) ;; *) continue ;; esac
  case " $skip " in *" ${p##*/} "*) continue ;; esac
  [ -z "${VALGRIND_SUITES:-}" ] || case " $VALGRIND_SUITES " in *" ${p##*/} "*) ;; *) continue ;; esac
  suites+=("$p")
done
make src/store/gen/.stamp >/dev/null
make -j2 src/actionbased "${suites[@]}" >/dev/null

# run_one SUITE: its log goes to $work/NAME.log, its status to $work/NAME.rc.
run_one () {
  local suite=$1 name start rc=0
  name=$(basename "$suite")
  start=$(date +%s)
  local memcheck="valgrind --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite --error-exitcode=99 -q --suppressions=$top/tests/valgrind.supp"
  case $suite in
    tests/rest/*)
      # The suite's client runs natively; each server it starts under memcheck.
      # G_SLICE set: the server keeps its process (it would start itself
      # again with it, and memcheck does not follow an exec: slices.h).
      env -u AB_HBASE_ADDR -u AB_KAFKA_ADDR -u AB_KAFKA_DIR CK_FORK=no CK_TIMEOUT_MULTIPLIER=30 \
        AB_REST_STORE=lmdb G_SLICE=always-malloc AB_SERVER_WRAPPER="$memcheck --log-file=$work/$name.server-%p.log" \
        "./$suite" >"$work/$name.log" 2>&1 || rc=$? ;;
    *)
      env -u AB_HBASE_ADDR -u AB_KAFKA_ADDR -u AB_KAFKA_DIR CK_FORK=no AB_TEST_UNDER_VALGRIND=1 \
        $memcheck "./$suite" >"$work/$name.log" 2>&1 || rc=$? ;;
  esac
  # Skipped (77: needs a service not passed on) counts as clean.
  [ "$rc" = 77 ] && rc=0
  echo "$rc" >"$work/$name.rc"
  echo "valgrind: $suite: $([ "$rc" = 0 ] && echo clean || echo "FAILED (status $rc)") in $(($(date +%s) - start)) s"
}
export -f run_one
export work top
printf '%s\n' "${suites[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one {}'
failed=0
for s in "${suites[@]}"; do
  name=$(basename "$s")
  if [ "$(cat "$work/$name.rc")" != 0 ]; then
    failed=$((failed + 1))
    echo "---- $s under valgrind ----"
    cat "$work/$name.log"
    for f in "$work/$name".server-*.log; do
      if [ -s "$f" ]; then
        echo "---- a server of $name: ${f##*/} ----"
        cat "$f"
      fi
    done
  fi
done
echo "valgrind: ${#suites[@]} unit and REST suites, $failed failed"
[ "$failed" = 0 ]

#!/usr/bin/env bash
# The one test command: installs what is missing, builds with ASan+UBSan in
# build/test, runs every suite under `make check`, and prints the logs of the
# suites that failed. Exit status is the suites' verdict.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
bash deploy/install-deps.sh
[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi >/dev/null
mkdir -p build/test
cd build/test
if [ ! -f Makefile ] || [ ../../configure -nt Makefile ]; then
  ../../configure --enable-sanitizers CFLAGS="-O1 -g" >/dev/null
fi
make -j2 >/dev/null
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
make -j2 check || status=$?
if [ "$status" -ne 0 ]; then
  for log in $(find . -name '*.log' ! -name 'config.log' ! -name 'test-suite.log'); do
    trs="${log%.log}.trs"
    if [ -f "$trs" ] && grep -q ':test-result: \(FAIL\|ERROR\)' "$trs"; then
      echo "===== $log ====="; tail -n 200 "$log"
    fi
  done
fi
[ -f test-suite.log ] && grep -E '^# (TOTAL|PASS|FAIL|ERROR|SKIP)' test-suite.log || true
exit "$status"

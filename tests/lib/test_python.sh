#!/bin/sh
# Runs tests/lib/test_python.py: the Python module over the library just
# built (in a sanitizer build the ASan/UBSan runtimes are preloaded first,
# as they must be ahead of python3's own libraries).
set -eu
lib="$PWD/src/lib/.libs/libactionbase.so.0"
[ -f "$lib" ] || { echo "test_python: $lib not built"; exit 1; }
command -v python3 >/dev/null || { echo "python3 missing"; exit 77; }
pre=$(ldd "$lib" | awk '/libasan|libubsan/ { print $3 }' | tr '\n' ':')
if [ -n "$pre" ]; then
  LD_PRELOAD="${pre%:}"
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  export LD_PRELOAD ASAN_OPTIONS
fi
ACTIONBASE_LIB="$lib" PYTHONPATH="${srcdir:-.}/src/lib/python" \
  exec python3 "${srcdir:-.}/tests/lib/test_python.py"

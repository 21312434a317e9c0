#!/usr/bin/env bash
# Backup checksum throughput (tests/bench/digest-bench.c): OpenSSL's EVP
# SHA-256 against GChecksum in the same run, and against the hand-written
# SHA-NI code the tree had until issue 42 (taken from git at BASELINE_REV,
# default 090cde6; BASELINE_REV= to skip it).
# Usage: tests/bench/digest-bench.sh
# Not a timed test: the machine's other load shows up in the numbers.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/ab-digest.XXXXXX")
trap 'rm -rf "$work"' EXIT
rev=${BASELINE_REV-090cde6}
extra=()
if [ -n "$rev" ] && git -C "$here" show "$rev:src/admin/sha256.c" >"$work/sha256.c" 2>/dev/null; then
  git -C "$here" show "$rev:src/admin/sha256.h" >"$work/sha256.h"
  sed -i 's|#include "admin/sha256.h"|#include "sha256.h"|' "$work/sha256.c"
  extra=(-DWITH_OLD -I"$work" "$work/sha256.c")
fi
# shellcheck disable=SC2046
cc -O2 -o "$work/digest-bench" "$here/digest-bench.c" "${extra[@]}" \
  $(pkg-config --cflags --libs glib-2.0 openssl)
"$work/digest-bench"

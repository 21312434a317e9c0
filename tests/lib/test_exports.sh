#!/bin/sh
# libactionbase exports exactly the calls its public header declares: lists
# the shared library's dynamic symbols, fails on any the header lacks and on
# any declared call the library misses; the version script names each
# declared call, without a wildcard; checks the SONAME.
set -eu
so=src/lib/.libs/libactionbase.so
hdr="${srcdir:-.}/src/lib/actionbase.h"
[ -f "$so" ] || { echo "test_exports: $so not built" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRVWi]$/ { sub(/@.*/, "", $3); print $3 }' \
  | sort -u > "$tmp/exported"
sed -n 's/^AB_DB_API [^(]*[ *]\(ab_db_[a-z0-9_]*\) (.*/\1/p' "$hdr" | sort -u > "$tmp/declared"
status=0
if [ "$(wc -l < "$tmp/declared")" -lt 50 ]; then
  echo "test_exports: only $(wc -l < "$tmp/declared") declarations found in $hdr" >&2
  status=1
fi
map="${srcdir:-.}/src/lib/actionbase.map"
sed -n 's/^ *\(ab_db_[a-z0-9_]*\);$/\1/p' "$map" | sort -u > "$tmp/mapped"
if grep -q 'ab_db_[a-z0-9_]*\*' "$map" || ! cmp -s "$tmp/mapped" "$tmp/declared"; then
  echo "the version script does not name exactly the declared calls:"
  comm -3 "$tmp/mapped" "$tmp/declared"
  status=1
fi
extra=$(comm -23 "$tmp/exported" "$tmp/declared")
missing=$(comm -13 "$tmp/exported" "$tmp/declared")
[ -z "$extra" ] || { echo "exported but not in actionbase.h:"; echo "$extra"; status=1; }
[ -z "$missing" ] || { echo "declared in actionbase.h but not exported:"; echo "$missing"; status=1; }
soname=$(objdump -p "$so" | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = libactionbase.so.0 ] || { echo "SONAME is '$soname', not libactionbase.so.0"; status=1; }
[ $status -ne 0 ] || echo "test_exports: $(wc -l < "$tmp/exported") symbols, all declared; SONAME $soname"
exit $status

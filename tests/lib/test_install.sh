#!/bin/sh
# `make install` puts the header, libactionbase.so.0 (+ .so, .a) and
# actionbase.pc in place, and a program builds from them with pkg-config,
# against the shared and against the static library, and runs.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${MAKE:-make} -s install DESTDIR="$tmp/root" >"$tmp/install.log" 2>&1 \
  || { cat "$tmp/install.log"; exit 1; }
lib=$(find "$tmp/root" -name libactionbase.so.0 | head -1)
[ -n "$lib" ] || { echo "libactionbase.so.0 not installed"; exit 1; }
libdir=$(dirname "$lib")
prefix=$(dirname "$libdir")
for f in "$prefix/include/actionbase.h" "$libdir/libactionbase.a" "$libdir/libactionbase.so" \
  "$libdir/pkgconfig/actionbase.pc"; do
  [ -f "$f" ] || { echo "not installed: $f"; exit 1; }
done
# the .pc as installed, pointed at the staging prefix
mkdir -p "$tmp/pc"
sed "s#^prefix=.*#prefix=$prefix#" "$libdir/pkgconfig/actionbase.pc" > "$tmp/pc/actionbase.pc"
export PKG_CONFIG_PATH="$tmp/pc"
cc=${AB_CC:-cc}
ex="${srcdir:-.}/examples/likes.c"
# shellcheck disable=SC2086
$cc ${AB_CFLAGS:-} "$ex" $(pkg-config --cflags --libs actionbase) ${AB_LDFLAGS:-} -o "$tmp/shared"
LD_LIBRARY_PATH="$libdir" "$tmp/shared" "memory:" >/dev/null
ldd "$tmp/shared" | grep -q 'libactionbase.so.0 =>' || { echo "not linked to the .so"; exit 1; }
deps="glib-2.0 gio-2.0 json-glib-1.0 libxxhash lmdb rocksdb sqlite3 thrift_c_glib rdkafka libcrypto"
# shellcheck disable=SC2086
$cc ${AB_CFLAGS:-} "$ex" $(pkg-config --cflags actionbase) "$libdir/libactionbase.a" \
  $(pkg-config --libs $deps) -lm ${AB_LDFLAGS:-} -o "$tmp/static"
"$tmp/static" "memory:" >/dev/null
if ldd "$tmp/static" | grep -q libactionbase; then echo "static build uses the .so"; exit 1; fi
echo "test_install: header, libactionbase.so.0, .a and actionbase.pc installed; likes built and ran both ways"
